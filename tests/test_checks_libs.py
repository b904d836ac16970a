"""The library and install checks (libs.*, packages.*) against scenario fixtures and edited facts."""

from __future__ import annotations

from dataclasses import replace
from typing import List, Optional

import pytest

from checkhelp import SCENARIOS, commands, found, load, skipped
from gpudoctor.checks import libs, packages, platform, toolkit, torch_builds, windows
from gpudoctor.checks import packages_duplicates as duplicates
from gpudoctor.facts import CompanionFacts, Distribution, EnvFacts, Facts, LibraryFacts, PlatformFacts, TorchFacts
from gpudoctor.model import CheckResult, Status
from gpudoctor.registry import Check
from gpudoctor.runner import run_check

OURS: List[Check] = (libs.CHECKS + duplicates.CHECKS + packages.CHECKS + windows.CHECKS + toolkit.CHECKS + platform.CHECKS
                     + torch_builds.CHECKS)
BY_ID = {c.id: c for c in OURS}
PY = "/home/ana/venv/bin/python"



def run(check_id: str, facts: Facts) -> CheckResult:
    return run_check(BY_ID[check_id], facts)





def test_ids_are_unique_and_every_code_is_its_check_id_on_every_scenario() -> None:
    assert len(BY_ID) == len(OURS) == 15
    for path in sorted(SCENARIOS.glob("*.json")):
        facts = Facts.from_json(path.read_text(encoding="utf-8"))
        for check in OURS:
            result = run_check(check, facts)
            assert result.status is not Status.CRASH, (path.stem, check.id, result.reason)
            assert {f.code for f in result.findings} <= {check.id}, (path.stem, check.id)
            for finding in result.findings:
                assert finding.severity.value == "info" or (finding.fix and finding.fix.commands), (path.stem, check.id)


# ---------------------------------------------------------------- libs.shadowed


def test_system_cudnn_on_ld_library_path_is_named_with_the_variable_and_the_export_without_it() -> None:
    result = run("libs.shadowed", load("cat-cudnn-shadowed"))
    assert found(result) == [(
        "error",
        "torch loaded cuDNN from /public/apps/cudnn/v8.6.0/lib64, not from its own wheels "
        "(the LD_LIBRARY_PATH entry /public/apps/cudnn/v8.6.0/lib64 comes first)",
    )]
    assert result.findings[0].detail == (
        "Observed: /public/apps/cudnn/v8.6.0/lib64/libcudnn.so.8.6.0, found through the LD_LIBRARY_PATH entry "
        "/public/apps/cudnn/v8.6.0/lib64. Required: CUDA libraries from site-packages/nvidia/*/lib or torch/lib. "
        "torch was compiled against cuDNN 8.7.0 and found 8.6.0."
    )
    assert commands(result) == [("export LD_LIBRARY_PATH=/home/ana/.local/lib",)]


def test_undefined_symbol_in_a_system_cudnn_names_that_file_and_unsets_the_only_entry() -> None:
    result = run("libs.shadowed", load("cat-cudnn-undefined-symbol"))
    assert found(result) == [(
        "error",
        "torch loaded cuDNN from /usr/local/cuda-12.3/lib64, not from its own wheels "
        "(the LD_LIBRARY_PATH entry /usr/local/cuda-12.3/lib64 comes first)",
    )]
    assert commands(result) == [("unset LD_LIBRARY_PATH",)]


def test_a_copy_from_the_ldconfig_cache_gets_the_cache_fix() -> None:
    facts = load("cat-cudnn-shadowed")
    cached = (("libcudnn.so.8", "/public/apps/cudnn/v8.6.0/lib64/libcudnn.so.8"),)
    facts = replace(facts, libraries=LibraryFacts(ldconfig_cuda=cached), env=EnvFacts())
    result = run("libs.shadowed", facts)
    assert found(result) == [(
        "error",
        "torch loaded cuDNN from /public/apps/cudnn/v8.6.0/lib64, not from its own wheels "
        "(the ldconfig entry /public/apps/cudnn/v8.6.0/lib64 comes first)",
    )]
    assert commands(result) == [(
        "grep -rlF /public/apps/cudnn/v8.6.0/lib64 /etc/ld.so.conf /etc/ld.so.conf.d", "sudo ldconfig",
    )]


def test_libraries_of_the_wheels_and_the_driver_libcuda_are_never_flagged() -> None:
    facts = load("cat-cudnn-shadowed")
    site = "/home/ana/venv/lib/python3.10/site-packages"
    loaded = (site + "/torch/lib/libtorch_cuda.so", site + "/nvidia/cudnn/lib/libcudnn.so.8",
              site + "/nvidia/cu13/lib/libcublas.so.13", "/lib/x86_64-linux-gnu/libcuda.so.535.183.01",
              site + "/torchvision.libs/libcudart.41118559.so.13")
    facts = replace(facts, torch=replace(facts.torch, loaded_libraries=loaded, cudnn_error=None))
    result = run("libs.shadowed", facts)
    assert result.status is Status.PASS
    assert found(result) == [(
        "info", "LD_LIBRARY_PATH holds CUDA libraries that torch did not load: /public/apps/cudnn/v8.6.0/lib64 (libcudnn.so.8)",
    )]


def test_a_conda_build_may_load_cuda_libraries_from_its_own_environment() -> None:
    prefix = "/home/ana/miniconda3/envs/dl"
    site = prefix + "/lib/python3.11/site-packages"
    facts = Facts(
        platform=PlatformFacts(system="Linux", conda_env=prefix, python_version="3.11.9"),
        torch=TorchFacts(installed=True, version="2.5.1", location=site + "/torch", cuda="12.4",
                         loaded_libraries=(prefix + "/lib/libcudnn.so.9.1.0", prefix + "/lib/libcublas.so.12")),
        packages=(Distribution("torch", "2.5.1", site, ("filelock",)),),
    )
    assert found(run("libs.shadowed", facts)) == []
    pip_build = replace(facts, torch=replace(facts.torch, version="2.5.1+cu124"))
    assert [s for s, _ in found(run("libs.shadowed", pip_build))] == ["warning"]


def test_cudnn_version_error_without_the_loaded_path_points_at_the_cuda_looking_entry() -> None:
    facts = load("cat-cudnn-shadowed")
    facts = replace(facts, torch=replace(facts.torch, loaded_libraries=()))
    result = run("libs.shadowed", facts)
    assert found(result) == [(
        "error", "torch was compiled against cuDNN 8.7.0 but loaded cuDNN 8.6.0, most likely through the LD_LIBRARY_PATH "
        "entry /public/apps/cudnn/v8.6.0/lib64",
    )]
    assert commands(result) == [("export LD_LIBRARY_PATH=/home/ana/.local/lib",)]


def test_a_cpu_build_reports_cuda_libraries_on_ld_library_path_as_information() -> None:
    site = "/srv/env/lib/python3.11/site-packages"
    facts = Facts(
        platform=PlatformFacts(system="Linux"),
        torch=TorchFacts(installed=True, version="2.13.0+cpu", location=site + "/torch", cuda_compiled=False,
                         loaded_libraries=(site + "/torch/lib/libtorch_cpu.so",)),
        libraries=LibraryFacts(ld_library_path=("/opt/stray",), ld_library_path_cuda=(("libcudart.so.12", "/opt/stray/libcudart.so.12"),)),
    )
    result = run("libs.shadowed", facts)
    assert result.status is Status.PASS
    assert found(result) == [("info", "LD_LIBRARY_PATH holds CUDA libraries that torch did not load: /opt/stray (libcudart.so.12)")]
    assert result.findings[0].detail == (
        "This torch is not a CUDA build and loads none; a CUDA build would find these before its own wheels' copies."
    )


def test_a_library_that_cannot_be_opened_beside_a_partial_system_copy() -> None:
    facts = load("cat-cudnn-missing-wheel")
    error = "ImportError: libcudnn_ops_infer.so.8: cannot open shared object file: No such file or directory"
    facts = replace(facts, torch=replace(facts.torch, import_error=error, import_traceback=None),
                    libraries=LibraryFacts(ld_library_path=("/opt/cudnn-8.6/lib",),
                                           ld_library_path_cuda=(("libcudnn.so.8", "/opt/cudnn-8.6/lib/libcudnn.so.8"),)))
    result = run("libs.shadowed", facts)
    assert result.status is Status.FAIL
    assert found(result) == [(
        "error", "import torch fails on libcudnn_ops_infer.so.8 while the LD_LIBRARY_PATH entry /opt/cudnn-8.6/lib holds "
        "another cuDNN (libcudnn.so.8)",
    )]
    assert commands(result) == [("unset LD_LIBRARY_PATH",)]


def test_loaded_libraries_not_recorded_is_a_skip() -> None:
    facts = Facts(platform=PlatformFacts(system="Linux"), torch=TorchFacts(installed=True, version="2.6.0+cu126", cuda="12.6"),
                  meta=replace(Facts().meta, source="collect_env"))
    assert skipped(run("libs.shadowed", facts)) == (
        "the libraries torch loaded were not recorded (they are read from /proc on Linux)"
    )


def test_shadowing_cannot_be_judged_when_torch_did_not_import() -> None:
    assert skipped(run("libs.shadowed", load("cat-cudnn-missing-wheel"))) == (
        "torch did not import, so the libraries it loads are not known"
    )
    assert skipped(run("libs.shadowed", load("torch-missing"))) == "torch is not installed"


# ---------------------------------------------------------------- libs.mixed-cuda-majors


def test_cuda13_wheels_beside_a_cu128_torch_are_listed_and_removed_before_reinstalling_torch() -> None:
    result = run("libs.mixed-cuda-majors", load("cat-mixed-cuda-majors"))
    assert found(result) == [(
        "warning",
        "nvidia-* wheels of another CUDA major than torch's CUDA 12: CUDA 13: cuda-toolkit 13.0.2, nvidia-cublas 13.1.0.3, "
        "nvidia-cuda-runtime 13.0.96, nvidia-cudnn-cu13 9.13.0.50",
    )]
    assert commands(result) == [(
        f"{PY} -m pip uninstall -y cuda-toolkit nvidia-cublas nvidia-cuda-runtime nvidia-cudnn-cu13",
        f"{PY} -m pip install --force-reinstall torch==2.9.1+cu128 --index-url https://download.pytorch.org/whl/cu128",
    )]


def test_two_majors_beside_a_cpu_torch_offer_removing_either() -> None:
    site = "/srv/env/lib/python3.11/site-packages"
    facts = Facts(
        platform=PlatformFacts(system="Linux", python_executable="/srv/env/bin/python"),
        torch=TorchFacts(installed=True, version="2.13.0+cpu", cuda_compiled=False),
        packages=(Distribution("nvidia-cuda-runtime-cu12", "12.6.77", site), Distribution("nvidia-nvtx", "13.0.85", site),
                  Distribution("nvidia-ml-py", "13.615.71", site), Distribution("torch", "2.13.0+cpu", site)),
    )
    result = run("libs.mixed-cuda-majors", facts)
    assert found(result) == [(
        "warning",
        "nvidia-* wheels of 2 CUDA majors in one environment: CUDA 12: nvidia-cuda-runtime-cu12 12.6.77; CUDA 13: nvidia-nvtx 13.0.85",
    )]
    assert commands(result) == [(
        "/srv/env/bin/python -m pip uninstall -y nvidia-cuda-runtime-cu12",
        "/srv/env/bin/python -m pip uninstall -y nvidia-nvtx",
    )]


def test_a_cu130_torch_with_its_own_wheels_passes() -> None:
    site = "/srv/env/lib/python3.11/site-packages"
    facts = Facts(
        torch=TorchFacts(installed=True, version="2.14.1+cu130", cuda="13.0"),
        packages=tuple(Distribution(n, v, site) for n, v in (
            ("cuda-toolkit", "13.0.3"), ("nvidia-cufft", "12.0.0.61"), ("nvidia-nvjitlink", "13.5.37"),
            ("nvidia-cudnn-cu13", "9.24.0.43"), ("nvidia-curand", "10.4.0.35"))),
    )
    result = run("libs.mixed-cuda-majors", facts)
    assert (result.status, found(result)) == (Status.PASS, [])


@pytest.mark.parametrize("name, version, major", [
    ("nvidia-cudnn-cu12", "9.1.0.70", 12), ("nvidia_cublas_cu11", "11.11.3.6", 11), ("nvidia-cublas", "13.1.0.3", 13),
    ("nvidia-cuda-runtime", "13.0.96", 13), ("cuda-toolkit", "13.0.3", 13), ("nvidia-cufft", "12.0.0.61", None),
    ("nvidia-ml-py", "13.615.71", None), ("torch", "2.6.0", None),
])
def test_wheel_cuda_major(name: str, version: str, major: Optional[int]) -> None:
    assert toolkit.wheel_cuda_major(name, version) == major


# ---------------------------------------------------------------- libs.missing and libs.wrong-version


def test_an_uninstalled_cudnn_wheel_is_named_with_the_reinstall_of_torch() -> None:
    result = run("libs.missing", load("cat-cudnn-missing-wheel"))
    assert found(result) == [("error", "torch 2.1.2+cu121 needs nvidia-cudnn-cu12==8.9.2.26, which is not installed")]
    assert result.findings[0].detail == (
        "Observed: none of nvidia-cudnn-cu12==8.9.2.26 in this environment; import fails on libcudnn.so.8. "
        "Required: every nvidia-* wheel torch lists."
    )
    assert commands(result) == [(
        f"{PY} -m pip install --force-reinstall torch==2.1.2+cu121 --index-url https://download.pytorch.org/whl/cu121",
    )]


def test_a_deleted_file_of_torch_itself_is_named_with_its_path() -> None:
    result = run("libs.missing", load("cat-torch-file-deleted"))
    where = "/srv/jobs/env/lib/python3.11/site-packages/torch/lib/libtorch_cpu.so"
    assert found(result) == [("error", f"torch's own library libtorch_cpu.so cannot be loaded: {where} is missing")]
    assert commands(result) == [(
        "/srv/jobs/env/bin/python -m pip install --force-reinstall torch==2.13.0+cpu "
        "--index-url https://download.pytorch.org/whl/cpu --no-deps",
    )]


def test_an_installed_wheel_whose_library_cannot_be_opened_is_partly_removed() -> None:
    facts = load("cat-cudnn-missing-wheel")
    error = "ImportError: libcublasLt.so.12: cannot open shared object file: No such file or directory"
    site = "/home/ana/venv/lib/python3.11/site-packages"
    facts = replace(facts, torch=replace(facts.torch, import_error=error, import_traceback=None),
                    packages=facts.packages + (Distribution("nvidia-cudnn-cu12", "8.9.2.26", site),))
    result = run("libs.missing", facts)
    assert found(result) == [(
        "error", "torch cannot load cuBLAS (libcublasLt.so.12): nvidia-cublas-cu12 12.1.3.1 is installed but "
        "libcublasLt.so.12 cannot be loaded from it",
    )]


def test_missing_wheels_of_a_working_torch_are_a_warning() -> None:
    facts = load("cat-cudnn-wrong-version")
    facts = replace(facts, torch=replace(facts.torch, cudnn_error=None),
                    packages=tuple(d for d in facts.packages if d.name != "nvidia-nccl-cu12"))
    assert found(run("libs.missing", facts)) == [
        ("warning", "torch 2.6.0+cu126 needs nvidia-nccl-cu12==2.21.5, which is not installed"),
    ]


def test_cuda_toolkit_extras_of_a_cu130_torch_are_expanded_to_their_wheels() -> None:
    site = "/srv/env/lib/python3.12/site-packages"
    requires = ('cuda-toolkit[cublas,cudart,cufile]==13.0.3; platform_system == "Linux"',
                'nvidia-cudnn-cu13==9.24.0.43; platform_system == "Linux"')
    facts = Facts(
        platform=PlatformFacts(system="Linux", machine="x86_64", python_version="3.12.3", python_executable="/srv/env/bin/python"),
        torch=TorchFacts(installed=True, version="2.14.1+cu130", cuda="13.0", is_available=True),
        packages=(Distribution("torch", "2.14.1+cu130", site, requires), Distribution("cuda-toolkit", "13.0.3", site),
                  Distribution("nvidia-cudnn-cu13", "9.24.0.43", site), Distribution("nvidia-cuda-runtime", "13.0.96", site)),
    )
    assert found(run("libs.missing", facts)) == [
        ("warning", "torch 2.14.1+cu130 needs nvidia-cublas, nvidia-cufile, which are not installed"),
    ]
    windows_facts = replace(facts, platform=replace(facts.platform, system="Windows"))
    assert found(run("libs.missing", windows_facts)) == []


def test_requirements_unknown_and_no_error_is_a_skip() -> None:
    facts = Facts(torch=TorchFacts(installed=True, version="2.6.0+cu126"))
    assert skipped(run("libs.missing", facts)) == "torch's requirements are not known"
    assert skipped(run("libs.wrong-version", facts)) == "torch's requirements are not known"


def test_a_cudnn_wheel_at_another_version_than_torch_requires() -> None:
    result = run("libs.wrong-version", load("cat-cudnn-wrong-version"))
    assert found(result) == [(
        "warning", "nvidia-cudnn-cu12 9.1.0.70 is installed; torch 2.6.0+cu126 requires nvidia-cudnn-cu12==9.5.1.17",
    )]
    assert commands(result) == [(f"{PY} -m pip install nvidia-cudnn-cu12==9.5.1.17",)]
    assert run("libs.shadowed", load("cat-cudnn-wrong-version")).findings == ()


# ---------------------------------------------------------------- packages.duplicate-torch


def test_a_user_site_torch_hiding_the_environments_torch() -> None:
    result = run("packages.duplicate-torch", load("cat-user-site-torch"))
    assert found(result) == [(
        "error", "torch 2.1.2+cpu from /home/ana/.local/lib/python3.10/site-packages (user site) hides the environment's "
        "torch 2.5.1+cu124 in /home/ana/miniconda3/envs/dl/lib/python3.10/site-packages",
    )]
    assert commands(result) == [("/home/ana/miniconda3/envs/dl/bin/python -m pip uninstall -y torch",)]


def _two_torches(imported: str, other: str, with_meta: bool = True, **env: str) -> Facts:
    dists = [Distribution("torch", "2.6.0+cu124", other.rsplit("/", 1)[0], ("filelock",))]
    if with_meta:
        dists.insert(0, Distribution("torch", "2.1.0", imported.rsplit("/", 1)[0], ("filelock",)))
    return Facts(
        platform=PlatformFacts(system="Linux", python_executable="/srv/env/bin/python"),
        torch=TorchFacts(installed=True, version="2.1.0", location=imported, other_locations=(other,)),
        packages=tuple(dists), env=EnvFacts(tuple(sorted(env.items()))),
    )


def test_a_torch_on_pythonpath_is_fixed_by_editing_pythonpath() -> None:
    facts = _two_torches("/opt/old/torch", "/srv/env/lib/python3.11/site-packages/torch", PYTHONPATH="/opt/tools:/opt/old")
    result = run("packages.duplicate-torch", facts)
    assert found(result) == [(
        "error", "torch 2.1.0 from /opt/old (PYTHONPATH) hides the environment's torch 2.6.0+cu124 in "
        "/srv/env/lib/python3.11/site-packages",
    )]
    assert commands(result) == [("export PYTHONPATH=/opt/tools",)]


def test_a_torch_directory_without_metadata_is_moved_aside() -> None:
    facts = _two_torches("/home/ana/src/torch", "/srv/env/lib/python3.11/site-packages/torch", with_meta=False)
    result = run("packages.duplicate-torch", facts)
    assert found(result) == [(
        "error", "Python imports torch 2.1.0 from /home/ana/src/torch, but pip's torch is 2.6.0+cu124 in "
        "/srv/env/lib/python3.11/site-packages",
    )]
    assert commands(result) == [("mv /home/ana/src/torch /home/ana/src/torch.stray",)]


def test_a_hidden_copy_in_another_environment_is_uninstalled_with_its_own_python() -> None:
    facts = _two_torches("/srv/env/lib/python3.11/site-packages/torch", "/opt/conda/lib/python3.11/site-packages/torch")
    result = run("packages.duplicate-torch", facts)
    assert found(result) == [(
        "warning", "a second torch 2.6.0+cu124 in /opt/conda/lib/python3.11/site-packages (conda environment) is hidden "
        "behind torch 2.1.0 from /srv/env/lib/python3.11/site-packages",
    )]
    assert commands(result) == [("/opt/conda/bin/python3.11 -m pip uninstall -y torch",)]
    assert result.findings[0].fix.text == (  # type: ignore[union-attr]
        "Uninstall the torch in /opt/conda/lib/python3.11/site-packages with the Python it belongs to "
        "(if conda installed it: conda remove -p /opt/conda pytorch)."
    )


def test_one_torch_passes_and_an_unknown_location_skips() -> None:
    facts = load("cat-cudnn-wrong-version")
    assert run("packages.duplicate-torch", facts).status is Status.PASS
    assert skipped(run("packages.duplicate-torch", Facts(torch=TorchFacts(installed=True)))) == (
        "the directory torch is imported from is not known"
    )


# ---------------------------------------------------------------- torchaudio and released sets


def test_torchaudio_of_another_release_and_cuda() -> None:
    result = run("packages.torchaudio-mismatch", load("cat-torchaudio-mismatch"))
    assert found(result) == [(
        "error", "torchaudio 2.4.1+cu121 does not match torch 2.5.1+cu124: it was released for another torch "
        "(torch 2.5.1 goes with torchaudio 2.5.1)",
    )]
    assert commands(result) == [(
        f"{PY} -m pip install torchaudio==2.5.1+cu124 --index-url https://download.pytorch.org/whl/cu124 --no-deps",
    )]


def _audio(torch: str, audio: str, cuda: Optional[str] = None) -> Facts:
    return Facts(
        platform=PlatformFacts(system="Linux", machine="x86_64", python_executable="/srv/env/bin/python"),
        torch=TorchFacts(installed=True, version=torch, cuda=cuda),
        torchaudio=CompanionFacts(installed=True, version=audio),
    )


def test_stable_abi_torchaudio_runs_with_later_torch_but_older_torchaudio_does_not() -> None:
    assert run("packages.torchaudio-mismatch", _audio("2.13.0+cu130", "2.11.0+cu130", "13.0")).status is Status.PASS
    assert found(run("packages.torchaudio-mismatch", _audio("2.13.0+cu130", "2.10.0+cu130", "13.0"))) == [
        ("error", "torchaudio 2.10.0+cu130 does not match torch 2.13.0+cu130: it was released for another torch "
                  "(torch 2.13.0 goes with torchaudio 2.11.0)"),
    ]
    assert found(run("packages.torchaudio-mismatch", _audio("2.6.0+cu124", "2.6.0+cpu", "12.4"))) == [
        ("warning", "torchaudio 2.6.0+cpu does not match torch 2.6.0+cu124: it is a CPU build beside a CUDA torch, "
                    "so its GPU operators are missing"),
    ]


def test_the_whole_set_is_compared_with_the_release_it_belongs_to() -> None:
    result = run("packages.unreleased-combination", load("cat-torchaudio-mismatch"))
    assert found(result) == [(
        "warning", "torch 2.5.1+cu124, torchvision 0.20.1+cu124, torchaudio 2.4.1+cu121 were never released together: "
        "torchaudio 2.4.1+cu121 does not belong to torch 2.5.1; builds differ: torch cu124, torchvision cu124, torchaudio cu121",
    )]
    assert commands(result) == [(
        f"{PY} -m pip install torch==2.5.1+cu124 torchvision==0.20.1+cu124 torchaudio==2.5.1+cu124 "
        "--index-url https://download.pytorch.org/whl/cu124",
    )]


def test_a_pypi_torch_matches_a_tagged_companion_of_the_pypi_variant() -> None:
    facts = replace(_audio("2.5.1", "2.5.1+cu124"), torchvision=CompanionFacts(installed=True, version="0.20.1"))
    assert run("packages.unreleased-combination", facts).status is Status.PASS
    cpu = replace(facts, torch=replace(facts.torch, version="2.5.1+cpu"))
    assert found(run("packages.unreleased-combination", cpu)) == [(
        "warning", "torch 2.5.1+cpu, torchvision 0.20.1, torchaudio 2.5.1+cu124 were never released together: "
        "builds differ: torch cpu, torchvision cu124, torchaudio cu124",
    )]


def test_torchvision_of_another_cuda_minor_loads_but_another_major_does_not() -> None:
    pypi = replace(_audio("2.14.1+cu130", None), torchvision=CompanionFacts(installed=True, version="0.29.2+cu132"))
    assert run("packages.unreleased-combination", pypi).status is Status.PASS
    other_major = replace(pypi, torchvision=CompanionFacts(installed=True, version="0.29.2+cu126"))
    assert found(run("packages.unreleased-combination", other_major)) == [(
        "warning", "torch 2.14.1+cu130, torchvision 0.29.2+cu126 were never released together: "
        "builds differ: torch cu130, torchvision cu126",
    )]


def test_a_torch_the_tables_do_not_know_is_said_as_information() -> None:
    result = run("packages.unreleased-combination", load("cat-container-804"))
    assert found(result) == [(
        "info", "torch 2.4.0a0+3bcc3cddb5.nv24.07 is not a release this gpudoctor knows (a nightly, a source build or a newer release)",
    )]


def test_a_paste_listing_another_torch_than_the_imported_one_warns() -> None:
    facts = Facts(
        torch=TorchFacts(installed=True, version="1.3.0"),
        packages=(Distribution("torch", "1.2.0"), Distribution("torchvision", "0.4.0")),
    )
    result = run("packages.duplicate-torch", facts)
    assert found(result) == [
        ("warning", "torch 1.3.0 is the one imported, but the package list also shows torch 1.2.0"),
    ]
    assert commands(result) == [(
        'python -c "import torch; print(torch.__version__, torch.__file__)"', "python -m pip list", "conda list pytorch",
    )]
    same = Facts(torch=TorchFacts(installed=True, version="2.0.1+cu117"), packages=(Distribution("torch", "2.0.1"),))
    assert skipped(run("packages.duplicate-torch", same)) == "the directory torch is imported from is not known"
