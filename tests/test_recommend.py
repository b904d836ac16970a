"""The fix recommender, table-driven: what it installs for each machine, and the whole answer as a golden file."""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional, Tuple

import pytest
from gpudoctor.compat import Confidence
from gpudoctor.recommend import Recommendation, recommend

C, S, U = Confidence.CONFIRMED, Confidence.SECONDARY, Confidence.UNCONFIRMED
IDX = "https://download.pytorch.org/whl/"

# name -> ((ccs, driver, system, machine, python, current torch), keyword arguments)
CASES: Dict[str, Tuple[Tuple[Any, ...], Dict[str, Any]]] = {
    "rtx5090-driver570": (([(12, 0)], "570.86.15", "Linux", "x86_64", "3.12.3", "2.6.0+cu126"), {}),
    "v100-driver535-newest": ((["7.0"], "535.104.05", "Linux", "x86_64", "3.11.4", "2.14.1+cu130"), {}),
    "gt645m": (([(3, 0)], "470.82.01", "Linux", "x86_64", "3.10.12", "2.6.0+cu124"), {}),
    "gtx780": (([(3, 5)], "470.82.01", "Linux", "x86_64", "3.10.12", None), {}),
    "k80-driver470": (([(3, 7)], "470.82.01", "Linux", "x86_64", "3.10.12", None), {}),
    "rtx3090-driver470": (([(8, 6)], "470.82.01", "Linux", "x86_64", "3.10.12", "2.5.1+cu121"), {}),
    "python313-old-torch": (([(8, 6)], "550.54.14", "Linux", "x86_64", "3.13.1", "2.4.1+cu121"), {}),
    "python38": (([(8, 6)], "550.54.14", "Linux", "x86_64", "3.8.10", "2.4.1+cu121"), {}),
    "python315": (([(8, 6)], "580.95.05", "Linux", "x86_64", "3.15.0", None), {}),
    "gh200-driver550": (([(9, 0)], "550.90.07", "Linux", "aarch64", "3.12.3", None), {}),
    "gh200-driver580": (([(9, 0)], "580.95.05", "Linux", "aarch64", "3.12.3", "2.14.1"), {}),
    "gb10-driver580": (([(12, 1)], "580.95.05", "Linux", "aarch64", "3.12.3", None), {}),
    "orin-jetpack6": (([(8, 7)], "540.4.0", "Linux", "aarch64", "3.10.12", None), {}),
    "orin-driver580": (([(8, 7)], "580.65.06", "Linux", "aarch64", "3.12.3", None), {}),
    "windows-rtx4080-driver551": (([(8, 9)], "551.61", "Windows", "AMD64", "3.12.1", "2.14.1+cpu"), {}),
    "windows-rtx4080-driver527": (([(8, 9)], "527.50", "Windows", "AMD64", "3.12.1", None), {}),
    "windows-rtx4080-driver581": (([(8, 9)], "581.57", "Windows", "AMD64", "3.12.1", None), {}),
    "windows-rtx5090-driver572": (([(12, 0)], "572.16", "Windows", "AMD64", "3.12.1", None), {}),
    "windows-arm64": (([(8, 9)], "581.57", "Windows", "ARM64", "3.12.1", None), {}),
    "macos-arm64": (([], None, "Darwin", "arm64", "3.12.1", "2.14.1"), {}),
    "macos-x86_64": (([], None, "Darwin", "x86_64", "3.11.4", None), {}),
    "mixed-gtx1080-rtx5090": (([(6, 1), (12, 0)], "580.95.05", "Linux", "x86_64", "3.12.1", None),
                              {"gpu_names": ["NVIDIA GeForce GTX 1080", "NVIDIA GeForce RTX 5090"]}),
    "driver418-rtx3090": (([(8, 6)], "418.39", "Linux", "x86_64", "3.11.1", None), {}),
    "driver-unknown": (([(8, 9)], None, "Linux", "x86_64", None, None), {}),
    "no-gpu-driver535": (([], "535.104.05", "Linux", "x86_64", "3.11.4", None), {}),
    "future-gpu-ptx": (([(13, 0)], "580.95.05", "Linux", "x86_64", "3.12.1", None), {}),
    "linux-ppc64le": (([(7, 0)], "535.104.05", "Linux", "ppc64le", "3.11.4", None), {}),
    "with-torchaudio": (([(8, 6)], "535.104.05", "Linux", "x86_64", "3.11.4", "2.3.1+cu121"),
                        {"with_torchaudio": True}),
    "without-torchvision": (([(8, 6)], "580.95.05", "Linux", "x86_64", "3.11.4", None), {"with_torchvision": False}),
}


def _cmd(torch: str, vision: Optional[str], variant: str, force: bool = False, audio: Optional[str] = None) -> str:
    parts = ["pip install"] + (["--force-reinstall"] if force else []) + [f"torch=={torch}+{variant}"]
    if vision:
        parts.append(f"torchvision=={vision}+{variant}")
    if audio:
        parts.append(f"torchaudio=={audio}+{variant}")
    return " ".join(parts + ["--index-url", IDX + variant])


# name -> (ok, reason, torch, variant, confidence, commands)
EXPECTED: Dict[str, Tuple[bool, Optional[str], Optional[str], Optional[str], Confidence, Tuple[str, ...]]] = {
    "rtx5090-driver570": (True, None, "2.13.0+cu129", "cu129", C, (_cmd("2.13.0", "0.28.0", "cu129"),)),
    "v100-driver535-newest": (True, None, "2.14.1+cu126", "cu126", C, (_cmd("2.14.1", "0.29.1", "cu126"),)),
    "gt645m": (False, "gpu_unsupported", None, None, S, ()),
    "gtx780": (False, "gpu_unsupported", None, None, S, ()),
    "k80-driver470": (True, None, "2.7.1+cu118", "cu118", S, (_cmd("2.7.1", "0.22.1", "cu118"),)),
    "rtx3090-driver470": (True, None, "2.7.1+cu118", "cu118", S, (_cmd("2.7.1", "0.22.1", "cu118"),)),
    "python313-old-torch": (True, None, "2.14.1+cu126", "cu126", C, (_cmd("2.14.1", "0.29.1", "cu126"),)),
    "python38": (True, None, "2.4.1+cu124", "cu124", C, (_cmd("2.4.1", "0.19.1", "cu124"),)),
    "python315": (True, None, "2.15.0+cu130", "cu130", S, (_cmd("2.15.0", "0.29.2", "cu130"),)),
    "gh200-driver550": (True, None, "2.14.1+cu126", "cu126", C, (_cmd("2.14.1", "0.29.1", "cu126"),)),
    "gh200-driver580": (True, None, "2.15.0+cu130", "cu130", S, (_cmd("2.15.0", "0.29.2", "cu130"),)),
    "gb10-driver580": (True, None, "2.15.0+cu130", "cu130", S, (_cmd("2.15.0", "0.29.2", "cu130"),)),
    "orin-jetpack6": (False, "driver_too_old", None, None, S, ()),
    "orin-driver580": (True, None, "2.15.0+cu132", "cu132", S, (_cmd("2.15.0", "0.29.2", "cu132"),)),
    "windows-rtx4080-driver551": (True, None, "2.14.1+cu126", "cu126", S,
                                  (_cmd("2.14.1", "0.29.1", "cu126"),)),
    "windows-rtx4080-driver527": (True, None, "2.14.1+cu126", "cu126", U, (_cmd("2.14.1", "0.29.1", "cu126"),)),
    "windows-rtx4080-driver581": (True, None, "2.15.0+cu130", "cu130", S, (_cmd("2.15.0", "0.29.2", "cu130"),)),
    "windows-rtx5090-driver572": (True, None, "2.11.0+cu128", "cu128", S, (_cmd("2.11.0", "0.26.0", "cu128"),)),
    "windows-arm64": (False, "platform_unsupported", None, None, C, ()),
    "macos-arm64": (True, None, "2.15.0", None, C, ("pip install torch==2.15.0 torchvision==0.29.2",)),
    "macos-x86_64": (True, None, "2.2.2", None, C, ("pip install torch==2.2.2 torchvision==0.17.2",)),
    "mixed-gtx1080-rtx5090": (False, "mixed_gpus", None, None, S, ()),
    "driver418-rtx3090": (False, "driver_too_old", None, None, S, ()),
    "driver-unknown": (True, None, "2.15.0+cu132", "cu132", C, (_cmd("2.15.0", "0.29.2", "cu132"),)),
    "no-gpu-driver535": (True, None, "2.14.1+cu126", "cu126", C, (_cmd("2.14.1", "0.29.1", "cu126"),)),
    "future-gpu-ptx": (True, None, "2.13.0+cu130", "cu130", C, (_cmd("2.13.0", "0.28.0", "cu130"),)),
    "linux-ppc64le": (False, "platform_unsupported", None, None, C, ()),
    "with-torchaudio": (True, None, "2.14.1+cu126", "cu126", U,
                        (_cmd("2.14.1", "0.29.1", "cu126", audio="2.11.0"),)),
    "without-torchvision": (True, None, "2.15.0+cu130", "cu130", S, (_cmd("2.15.0", None, "cu130"),)),
}


def _run(name: str) -> Recommendation:
    args, kwargs = CASES[name]
    return recommend(*args, **kwargs)


@pytest.mark.parametrize("name", sorted(CASES))
def test_recommendation_table(name: str) -> None:
    r = _run(name)
    assert (r.ok, r.reason, r.torch, r.variant, r.confidence, r.commands) == EXPECTED[name]
    if r.ok:
        assert r.commands == (f"pip {r.pip_args}",)
        assert r.index_url == (IDX + r.variant if r.variant else None)
    else:
        assert r.pip_args == "" and r.options


def _render(name: str, r: Recommendation) -> str:
    lines = [f"## {name}", f"ok={r.ok} reason={r.reason} confidence={r.confidence.value}", f"text: {r.text}"]
    lines += [f"  $ {c}" for c in r.commands]
    lines += [f"  note: {n}" for n in r.notes]
    for option in r.options:
        lines.append(f"  option [{option.confidence.value}]: {option.text}")
        lines += [f"    $ {c}" for c in option.commands]
    return "\n".join(lines) + "\n"


def test_whole_answers(golden: Callable[[str, str], None]) -> None:
    golden("compat-recommend.md", "\n".join(_render(name, _run(name)) for name in CASES))


def test_rtx5090_driver570_whole_answer() -> None:
    # The newest build for a Blackwell GPU on a CUDA 12.8 driver is the cu129 one of 2.13, not cu128 of 2.11.
    r = _run("rtx5090-driver570")
    assert r.text == ("Install torch 2.13.0+cu129 with torchvision 0.28.0+cu129: its kernels cover every GPU "
                      "(CC 12.0 by sm_120); driver 570.86.15 (CUDA 12.8) runs CUDA 12.9 builds through minor-version "
                      "compatibility (it needs NVIDIA driver >= 525.60.13).")
    assert r.notes == ("torch 2.15.0 is not an option: cu130: needs NVIDIA driver >= 580.65.06; cu132: needs NVIDIA "
                       "driver >= 580.65.06.",)
    assert [(o.text, o.commands, o.confidence) for o in r.options] == [
        ("Or upgrade to NVIDIA driver >= 580.65.06 and install torch 2.15.0+cu130.",
         (_cmd("2.15.0", "0.29.2", "cu130"),), S)]


def test_gt645m_has_no_wheel_and_says_what_to_do() -> None:
    r = _run("gt645m")
    assert r.text == ("No official PyTorch wheel can use this GPU: CC 3.0 is older than every official wheel for Linux "
                      "x86_64 (the oldest kernels are sm_37, last shipped in torch 2.7.1+cu118).")
    build, cpu = r.options
    assert build.confidence is U
    assert build.commands == (
        "git clone --recursive --branch v1.12.1 https://github.com/pytorch/pytorch", "cd pytorch",
        "pip install -r requirements.txt", "export TORCH_CUDA_ARCH_LIST=3.0", "export CUDA_HOME=/usr/local/cuda-10.2",
        "pip install --no-build-isolation -v .")
    assert cpu.commands == (_cmd("2.14.1", "0.29.1", "cpu"),)  # Python 3.10: 2.15 needs 3.11


def test_no_force_reinstall_where_a_pinned_local_version_replaces_the_build() -> None:
    # pip replaces 2.14.1+cu130 (or a PyPI 2.14.1) with ==2.14.1+cu126 by itself; forcing would reinstall every
    # dependency. Only the very build installed is kept by pip, and only then is the flag needed.
    same = recommend([(8, 6)], "535.104.05", "Linux", "x86_64", "3.11.4", "2.14.1+cu130")
    pypi = recommend([(8, 6)], "535.104.05", "Linux", "x86_64", "3.11.4", "2.14.1")
    other = recommend([(8, 6)], "535.104.05", "Linux", "x86_64", "3.11.4", "2.13.0+cu130")
    kept = recommend([(8, 6)], "535.104.05", "Linux", "x86_64", "3.11.4", "2.14.1+cu126")
    for answer in (same, pypi, other):
        assert answer.pip_args == ("install torch==2.14.1+cu126 torchvision==0.29.1+cu126 "
                                   "--index-url https://download.pytorch.org/whl/cu126")
        assert "force" not in answer.text
    assert kept.pip_args.startswith("install --force-reinstall torch==2.14.1+cu126 ")
    assert "pip would otherwise keep it" in kept.text
    macos = recommend([], None, "Darwin", "arm64", "3.12.1", "2.15.0")
    assert macos.pip_args.startswith("install --force-reinstall torch==2.15.0 ")


def test_command_for_a_target_interpreter() -> None:
    r = _run("no-gpu-driver535")
    assert r.command() == "pip " + r.pip_args
    assert r.command("/opt/my env/bin/python") == "'/opt/my env/bin/python' -m pip " + r.pip_args
    assert recommend([(3, 0)], None, "Linux", "x86_64").command("/usr/bin/python3") == ""


def test_windows_never_gets_the_pypi_default() -> None:
    for driver in ("551.61", "581.57", None):
        r = recommend([(8, 9)], driver, "Windows", "AMD64", "3.12.1", None)
        assert r.ok and r.index_url is not None and r.variant is not None and r.variant.startswith("cu")


@pytest.mark.parametrize("junk", [["x"], [(8,)], [None], ["sm_"]])
def test_junk_compute_capability(junk: object) -> None:
    with pytest.raises(ValueError, match="not a compute capability"):
        recommend(junk, "550.54.14", "Linux", "x86_64")  # type: ignore[arg-type]


def test_junk_platform_and_versions() -> None:
    unsupported = recommend([(8, 6)], "garbage", "FreeBSD", "riscv64", "garbage", "garbage")
    assert (unsupported.ok, unsupported.reason, unsupported.text) == (
        False, "platform_unsupported", "PyTorch publishes no CUDA wheels for FreeBSD on riscv64.")
    # a paste that names no platform gets the commands of the platform nearly every wheel is for, and says so
    unknown = recommend([(8, 6)], "garbage", None, None, "garbage", "garbage")
    assert unknown.ok and unknown.torch == junk_torch()
    assert "The input does not say which operating system or CPU this is; the commands are for Linux x86_64." \
        in unknown.notes
    windows = recommend([(8, 6)], "garbage", "Windows", None, "garbage", "garbage")
    assert windows.ok and windows.notes[-1].endswith("the commands are for x86_64.")
    junk_driver = recommend([(8, 6)], "garbage", "Linux", "x86_64", "garbage", "garbage")
    assert (junk_driver.ok, junk_driver.torch) == (True, junk_torch())


def junk_torch() -> str:
    return "2.15.0+cu132"


def test_a_windows_source_build_sets_its_variables_the_powershell_way() -> None:
    from gpudoctor.recommend import Target
    from gpudoctor.shell import Shell

    r = recommend([(3, 5)], "580.95.05", "Windows", "AMD64", "3.12.3")
    (build,) = [o for o in r.options if o.text.startswith("Or build torch")]
    commands = build.commands_for(Target(Shell.POWERSHELL, "C:\\Python312\\python.exe"))
    assert "$env:CUDA_HOME = 'C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v" in "\n".join(commands)
    assert not any(c.startswith("set ") for c in commands)
    assert commands[-1] == "C:\\Python312\\python.exe -m pip install --no-build-isolation -v ."
