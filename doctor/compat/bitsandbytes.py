"""What each bitsandbytes release ships: CUDA libraries per CUDA version, the GPUs they cover, and its platforms."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from gpudoctor.compat.base import CC, C, Confidence, Version, version_tuple

_WORKFLOW = "bitsandbytes .github/workflows/python-package.yml at "
_DOCS = "bitsandbytes docs/source/installation.mdx at "


@dataclass(frozen=True)
class BnbRow:
    """A fact that holds for bitsandbytes releases in [since, until)."""

    since: Version
    until: Optional[Version]  # exclusive; None: still current
    confidence: Confidence
    source: str

    def holds(self, version: Version) -> bool:
        return self.since <= version and (self.until is None or version < self.until)


@dataclass(frozen=True)
class CudaBuilds(BnbRow):
    """The CUDA versions (major, minor) a release has a libbitsandbytes_cudaXY library for (x86-64 wheels)."""

    cudas: Tuple[Tuple[int, int], ...] = ()
    same_major_fallback: bool = False  # 0.50+: a missing minor loads the nearest library of the same major


@dataclass(frozen=True)
class GpuFloor(BnbRow):
    """The oldest GPU the PyPI libraries have kernels for; ``cuda_from`` limits it to libraries of that CUDA on."""

    floor: CC = (0, 0)
    cuda_from: Optional[Tuple[int, int]] = None
    aarch64: bool = False  # True: the Linux aarch64 wheels only


_V11 = ((11, 7), (11, 8), (12, 0), (12, 1), (12, 2), (12, 3))
_V18 = ((11, 8), (12, 0), (12, 1), (12, 2), (12, 3), (12, 4), (12, 5), (12, 6))

# The build matrix of the release workflow at each tag (Linux x86-64 and Windows x86-64); before 0.50.0 the loader
# opens only the library of torch.version.cuda's exact major.minor (bitsandbytes/cextension.py).
CUDA_BUILDS: Tuple[CudaBuilds, ...] = (
    CudaBuilds((0, 43, 0), (0, 43, 1), C, _WORKFLOW + "0.43.0", _V11),
    CudaBuilds((0, 43, 1), (0, 43, 2), C, _WORKFLOW + "0.43.1", _V11 + ((12, 4),)),
    CudaBuilds((0, 43, 2), (0, 45, 0), C, _WORKFLOW + "0.43.2 to 0.44.1", _V11 + ((12, 4), (12, 5))),
    CudaBuilds((0, 45, 0), (0, 45, 3), C, _WORKFLOW + "0.45.0 to 0.45.2", ((11, 7),) + _V18),
    CudaBuilds((0, 45, 3), (0, 46, 0), C, _WORKFLOW + "0.45.3 to 0.45.5", ((11, 7),) + _V18 + ((12, 8),)),
    CudaBuilds((0, 46, 0), (0, 46, 1), C, _WORKFLOW + "0.46.0", _V18 + ((12, 8),)),
    CudaBuilds((0, 46, 1), (0, 48, 0), C, _WORKFLOW + "0.46.1 to 0.47.0", _V18 + ((12, 8), (12, 9))),
    CudaBuilds((0, 48, 0), (0, 50, 0), C, _WORKFLOW + "0.48.0 to 0.49.2", _V18 + ((12, 8), (12, 9), (13, 0))),
    CudaBuilds((0, 50, 0), None, C, _WORKFLOW + "0.50.0 and 0.50.1; cextension.py at 0.50.0 (same-major fallback)",
               ((11, 8), (12, 1), (12, 4), (12, 6), (12, 8), (13, 0), (13, 2)), same_major_fallback=True),
)

GPU_FLOORS: Tuple[GpuFloor, ...] = (
    GpuFloor((0, 39, 1), (0, 45, 0), C, _DOCS + "0.43.0 ('>= 0.39.1 no longer includes Kepler binaries in pip "
             "installations')", (5, 0)),
    GpuFloor((0, 45, 0), (0, 48, 0), C, _DOCS + "0.45.0 to 0.47.0 (no Kepler; 'Compute Capability 5.0+')", (5, 0)),
    GpuFloor((0, 48, 0), None, C, _DOCS + "0.48.0 to 0.50.0 ('Compute Capability 6.0+'; Maxwell 'not included in "
             "PyPI distributions from v0.48.0')", (6, 0)),
    GpuFloor((0, 46, 0), (0, 48, 0), C, _DOCS + "0.46.0 and 0.47.0 (CUDA 12.8 builds: sm75 and newer)", (7, 5),
             cuda_from=(12, 8)),
    GpuFloor((0, 48, 0), None, C, _DOCS + "0.48.0 to 0.50.0 (CUDA 12.8/12.9 builds: sm70 and newer)", (7, 0),
             cuda_from=(12, 8)),
    GpuFloor((0, 48, 0), None, C, _DOCS + "0.48.0 to 0.50.0 (CUDA 13 builds: sm75 and newer)", (7, 5),
             cuda_from=(13, 0)),
    GpuFloor((0, 46, 0), None, C, _DOCS + "0.46.0 to 0.50.0 (Linux aarch64 builds: sm75 and newer)", (7, 5),
             aarch64=True),
)

# Per feature: LLM.int8() (load_in_8bit) needs Turing; 8-bit optimizers and NF4/FP4 run from the release floor.
INT8_FLOOR: CC = (7, 5)
INT8_SOURCE = _DOCS + "0.43.0 ('Turing ... or Ampere') and 0.46.0 to 0.50.0 ('LLM.int8() 7.5+')"

WINDOWS_SINCE: Version = (0, 43, 0)  # the first release with Windows CUDA libraries (its release notes)
ROCM_SINCE: Version = (0, 49, 0)  # the release workflow builds ROCm libraries into the wheels from 0.49.0
ROCM_CONFIDENCE = C
ROCM_SOURCE = (_WORKFLOW + "0.47.0 and 0.48.0 (the ROCm job 'Temporarily disabled') and 0.49.0 (enabled, "
               "ROCm 6.2.4 to 7.1)")


def release(version: Optional[str]) -> Optional[Version]:
    """(major, minor, patch) of a bitsandbytes version ("0.45.0.dev0" -> (0, 45, 0)); None for junk."""
    parts = version_tuple(version)
    if parts is None:
        return None
    return tuple(parts[:3]) + (0,) * (3 - len(parts[:3]))


def cuda_builds(version: Optional[str]) -> Optional[CudaBuilds]:
    found = release(version)
    return next((row for row in CUDA_BUILDS if found is not None and row.holds(found)), None)


def library_for(builds: CudaBuilds, cuda: Tuple[int, int]) -> Optional[Tuple[int, int]]:
    """The CUDA library the loader picks for torch's CUDA, or None when it finds none."""
    if cuda in builds.cudas:
        return cuda
    if not builds.same_major_fallback:
        return None
    same = [c for c in builds.cudas if c[0] == cuda[0]]
    lower = [c for c in same if c < cuda]
    return max(lower) if lower else (min(same) if same else None)


def gpu_floors(version: Optional[str], library: Optional[Tuple[int, int]], aarch64: bool) -> Tuple[GpuFloor, ...]:
    """The GPU floors that apply to this release, CUDA library and machine: the release's own first."""
    found = release(version)
    if found is None:
        return ()
    rows = [row for row in GPU_FLOORS if row.holds(found) and (not row.aarch64 or aarch64)
            and (row.cuda_from is None or (library is not None and library >= row.cuda_from))]
    own = [row for row in rows if row.cuda_from is None]
    by_cuda = [row for row in rows if row.cuda_from is not None]
    if by_cuda:  # the row of the library's own CUDA range is the newest one it reaches
        own.append(max(by_cuda, key=lambda row: (row.cuda_from or (0, 0), row.floor)))
    return tuple(sorted(own, key=lambda row: (row.cuda_from is not None or row.aarch64, row.floor)))


def cuda_limit(version: Optional[str], cc: CC) -> Optional[Tuple[int, int]]:
    """The oldest CUDA library of a release that lacks kernels for ``cc``: torch's CUDA must stay below it."""
    found = release(version)
    limits = [row.cuda_from for row in GPU_FLOORS if found is not None and row.holds(found)
              and row.cuda_from is not None and not row.aarch64 and row.floor > cc]
    return min(limits) if limits else None
