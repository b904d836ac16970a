"""The compatibility tables and lookups: exact answers for real inputs, None or ValueError for junk."""

from __future__ import annotations

import subprocess
import sys

import pytest
from gpudoctor.compat import (
    RELEASES,
    ArchSupport,
    Confidence,
    arch_support,
    bundled_cudnn,
    bundled_cudnn_info,
    cuda_variant,
    cudnn_version_text,
    default_variant,
    driver_can_run,
    driver_cuda_version,
    driver_requirement,
    format_cc,
    gpu_cc_from_name,
    gpu_cc_info,
    gpu_info,
    index_url,
    matching_torchaudio,
    matching_torchvision,
    pairing,
    parse_cc,
    published_variants,
    release_for_torch,
    split_local_version,
    torch_for_torchvision,
    variant_cuda,
    wheel_arch_list,
)
from gpudoctor.compat.arch import source_build_toolkits
from gpudoctor.compat.drivers import TOOLKIT_DRIVERS

C, S, U = Confidence.CONFIRMED, Confidence.SECONDARY, Confidence.UNCONFIRMED


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("8.6", (8, 6)), ("12.0", (12, 0)), ("sm_86", (8, 6)), ("compute_86", (8, 6)), ("86", (8, 6)),
        ("120", (12, 0)), ("sm_90a", (9, 0)), ("sm_120f", (12, 0)), ("compute_120", (12, 0)), ("sm_37", (3, 7)),
        ((8, 6), (8, 6)), ([12, 1], (12, 1)), (" SM_75 ", (7, 5)), ("8.6+PTX", (8, 6)), (8.6, (8, 6)),
        ("", None), ("abc", None), ("9", None), ("8.66", None), ("sm_", None), ("sm_05", None), ("1000", None),
        ("0.5", None), (None, None), (True, None), ((8,), None), (("8", "6"), None), ((8, 10), None),
        ((True, 1), None), ("gfx90a", None), (object(), None),
    ],
)
def test_parse_cc(value: object, expected: object) -> None:
    assert parse_cc(value) == expected


def test_format_cc() -> None:
    assert [format_cc(v) for v in ((8, 6), "sm_120", "compute_90a", "3.7")] == ["8.6", "12.0", "9.0", "3.7"]
    for junk in ("", "x", None, (1,)):
        with pytest.raises(ValueError, match="not a compute capability"):
            format_cc(junk)


@pytest.mark.parametrize(
    ("driver", "cuda"),
    [
        ("550.54.14", "12.4"), ("565.57.01", "12.7"), ("570.86.15", "12.8"), ("575.57.08", "12.9"),
        ("580.95.05", "13.0"), ("590.44.01", "13.1"), ("595.58.03", "13.2"), ("610.1", "13.3"), ("615.20", "13.4"),
        ("700.1", "13.4"), ("470.82.01", "11.4"), ("525.60.13", "12.0"), ("535.104.05", "12.2"), ("535", "12.2"),
        ("418.39", "10.1"), ("410.48", "10.0"), ("R565", "12.7"), ("540.4.0", "12.6"), ("541.1", "12.2"),
        # Windows numbers
        ("551.61", "12.4"), ("576.02", "12.9"), ("527.41", "12.0"), ("528.33", "12.0"), ("452.39", "11.0"),
        ("472.50", "11.4"), ("516.01", "11.7"), ("520.06", "11.8"), ("537.13", "12.2"), ("561.17", "12.6"),
        ("566.36", "12.7"), ("572.61", "12.8"), ("581.57", "13.0"),
        # Table 3 now reaches back to CUDA 8.0, so R367-R396 drivers are known; older ones still are not
        ("390.116", "9.1"), ("384.130", "9.0"), ("396.54", "9.2"), ("375.66", "8.0"), ("367.48", "8.0"),
        ("352.99", None), ("abc", None), ("", None), (None, None), ("v", None),
    ],
)
def test_driver_cuda_version(driver: object, cuda: object) -> None:
    assert driver_cuda_version(driver) == cuda  # type: ignore[arg-type]


def test_every_table3_toolkit_driver_reports_its_own_cuda() -> None:
    for row in TOOLKIT_DRIVERS:
        minor = ".".join(row.version.split(".")[:2])
        assert driver_cuda_version(row.linux) == minor, row
        if row.windows:
            assert driver_cuda_version(row.windows) == minor, row


@pytest.mark.parametrize(
    ("cuda", "system", "minimum", "branch", "toolkit", "confidence"),
    [
        ("12.6", "Linux", "525.60.13", 525, "560.28.03", C),
        ("12.6.3", "Linux", "525.60.13", 525, "560.35.05", C),
        ("cu126", "linux", "525.60.13", 525, "560.28.03", C),
        ("12.6", "Windows", "527.41", 525, "560.76", U),
        ("11.8", "Linux", "450.80.02", 450, "520.61.05", C),
        ("11.8", "Windows", "452.39", 450, "520.06", C),
        ("11.0", "Linux", "450.51.05", 450, "450.51.05", C),
        ("13.0", "Linux", "580.65.06", 580, "580.65.06", C),
        ("13.2", "Linux", "580.65.06", 580, "595.45.04", C),
        ("13.2", "Windows", None, 580, None, U),
        ("13.4", "Linux", "580.65.06", 580, None, C),
        ("10.2", "Linux", "440.33", 440, "440.33", C),
        ("10.2", "Windows", "441.22", 441, "441.22", C),
        ("12.8", None, "525.60.13", 525, "570.26", C),
        ("14.0", "Linux", None, 0, None, U),
    ],
)
def test_driver_requirement(cuda: str, system: object, minimum: object, branch: int, toolkit: object,
                            confidence: Confidence) -> None:
    req = driver_requirement(cuda, system)  # type: ignore[arg-type]
    assert req is not None
    assert (req.minimum, req.minimum_branch, req.toolkit_minimum, req.confidence) == (minimum, branch, toolkit,
                                                                                      confidence)


def test_driver_requirement_notes() -> None:
    linux = driver_requirement("12.6", "Linux")
    windows = driver_requirement("12.6", "Windows")
    windows13 = driver_requirement("13.2", "Windows")
    assert linux is not None and windows is not None and windows13 is not None
    assert linux.note == (
        "CUDA 12.x builds run on drivers >= 525.60.13 through minor-version compatibility; a build that must "
        "JIT-compile PTX needs a driver at least as new as the toolkit that made it (CUDA 12.6: >= 560.28.03)")
    assert windows.note == (
        "CUDA 12.x builds run on drivers >= 527.41 through minor-version compatibility (NVIDIA's tables print "
        "527.41 or 528.33: UNCONFIRMED which); a build that must JIT-compile PTX needs a driver at least as new "
        "as the toolkit that made it (CUDA 12.6: >= 560.76)")
    assert windows13.note == (
        "CUDA 13.x builds need an R580 or newer driver (exact Windows minimum not published); a build that must "
        "JIT-compile PTX needs a driver at least as new as the toolkit that made it (CUDA 13.2: an R595 driver)")
    assert (windows.certain_for("527.50"), windows.certain_for("528.33"), linux.certain_for(None)) == (
        False, True, True)


# CUDA 8.0-9.2 are in the tables now (see test_driver_requirement_before_10); 7.5 and older are not
@pytest.mark.parametrize("junk", ["", "x", None, "7.5", "6.5", "cu", "cpu"])
def test_driver_requirement_junk(junk: object) -> None:
    assert driver_requirement(junk, "Linux") is None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("driver", "cuda", "system", "expected"),
    [
        ("535.104.05", "12.6", "Linux", True), ("525.60.13", "12.8", "Linux", True),
        ("525.60.11", "12.0", "Linux", False), ("470.82.01", "12.1", "Linux", False),
        ("470.82.01", "11.8", "Linux", True), ("450.80.02", "11.8", "Linux", True),
        ("450.51.05", "11.1", "Linux", False), ("570.86.15", "13.0", "Linux", False),
        ("580.65.06", "13.2", "Linux", True), ("580.65.05", "13.0", "Linux", False),
        ("590.44.01", "12.6", "Linux", True), ("418.39", "10.2", "Linux", False), ("440.33", "10.2", "Linux", True),
        ("551.61", "12.4", "Windows", True), ("527.41", "12.6", "Windows", True),
        ("526.98", "12.0", "Windows", False), ("581.57", "13.2", "Windows", True),
        ("576.02", "13.0", "Windows", False),
        (None, "12.6", "Linux", None), ("junk", "12.6", "Linux", None), ("550.54.14", "x", "Linux", None),
        ("550.54.14", "14.0", "Linux", None),
    ],
)
def test_driver_can_run(driver: object, cuda: str, system: str, expected: object) -> None:
    assert driver_can_run(driver, cuda, system) is expected  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("version", "expected"),
    [
        ("2.6.0+cu126", ("2.6.0", "cu126")), ("2.6.0", ("2.6.0", None)), (" 2.13.0+cpu ", ("2.13.0", "cpu")),
        ("2.6.0a0+git1234", ("2.6.0a0", "git1234")), ("2.6.0+", ("2.6.0", None)), ("", ("", None)),
    ],
)
def test_split_local_version(version: str, expected: object) -> None:
    assert split_local_version(version) == expected


def test_variant_helpers() -> None:
    assert [variant_cuda(v) for v in ("cu126", "cu92", "CU130", "+cu118", "cpu", "rocm6.2", "x", None)] == [
        "12.6", "9.2", "13.0", "11.8", None, None, None, None]
    assert [cuda_variant(v) for v in ("12.6", "12.6.3", "13.0", "8.0", "x", None)] == [
        "cu126", "cu126", "cu130", None, None, None]
    assert index_url("cu126") == "https://download.pytorch.org/whl/cu126"
    assert index_url("cpu") == "https://download.pytorch.org/whl/cpu"
    assert index_url("rocm6.2.4") == "https://download.pytorch.org/whl/rocm6.2.4"
    for junk in ("", "cuda", "12.6", "rocm"):
        with pytest.raises(ValueError, match="not a PyTorch wheel variant"):
            index_url(junk)


ARCH_CASES = [
    (("2.14.1", "cu126", "Linux", "x86_64"), ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"), C),
    (("2.14.1", "cu130", "Linux", "x86_64"), ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"), C),
    (("2.14.1", None, "Linux", "x86_64"), ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"), C),
    (("2.13.0", "cu130", "Linux", "x86_64"),
     ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120", "compute_120"), C),
    (("2.13.0+cu130", None, "Linux", "x86_64"),
     ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120", "compute_120"), C),
    (("2.13.1", "cu130", "Linux", "x86_64"), ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"), C),
    (("2.1.2", "cu118", "Linux", "x86_64"),
     ("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_37", "sm_90"), C),
    (("2.7.1", "cu128", "Linux", "x86_64"),
     ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120", "compute_120"), S),
    (("2.8.0", "cu128", "Linux", "x86_64"), ("sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"), C),
    (("1.12.1", "cu102", "Linux", "x86_64"), ("sm_37", "sm_50", "sm_60", "sm_70"), C),
    (("2.4.1", "cu118", "Windows", "AMD64"),
     ("sm_37", "sm_50", "sm_60", "sm_61", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "compute_37"), C),
    (("2.7.1", "cu128", "Windows", "AMD64"), ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"), U),
    (("2.14.1", "cu132", "Windows", "x86_64"), ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"), S),
    (("2.14.1", "cu130", "Linux", "aarch64"), ("sm_80", "sm_90", "sm_100", "sm_110", "sm_120"), C),
    (("2.8.0", "cu129", "Linux", "arm64"), ("sm_90", "sm_100", "sm_120"), U),  # 2.8's only aarch64 CUDA build
    (("2.14.1", None, "Windows", "AMD64"), (), C),
    (("2.14.1", None, "Linux", "aarch64"), ("sm_80", "sm_90", "sm_100", "sm_110", "sm_120"), C),
    (("2.10.0", None, "Linux", "aarch64"), (), C),
    (("2.13.0", "cu129", "Linux", "x86_64"), ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"), C),
    (("2.15.0", None, "Linux", "x86_64"), ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"), C),
    (("2.12.1", "cu129", "Linux", "x86_64"), ("sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"), U),
    (("2.6.0", "rocm6.2.4", "Linux", "x86_64"),
     ("gfx900", "gfx906", "gfx908", "gfx90a", "gfx942", "gfx1030", "gfx1100", "gfx1101", "gfx1102", "gfx1200",
      "gfx1201"), S),
]


@pytest.mark.parametrize(("args", "tokens", "confidence"), ARCH_CASES)
def test_wheel_arch_list(args: tuple, tokens: tuple, confidence: Confidence) -> None:  # type: ignore[type-arg]
    found = wheel_arch_list(*args)
    assert found is not None
    assert (found.tokens, found.confidence) == (tokens, confidence)


@pytest.mark.parametrize(
    "args",
    [("3.0.0", "cu126", "Linux", "x86_64"), ("2.14.1", "cu121", "Linux", "x86_64"), ("x", None, "Linux", "x86_64"),
     ("2.14.1", "cu126", "Linux", "ppc64le"), ("2.14.1", "cu126", "Darwin", "arm64"), ("2.6.0", "rocm7.2", "Linux",
     "x86_64"), ("2.14.1", "junk", "Linux", "x86_64"), ("2.8.0", "cu126", "Linux", "aarch64"),
     ("2.12.0", "cu129", "Linux", "x86_64"), ("2.13.0", "cu129", "Windows", "AMD64"), ("2.15.0", "cu126", "Linux",
     "x86_64")],
)
def test_wheel_arch_list_unknown(args: tuple) -> None:  # type: ignore[type-arg]
    assert wheel_arch_list(*args) is None


def test_wheel_arch_list_sources_and_notes() -> None:
    found = wheel_arch_list("2.10.0", "cu130", "Linux", "x86_64")
    assert found is not None
    assert (found.source, found.note, found.cuda) == (
        "RELEASE.md (12.0+PTX on Linux)", "release wheels' compute_120 PTX UNCONFIRMED", "13.0")


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("2.14.1", "Linux", "x86_64"), "cu130"), (("2.7.1", "Linux", "x86_64"), "cu126"),
        (("2.6.0", "Linux", "x86_64"), "cu124"), (("1.12.1", "Linux", "x86_64"), "cu102"),
        (("2.0.1", "Linux", "x86_64"), "cu117"), (("2.14.1", "Linux", "aarch64"), "cu130"),
        (("2.10.0", "Linux", "aarch64"), "cpu"), (("2.11.0", "Linux", "x86_64"), "cu130"),
        (("2.15.0", "Linux", "x86_64"), "cu132"), (("2.15.0", "Linux", "aarch64"), "cu132"),
        (("2.14.1", "Windows", "AMD64"), "cpu"), (("2.14.1", "Darwin", "arm64"), "cpu"),
        (("3.0.0", "Linux", "x86_64"), None), (("2.14.1", None, "x86_64"), None), (("2.14.1", "Linux", "s390x"), None),
    ],
)
def test_default_variant(args: tuple, expected: object) -> None:  # type: ignore[type-arg]
    assert default_variant(*args) == expected


def test_published_variants() -> None:
    assert published_variants("2.14.1", "Linux", "x86_64") == ("cu126", "cu130", "cu132")
    assert published_variants("2.15.0", "Linux", "x86_64") == ("cu130", "cu132")
    assert published_variants("2.12.1", "Linux", "aarch64") == ("cu126", "cu129", "cu130", "cu132")
    assert published_variants("2.13.0", "Windows", "AMD64") == ("cu126", "cu130", "cu132")
    assert published_variants("2.8.0", "Linux", "aarch64") == ("cu129",)
    assert published_variants("2.7.1", "Linux", "aarch64") == ("cu128",)
    assert published_variants("2.7.1", "Windows", "AMD64") == ("cu118", "cu126", "cu128")
    assert published_variants("2.14.1", "Darwin", "arm64") == ()
    assert published_variants("9.9", "Linux", "x86_64") == ()


def _support(flags: object, cc: object, driver: object = None, build: object = None) -> tuple:  # type: ignore[type-arg]
    s = arch_support(flags, cc, driver, build)  # type: ignore[arg-type]
    return (s.supported, s.by, s.via_ptx, s.reason)


CU126 = "sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90"
CU130 = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
ARM13 = ["sm_80", "sm_90", "sm_100", "sm_110", "sm_120"]


@pytest.mark.parametrize(
    ("flags", "cc", "driver", "build", "expected"),
    [
        (CU126, (8, 9), None, None, (True, "sm_86", False, None)),
        (CU126, (6, 1), None, None, (True, "sm_60", False, None)),
        (CU126, (12, 0), None, None, (False, None, False, "too_new")),
        (CU126, (3, 5), None, None, (False, None, False, "too_old")),
        (CU130, (6, 1), None, None, (False, None, False, "too_old")),
        (CU130, (12, 1), None, None, (True, "sm_120", False, None)),
        (CU130, (10, 3), None, None, (True, "sm_100", False, None)),
        (CU130, (10, 1), None, None, (False, None, False, "tegra")),
        (CU130, "sm_90", None, None, (True, "sm_90", False, None)),
        (CU126 + " compute_90", (12, 0), "13.0", "12.6", (True, "compute_90", True, None)),
        (["sm_37", "compute_37"], (3, 5), None, None, (False, None, False, "too_old")),
        (["sm_50", "compute_37"], (3, 7), None, None, (True, "compute_37", True, None)),
        (["sm_50", "sm_53"], (5, 3), None, None, (True, "sm_53", False, None)),
        (["sm_50", "sm_52"], (5, 3), None, None, (False, None, False, "tegra")),
        (["sm_80", "sm_90"], (8, 7), None, "12.6", (False, None, False, "tegra")),
        (ARM13, (8, 7), None, "13.0", (False, None, False, "tegra")),
        (ARM13, (8, 7), None, "13.2", (True, "sm_80", False, None)),
        (["sm_70"], (7, 2), None, "13.2", (True, "sm_70", False, None)),
        (["sm_75"], (7, 2), None, "13.2", (False, None, False, "too_old")),
        (["sm_60"], (6, 2), None, "13.2", (False, None, False, "tegra")),
        (ARM13, (11, 0), None, None, (True, "sm_110", False, None)),
        (["sm_101"], (11, 0), None, None, (True, "sm_101", False, None)),
        (["sm_110"], (10, 1), None, None, (True, "sm_110", False, None)),
        (["sm_90a"], (9, 0), None, None, (True, "sm_90a", False, None)),
        (["sm_90a", "sm_90"], (9, 0), None, None, (True, "sm_90", False, None)),
        (["sm_80a"], (8, 6), None, None, (False, None, False, "too_new")),
        (["sm_120f"], (12, 1), None, None, (True, "sm_120f", False, None)),
        (["compute_90a"], (10, 0), None, None, (False, None, False, "too_new")),
        (["gfx90a", "sm_86"], (8, 6), None, None, (True, "sm_86", False, None)),
        (CU130, (10, 7), None, None, (True, "sm_100", False, None)),
    ],
)
def test_arch_support(flags: object, cc: object, driver: object, build: object,
                      expected: tuple) -> None:  # type: ignore[type-arg]
    assert _support(flags, cc, driver, build) == expected


def test_arch_support_details() -> None:
    assert arch_support(CU126, (12, 0)) == ArchSupport(False, None, False, "too_new", (5, 0), (9, 0))
    ptx = arch_support(CU126.split() + ["compute_90"], (12, 0), "12.4", "12.6")
    assert ptx.note == (
        "no cubin for 12.0: the driver JIT-compiles the compute_90 PTX at first use (slow start; torch 2.11+ still "
        "warns because its check treats PTX like a cubin); the driver supports CUDA 12.4, older than the CUDA 12.6 "
        "that made the PTX, so JIT compilation fails (cudaErrorUnsupportedPtxVersion)")
    assert arch_support(["compute_120"], (13, 0)).note == (
        "no cubin for 13.0: the driver JIT-compiles the compute_120 PTX at first use (slow start; torch 2.11+ still "
        "warns because its check treats PTX like a cubin); needs a driver that supports CUDA >= 12.8 (driver unknown)")
    assert arch_support(["compute_120"], (13, 0), "13.0", "12.8").note.endswith("treats PTX like a cubin)")
    tegra = arch_support(["sm_80"], (8, 7))
    assert tegra.note == ("8.7 is a Tegra/integrated GPU: it runs only kernels built for it (or CUDA 13.2+ builds of "
                          "the matching dGPU kernels)")
    assert arch_support(["sm_50"], (5, 3)).note == "5.3 is a Tegra/integrated GPU: it runs only kernels built for it"


@pytest.mark.parametrize("flags", [[], "", None, ["gfx90a"], ["junk", "sm_"]])
def test_arch_support_undecidable(flags: object) -> None:
    result = arch_support(flags, (8, 6))  # type: ignore[arg-type]
    note = "the build lists no CUDA architectures (a CPU build, or CUDA unavailable at probe time)"
    assert result == ArchSupport(False, None, False, None, None, None, note)
    assert result.decided is False


def test_arch_support_junk_cc() -> None:
    with pytest.raises(ValueError, match="not a compute capability: 'x'"):
        arch_support(CU126, "x")


def test_source_build_toolkits() -> None:
    assert source_build_toolkits([(3, 0)]) == ("10.0", "10.2")
    assert source_build_toolkits([(3, 5)]) == ("10.0", "11.8")
    assert source_build_toolkits([(6, 1), (12, 0)]) == ("12.8", "12.9")
    assert source_build_toolkits([(8, 9)]) == ("11.8", None)
    assert source_build_toolkits([(11, 0)]) == ("13.0", None)
    assert source_build_toolkits([(3, 5), (12, 0)]) is None


GPU_NAMES = [
    ("NVIDIA GeForce RTX 4080", (8, 9), C), ("GeForce GTX 1080 Ti", (6, 1), C), ("Tesla V100-SXM2-16GB", (7, 0), C),
    ("NVIDIA H100 80GB HBM3", (9, 0), C), ("NVIDIA A100-SXM4-40GB", (8, 0), C), ("NVIDIA GeForce RTX 5090", (12, 0), C),
    ("GeForce GT 645M", (3, 0), S), ("NVIDIA RTX A6000", (8, 6), C), ("Quadro RTX 8000", (7, 5), C),
    ("NVIDIA L4", (8, 9), C), ("Tesla T4", (7, 5), C), ("NVIDIA GB10", (12, 1), C),
    ("NVIDIA GeForce RTX 3060 Ti", (8, 6), C), ("NVIDIA GeForce RTX 3060 Laptop GPU", (8, 6), C),
    ("NVIDIA A10", (8, 6), C), ("NVIDIA A10G", (8, 6), U), ("NVIDIA L40S", (8, 9), C),
    ("NVIDIA TITAN X (Pascal)", (6, 1), C), ("GeForce GTX TITAN X", (5, 2), C), ("GeForce GTX TITAN", (3, 5), S),
    ("NVIDIA RTX 6000 Ada Generation", (8, 9), C), ("Quadro RTX 6000", (7, 5), C),
    ("NVIDIA RTX PRO 6000 Blackwell Workstation Edition", (12, 0), C), ("Orin", (8, 7), C),
    ("NVIDIA Jetson AGX Orin", (8, 7), C), ("Xavier", (7, 2), C), ("Quadro M2000M", (5, 0), C),
    ("Quadro M2000", (5, 2), C), ("GeForce GTX 960M", (5, 0), C), ("GeForce GTX 960", (5, 2), C),
    ("GeForce GTX 780M", (3, 0), U), ("GeForce GTX 780", (3, 5), S), ("GeForce GTX 1060 with Max-Q Design", (6, 1), C),
    ("Tesla V100S-PCIE-32GB", (7, 0), C), ("NVIDIA GH200 480GB", (9, 0), C), ("NVIDIA B200", (10, 0), C),
    ("NVIDIA GB300", (10, 3), C), ("Tesla K80", (3, 7), S), ("Tesla P4", (6, 1), C), ("Tesla P40", (6, 1), C),
    ("NVIDIA GeForce RTX 2080 SUPER", (7, 5), C), ("NVIDIA GeForce GTX 1650 Ti", (7, 5), S),
    ("NVIDIA GeForce GTX 1650", (7, 5), U), ("Tesla K40c", (3, 5), S), ("Tesla M60", (5, 2), C),
    ("NVIDIA T1000 8GB", (7, 5), C), ("Jetson Nano", (5, 3), C), ("NVIDIA Thor", (11, 0), C),
]


@pytest.mark.parametrize(("name", "cc", "confidence"), GPU_NAMES)
def test_gpu_names(name: str, cc: object, confidence: Confidence) -> None:
    assert gpu_cc_info(name) == (cc, confidence)
    assert gpu_cc_from_name(name) == cc


@pytest.mark.parametrize(
    "name",
    ["GeForce GT 730", "NVIDIA TITAN X", "GeForce GTX 860M", "NVIDIA Graphics Device", "", None,
     "AMD Radeon RX 7900 XTX", "Apple M4", "Intel Arc A770", "GeForce GTX 480", "NVIDIA"],
)
def test_gpu_names_unknown_or_ambiguous(name: object) -> None:
    assert gpu_cc_from_name(name) is None  # type: ignore[arg-type]
    assert gpu_cc_info(name) is None  # type: ignore[arg-type]


def test_gpu_info_ambiguous_note() -> None:
    info = gpu_info("NVIDIA GeForce GT 730")
    assert info is not None
    assert (info.cc, info.note) == (None, "GT 730 was sold as Fermi (2.1), Kepler GK107 (3.0) and Kepler GK208 (3.5)")
    found = gpu_info("NVIDIA GeForce RTX 3060 Ti")
    assert found is not None and (found.name, found.architecture) == ("RTX 3060 Ti", "Ampere")


def test_release_for_torch() -> None:
    release = release_for_torch("2.6.0+cu126")
    assert release is not None
    assert (release.minor, release.torchvision, release.torchaudio, release.python, release.cuda_variants,
            release.pypi_default, release.rocm_variants, tuple(p.torch for p in release.patches)) == (
        "2.6", "0.21", "2.6", ((3, 9), (3, 13)), ("cu118", "cu124", "cu126"), "cu124", ("rocm6.1", "rocm6.2.4"),
        ("2.6.0",))
    assert release.python_text == "3.9-3.13"
    assert (release.supports_python("3.13.1"), release.supports_python("3.8"), release.supports_python("x")) == (
        True, False, None)
    assert release_for_torch("2.6") is release and release_for_torch("2.6.0a0+git1234") is release
    assert [release_for_torch(v) for v in ("2.16.0", "0.4.1", "junk", "", None)] == [None] * 5
    assert [r.minor for r in RELEASES][:3] == ["2.15", "2.14", "2.13"] and RELEASES[-1].minor == "1.9"


@pytest.mark.parametrize(
    ("torch", "vision", "audio"),
    [
        ("2.6.0", "0.21.0", "2.6.0"), ("2.6.0+cu126", "0.21.0", "2.6.0"), ("2.12.1", "0.27.1", "2.11.0"),
        ("2.14.1", "0.29.1", "2.11.0"), ("2.14.0", "0.29.0", "2.11.0"), ("2.13.0", "0.28.0", "2.11.0"),
        ("2.0.0", "0.15.1", "2.0.1"), ("2.0.1", "0.15.2", "2.0.2"), ("1.10.0", "0.11.1", "0.10.0"),
        ("1.13.1", "0.14.1", "0.13.1"), ("2.4.1", "0.19.1", "2.4.1"), ("2.7", "0.22.0", "2.7.0"),
        ("2.13.1", "0.28.1", "2.11.0"), ("2.5.2", "0.20.2", "2.5.2"),
    ],
)
def test_matching_companions(torch: str, vision: str, audio: str) -> None:
    assert (matching_torchvision(torch), matching_torchaudio(torch)) == (vision, audio)


def test_pairing_marks_what_is_inferred() -> None:
    exact, rule, guess = pairing("2.12.1"), pairing("2.14.1"), pairing("2.13.1")
    assert exact is not None and rule is not None and guess is not None
    assert (exact.confidence, exact.inferred) == (C, False)
    assert (rule.confidence, rule.inferred, rule.torchaudio_confidence, rule.also) == (C, False, U, ())
    assert (guess.confidence, guess.inferred) == (U, True)
    # From 2.15 the 0.(minor+15) rule no longer holds: an unknown 2.15 patch gets 2.15's torchvision, unconfirmed.
    later = pairing("2.15.1")
    assert later is not None and (later.torchvision, later.confidence, later.inferred) == ("0.29.2", U, True)


@pytest.mark.parametrize("junk", ["2.6.0a0+git1", "2.16.0", "1.8.3", "0.4.1", "1.9.5", "x", "", None])
def test_matching_torchvision_unknown(junk: object) -> None:
    assert matching_torchvision(junk) is None  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("vision", "torch"),
    [("0.21.0", "2.6.0"), ("0.21.0+cu126", "2.6.0"), ("0.15.1", "2.0.0"), ("0.15.2", "2.0.1"), ("0.11.0", "1.10.0"),
     ("0.11.1", "1.10.0"), ("0.11.3", "1.10.2"), ("0.29.1", "2.14.1"), ("0.29.2", "2.15.0"), ("0.28.1", "2.13.1"),
     ("0.27.1", "2.12.1"), ("0.30.0", None), ("1.0.0", None), ("0.9.0", "1.8.0"),
     ("0.8.1", "1.7.0"), ("0.2.2", "1.0.1"), ("0.2.0", None), ("x", None), (None, None)],
)
def test_torch_for_torchvision(vision: object, torch: object) -> None:
    assert torch_for_torchvision(vision) == torch  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("torch", "variant", "expected"),
    [
        ("2.6.0", "cu126", 90501), ("2.6.0+cu124", None, 90100), ("2.14.1", "cu130", 92400),
        ("2.14.1", "cu126", 91002), ("2.1.2", "cu121", 8902), ("1.12.1", "cu102", 7605), ("2.7.1", "cu128", 90701),
        ("2.13.0", "cu132", 92000), ("2.6.0", None, None), ("2.6.0", "cpu", None), ("2.6.0", "rocm6.2.4", None),
        ("9.0.0", "cu126", None), ("x", "cu126", None),
    ],
)
def test_bundled_cudnn(torch: str, variant: object, expected: object) -> None:
    assert bundled_cudnn(torch, variant) == expected  # type: ignore[arg-type]


def test_bundled_cudnn_info_and_text() -> None:
    assert bundled_cudnn_info("2.14.1", "cu130") == (
        92400, C, "pytorch/pytorch RELEASE.md compatibility matrix (verbatim third-party copy); the 2.14.1+cu130 "
        "wheel pins nvidia-cudnn-cu13==9.24.0.43")
    assert [cudnn_version_text(v) for v in (90501, 8902, 7605, 91002, 92400)] == [
        "9.5.1", "8.9.2", "7.6.5", "9.10.2", "9.24.0"]


@pytest.mark.parametrize(
    ("torch", "variant", "expected", "confidence"),
    [
        ("1.0.0", "cu100", 7401, S), ("1.0.1", "cu90", 7402, S), ("1.0.1", "cu80", 7102, S),
        ("1.1.0", "cu100", 7501, S), ("1.2.0", "cu92", 7602, S), ("1.3.1", "cu101", 7603, S),
        ("1.4.0+cu92", None, 7603, S), ("1.5.1", "cu102", 7605, S), ("1.6.0", "cu101", 7603, S),
        ("1.7.0", "cu110", 8003, U), ("1.7.1", "cu110", 8005, S), ("1.7.1", "cu102", 7605, S),
        ("1.8.0", "cu101", 7603, C), ("1.8.1+cu111", None, 8005, C), ("1.8.0", "cu102", 7605, C),
    ],
)
def test_bundled_cudnn_of_torch_1_0_to_1_8(torch: str, variant: object, expected: int, confidence: object) -> None:
    found = bundled_cudnn_info(torch, variant)  # type: ignore[arg-type]
    assert found is not None and found[:2] == (expected, confidence) and "pytorch" in found[2]


def test_cudnn_of_a_library_file_name() -> None:
    from gpudoctor.compat.cudnn import cudnn_from_library

    assert [cudnn_from_library(p) for p in (
        "/usr/lib/x86_64-linux-gnu/libcudnn.so.7.0.5", "/usr/local/cuda/lib64/libcudnn.so.8.9.2",
        "/usr/lib/libcudnn.so.9.10.2", "/usr/lib/libcudnn.so.8", "C:\\cuda\\bin\\cudnn64_7.dll", "libcudnn_adv.so.8.2.1")] == [
        7005, 8902, 91002, None, None, None]


def test_compat_imports_nothing_that_touches_the_machine() -> None:
    # packaging's own imports (subprocess among them, via packaging.utils) are its business, as for the checks.
    code = ("import sys, gpudoctor.compat; bad = [m for m in ('torch', 'pynvml', 'ctypes', 'gpudoctor.probes') "
            "if m in sys.modules]; print(bad)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "[]"
