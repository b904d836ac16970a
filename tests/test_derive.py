"""Error texts in the facts are classified once into typed values, whatever the facts came from."""

from __future__ import annotations

from dataclasses import replace

from gpudoctor.examples import read_text
from gpudoctor.facts import CompanionFacts, DriverFacts, Facts, TorchFacts
from gpudoctor.facts.derive import Derived, KernelRefusal, classify, cuda_of_found_version, derived, failed_file
from gpudoctor.facts.sites import SiteKind, SiteOwner, site_kind, site_owner
from gpudoctor.facts.verify import ModelRun, VerifyFacts
from gpudoctor.parsers.report import load_facts

TOO_OLD = ("The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by "
           "downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx")


def test_the_found_version_of_a_too_old_driver_is_decoded() -> None:
    facts = Facts(torch=TorchFacts(init_error=TOO_OLD))
    assert classify(facts) == Derived(driver_found_version=11040)
    assert classify(facts).driver_found_cuda == "11.4"
    assert cuda_of_found_version(12080) == "12.8"


def test_no_error_text_derives_nothing() -> None:
    assert classify(Facts()) == Derived()
    assert Derived().driver_found_cuda is None


def test_a_shipped_facts_file_and_a_pasted_report_are_classified_alike() -> None:
    from_file = load_facts(read_text("driver-too-old"), "example")
    pasted = load_facts("Collecting environment information...\nPyTorch version: 2.4.0+cu121\n"
                        "Is CUDA available: False\nCUDA runtime version: 12.1\n"
                        f"/usr/lib/python3/site-packages/torch/cuda/__init__.py:118: UserWarning: {TOO_OLD}\n",
                        "paste")
    assert derived(from_file).driver_found_cuda == "11.4"
    assert derived(pasted).driver_found_version == 11040


def test_the_file_an_import_error_names_comes_from_the_error_then_the_traceback() -> None:
    error = "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory"
    assert failed_file(error) == "libcudnn.so.9"
    assert failed_file('OSError: [WinError 126] Error loading "C:\\torch\\lib\\c10.dll" or one of its dependencies.') \
        == "C:\\torch\\lib\\c10.dll"
    traceback_only = TorchFacts(import_error="ImportError: DLL load failed",
                                import_traceback="OSError: Could not load library libcudnn_ops.so.9")
    assert classify(Facts(torch=traceback_only)).import_failed_file == "libcudnn_ops.so.9"


def test_the_reading_is_kept_for_the_same_facts_object_only() -> None:
    facts = Facts(torch=TorchFacts(init_error=TOO_OLD))
    first = derived(facts)
    assert derived(facts) is first
    other = replace(facts, torch=TorchFacts(init_error=TOO_OLD.replace("11040", "12020")))
    assert derived(other).driver_found_cuda == "12.2"
    assert derived(facts) == first


def test_a_windows_dll_error_gives_its_code_and_its_dll() -> None:
    torch = TorchFacts(import_error="OSError: [WinError 126] The specified module could not be found.",
                       import_traceback='OSError: [WinError 126] ... Error loading "C:\\py\\torch\\lib\\c10.dll"')
    reading = classify(Facts(torch=torch))
    assert (reading.import_winerror, reading.import_dll) == ("126", "C:\\py\\torch\\lib\\c10.dll")
    assert classify(Facts(torch=TorchFacts(import_error="[WinError 5] Access is denied"))).import_winerror is None


def test_the_nvml_library_version_of_a_mismatch_is_read_from_the_driver_texts() -> None:
    text = "Failed to initialize NVML: Driver/library version mismatch\nNVML library version: 550.54"
    assert classify(Facts(driver=DriverFacts(smi_error_text=text))).nvml_library_version == "550.54"


def test_library_errors_are_read_from_every_text_torch_left() -> None:
    torch = TorchFacts(
        import_error="ImportError: /opt/cuda/lib64/libcudnn.so.8: undefined symbol: cudnnFoo, version libcudnn.so.8",
        init_error="OSError: /usr/lib/libnvrtc.so.12: cannot open shared object file: No such file or directory",
        cudnn_error="RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (9, 1, 0) but found "
                    "runtime version (8, 9, 2).",
        warnings=("Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9}",
                  "libnvrtc.so.12: cannot open shared object file"),
    )
    reading = classify(Facts(torch=torch))
    assert reading.library_error is True
    assert (reading.cudnn_compiled, reading.cudnn_runtime) == ("9.1.0", "8.9.2")
    assert reading.undefined_symbol_libraries == ("/opt/cuda/lib64/libcudnn.so.8",)
    assert reading.failed_libraries == ("libnvrtc.so.12", "libcudnn_ops.so.9.1.0")  # each once, first seen first
    assert classify(Facts(torch=TorchFacts(warnings=("a harmless warning",)))).library_error is False


def test_torchvisions_cuda_mismatch_names_both_versions() -> None:
    error = ("RuntimeError: Detected that PyTorch and torchvision were compiled with different CUDA major versions. "
             "PyTorch has CUDA Version=11.8 and torchvision has CUDA Version=12.1. Please reinstall the torchvision")
    reading = classify(Facts(torchvision=CompanionFacts(import_error=error)))
    assert reading.torchvision_cuda_pair == ("11.8", "12.1")
    assert classify(Facts(torchvision=CompanionFacts(import_error="ImportError: nope"))).torchvision_cuda_pair is None


HUGE = 2_000_000  # characters of hostile text: classification stays linear and keeps bounded results


def test_an_unopened_unversioned_libcuda_is_noticed_in_torchs_texts_only() -> None:
    text = "OSError: libcuda.so: cannot open shared object file: No such file or directory"
    assert classify(Facts(torch=TorchFacts(import_error=text))).libcuda_so_unopened
    assert classify(Facts(torch=TorchFacts(warnings=("x", text)))).libcuda_so_unopened
    versioned = "libcuda.so.1: cannot open shared object file"
    assert not classify(Facts(torch=TorchFacts(init_error=versioned))).libcuda_so_unopened
    assert not classify(Facts(torch=TorchFacts(import_traceback=text))).libcuda_so_unopened  # not a text it reads
    assert not classify(Facts(torch=TorchFacts(init_error="libcuda.so: " * (HUGE // 12)))).libcuda_so_unopened


def test_the_words_of_a_cuda_newer_than_the_driver_are_kept_as_printed() -> None:
    def forward(init_error: str) -> object:
        return classify(Facts(torch=TorchFacts(init_error=init_error))).forward_compat_error

    assert forward("CUDA initialization: Unexpected error from cudaGetDeviceCount(). Error 804: forward "
                   "compatibility was attempted on non supported HW") == "Error 804"
    assert forward("Error 803: system has unsupported display driver / cuda driver combination") == "Error 803"
    assert forward("RuntimeError: forward compatibility was attempted on non supported HW") == \
        "forward compatibility was attempted"
    assert forward("Error 805: something else") is None
    assert forward("Error 8040 " * (HUGE // 11)) == "Error 804"  # the first, from a huge text
    assert classify(Facts(torch=TorchFacts(warnings=("unsupported display driver / cuda driver",)))) \
        .forward_compat_error == "unsupported display driver / cuda driver"
    assert forward("") is None


CAPABILITY = ("NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch "
              "installation.")


def test_torchs_refusals_of_an_architecture_name_it_and_any_gpu_when_no_kernel_image_exists() -> None:
    facts = Facts(torch=TorchFacts(warnings=("unrelated", f"  {CAPABILITY}  "),
                                   init_error="CUDA error: no kernel image is available for execution on the device"))
    got = classify(facts)
    assert got.kernel_refusals == (
        KernelRefusal(CAPABILITY, ("sm_120",)),
        KernelRefusal("CUDA error: no kernel image is available for execution on the device", (), True))
    assert got.kernel_refusal("sm_120") == CAPABILITY
    assert got.kernel_refusal("sm_86") == "CUDA error: no kernel image is available for execution on the device"
    assert got.kernel_refusal("sm_12") == "CUDA error: no kernel image is available for execution on the device"
    only = classify(Facts(torch=TorchFacts(warnings=(CAPABILITY,))))
    assert only.kernel_refusal("sm_12") is None and only.kernel_refusal("sm_1200") is None
    assert classify(Facts(torch=TorchFacts(warnings=("capability sm_86 is compatible",)))).kernel_refusals == ()


def test_a_later_refusal_of_a_named_architecture_is_dropped_as_the_first_one_answers() -> None:
    second = "capability sm_86 is not compatible; capability sm_75 is not compatible"
    got = classify(Facts(torch=TorchFacts(warnings=("capability sm_86 is not compatible", second, second,
                                                     "no kernel image is available", "capability sm_61 is not compatible"))))
    assert [r.archs for r in got.kernel_refusals] == [("sm_86",), ("sm_75",), ()]
    assert got.kernel_refusal("sm_75") == second
    assert got.kernel_refusal("sm_61") == "no kernel image is available"  # it comes first


def test_hostile_refusals_keep_a_bounded_number_of_architectures() -> None:
    flood = " ".join(f"capability sm_{n} is not compatible" for n in range(HUGE // 40))
    got = classify(Facts(torch=TorchFacts(warnings=(flood,) * 3)))
    assert len(got.kernel_refusals) == 1 and len(got.kernel_refusals[0].archs) == 64
    assert got.kernel_refusal("sm_0") is not None and got.kernel_refusal("sm_64") is None


def test_a_busy_gpu_is_read_from_the_init_error_and_every_verify_error_in_any_case() -> None:
    busy = "CUDA error: CUDA-capable device(s) is/are Busy or Unavailable"
    assert classify(Facts(torch=TorchFacts(init_error=busy))).gpu_busy
    for verify in (VerifyFacts(smoke_error=busy), VerifyFacts(worker_error=busy),
                   VerifyFacts(runs=(ModelRun(error="x"), ModelRun(error=busy)))):
        assert classify(Facts(verify=verify)).gpu_busy
    assert not classify(Facts(torch=TorchFacts(warnings=(busy,)))).gpu_busy  # warnings are not read
    assert not classify(Facts(torch=TorchFacts(init_error="busy " * (HUGE // 5)), verify=VerifyFacts())).gpu_busy


def test_a_site_folder_is_named_by_whose_it_is() -> None:
    assert site_kind("/home/ana/.local/lib/python3.11/site-packages") is SiteKind.USER
    assert site_kind(r"C:\Users\ana\AppData\Roaming\Python\Python311\site-packages") is SiteKind.USER
    assert site_kind("/Users/ana/Library/Python/3.11/lib/python/site-packages") is SiteKind.USER
    assert site_kind("/home/ana/miniforge3/envs/t/lib/python3.11/site-packages") is SiteKind.CONDA
    assert site_kind("/opt/MAMBA/lib/python3.11/site-packages") is SiteKind.CONDA
    assert site_kind("/usr/lib/python3/dist-packages") is SiteKind.PLAIN
    assert site_kind("/home/ana/.local/lib/python3.11/site-packages/extra") is SiteKind.PLAIN
    assert site_kind("/" + "a/.local/lib/python" * (HUGE // 20)) is SiteKind.PLAIN
    assert SiteKind.CONDA.value == "conda environment"


def test_a_posix_site_folder_names_the_environment_and_python_it_belongs_to() -> None:
    owner = site_owner("/opt/conda/envs/x/lib/python3.11/site-packages")
    assert owner == SiteOwner("/opt/conda/envs/x", "3.11")
    assert owner is not None and owner.interpreter == "/opt/conda/envs/x/bin/python3.11"
    assert site_owner(r"C:\Python311\Lib\site-packages") is None
    assert site_owner("/usr/lib/python3/dist-packages") is None
    assert site_owner("/x/lib/python3.11/site-packages/torch") is None
    assert site_owner("/lib/python" * (HUGE // 11)) is None
