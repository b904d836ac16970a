"""NVIDIA's driver tables: the driver packaged with each CUDA toolkit (Table 3) and the CUDA each branch reports."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

from gpudoctor.compat.base import C, Confidence, S, U

_TABLE3_SOURCE = "NVIDIA CUDA Toolkit Release Notes, Table 3 (13.2 U2, 13.1 and 13.4 U1 copies)"


@dataclass(frozen=True)
class ToolkitDriver:
    """One row of NVIDIA's Table 3: the driver packaged with a CUDA toolkit release."""

    version: str  # "12.6.3"
    label: str  # "CUDA 12.6 Update 3"
    linux: str  # minimum Linux x86_64 driver
    windows: Optional[str]  # minimum Windows driver; None where NVIDIA prints N/A
    confidence: Confidence = C


# (version, label, Linux, Windows); newest first, as NVIDIA prints it.
TOOLKIT_DRIVERS: Tuple[ToolkitDriver, ...] = tuple(
    ToolkitDriver(v, label, linux, win)
    for v, label, linux, win in (
        ("13.2.2", "CUDA 13.2 Update 2", "595.71.05", None),
        ("13.2.1", "CUDA 13.2 Update 1", "595.58.03", None),
        ("13.2.0", "CUDA 13.2 GA", "595.45.04", None),
        ("13.1.1", "CUDA 13.1 Update 1", "590.48.01", None),
        ("13.1.0", "CUDA 13.1 GA", "590.44.01", None),
        ("13.0.2", "CUDA 13.0 Update 2", "580.95.05", None),
        ("13.0.1", "CUDA 13.0 Update 1", "580.82.07", None),
        ("13.0.0", "CUDA 13.0 GA", "580.65.06", None),
        ("12.9.1", "CUDA 12.9 Update 1", "575.57.08", "576.57"),
        ("12.9.0", "CUDA 12.9 GA", "575.51.03", "576.02"),
        ("12.8.1", "CUDA 12.8 Update 1", "570.124.06", "572.61"),
        ("12.8.0", "CUDA 12.8 GA", "570.26", "570.65"),
        ("12.6.3", "CUDA 12.6 Update 3", "560.35.05", "561.17"),
        ("12.6.2", "CUDA 12.6 Update 2", "560.35.03", "560.94"),
        ("12.6.1", "CUDA 12.6 Update 1", "560.35.03", "560.94"),
        ("12.6.0", "CUDA 12.6 GA", "560.28.03", "560.76"),
        ("12.5.1", "CUDA 12.5 Update 1", "555.42.06", "555.85"),
        ("12.5.0", "CUDA 12.5 GA", "555.42.02", "555.85"),
        ("12.4.1", "CUDA 12.4 Update 1", "550.54.15", "551.78"),
        ("12.4.0", "CUDA 12.4 GA", "550.54.14", "551.61"),
        ("12.3.1", "CUDA 12.3 Update 1", "545.23.08", "546.12"),
        ("12.3.0", "CUDA 12.3 GA", "545.23.06", "545.84"),
        ("12.2.2", "CUDA 12.2 Update 2", "535.104.05", "537.13"),
        ("12.2.1", "CUDA 12.2 Update 1", "535.86.09", "536.67"),
        ("12.2.0", "CUDA 12.2 GA", "535.54.03", "536.25"),
        ("12.1.1", "CUDA 12.1 Update 1", "530.30.02", "531.14"),
        ("12.1.0", "CUDA 12.1 GA", "530.30.02", "531.14"),
        ("12.0.1", "CUDA 12.0 Update 1", "525.85.12", "528.33"),
        ("12.0.0", "CUDA 12.0 GA", "525.60.13", "527.41"),
        ("11.8.0", "CUDA 11.8 GA", "520.61.05", "520.06"),
        ("11.7.1", "CUDA 11.7 Update 1", "515.48.07", "516.31"),
        ("11.7.0", "CUDA 11.7 GA", "515.43.04", "516.01"),
        ("11.6.2", "CUDA 11.6 Update 2", "510.47.03", "511.65"),
        ("11.6.1", "CUDA 11.6 Update 1", "510.47.03", "511.65"),
        ("11.6.0", "CUDA 11.6 GA", "510.39.01", "511.23"),
        ("11.5.2", "CUDA 11.5 Update 2", "495.29.05", "496.13"),
        ("11.5.1", "CUDA 11.5 Update 1", "495.29.05", "496.13"),
        ("11.5.0", "CUDA 11.5 GA", "495.29.05", "496.04"),
        ("11.4.4", "CUDA 11.4 Update 4", "470.82.01", "472.50"),
        ("11.4.3", "CUDA 11.4 Update 3", "470.82.01", "472.50"),
        ("11.4.2", "CUDA 11.4 Update 2", "470.57.02", "471.41"),
        ("11.4.1", "CUDA 11.4 Update 1", "470.57.02", "471.41"),
        ("11.4.0", "CUDA 11.4.0 GA", "470.42.01", "471.11"),
        ("11.3.1", "CUDA 11.3.1 Update 1", "465.19.01", "465.89"),
        ("11.3.0", "CUDA 11.3.0 GA", "465.19.01", "465.89"),
        ("11.2.2", "CUDA 11.2.2 Update 2", "460.32.03", "461.33"),
        ("11.2.1", "CUDA 11.2.1 Update 1", "460.32.03", "461.09"),
        ("11.2.0", "CUDA 11.2.0 GA", "460.27.03", "460.82"),
        ("11.1.1", "CUDA 11.1.1 Update 1", "455.32", "456.81"),
        ("11.1.0", "CUDA 11.1 GA", "455.23", "456.38"),
        ("11.0.3", "CUDA 11.0.3 Update 1", "450.51.06", "451.82"),
        ("11.0.2", "CUDA 11.0.2 GA", "450.51.05", "451.48"),
        ("11.0.1", "CUDA 11.0.1 RC", "450.36.06", "451.22"),
        ("10.2.89", "CUDA 10.2.89", "440.33", "441.22"),
        ("10.1.105", "CUDA 10.1 (10.1.105 GA and updates)", "418.39", "418.96"),
        ("10.0.130", "CUDA 10.0.130", "410.48", "411.31"),
        ("9.2.148", "CUDA 9.2 (9.2.148 Update 1)", "396.37", "398.26"),
        ("9.2.88", "CUDA 9.2 (9.2.88)", "396.26", "397.44"),
        ("9.1.85", "CUDA 9.1 (9.1.85)", "390.46", "391.29"),
        ("9.0.76", "CUDA 9.0 (9.0.76)", "384.81", "385.54"),
        ("8.0.61", "CUDA 8.0 (8.0.61 GA2)", "375.26", "376.51"),
        ("8.0.44", "CUDA 8.0 (8.0.44)", "367.48", "369.30"),
    )
)


@dataclass(frozen=True)
class DriverBranch:
    """A driver branch and the highest CUDA version nvidia-smi prints for it."""

    branch: int  # 565 for R565
    cuda: str  # "12.7"
    confidence: Confidence
    evidence: str


# Table §1.3: "observed" rows were seen in public nvidia-smi headers, "derived" ones follow from Table 3.
DRIVER_BRANCHES: Tuple[DriverBranch, ...] = tuple(
    DriverBranch(branch, cuda, conf, evidence)
    for branch, cuda, conf, evidence in (
        (367, "8.0", S, "derived from Table 3 (CUDA 8.0 GA1)"),
        (375, "8.0", S, "derived from Table 3 (CUDA 8.0 GA2)"),
        (384, "9.0", S, "derived from Table 3"),
        (390, "9.1", S, "derived from Table 3"),
        (396, "9.2", S, "derived from Table 3"),
        (410, "10.0", S, "derived from Table 3"),
        (418, "10.1", S, "derived from Table 3"),
        (440, "10.2", S, "derived from Table 3"),
        (450, "11.0", S, "derived from Table 3"),
        (455, "11.1", S, "derived from Table 3"),
        (460, "11.2", S, "derived from Table 3"),
        (465, "11.3", S, "derived from Table 3"),
        (470, "11.4", C, "observed: 470.82.01 -> 11.4"),
        (495, "11.5", S, "derived from Table 3"),
        (510, "11.6", S, "derived from Table 3"),
        (515, "11.7", S, "derived from Table 3"),
        (520, "11.8", S, "derived from Table 3"),
        (525, "12.0", C, "observed: 525.60.13, 525.85.12 -> 12.0"),
        (530, "12.1", S, "derived from Table 3"),
        (535, "12.2", C, "observed: 535.54.03, 535.129.03 -> 12.2"),
        (540, "12.6", U, "Jetson (JetPack 6) driver branch; not in NVIDIA's tables"),
        (545, "12.3", S, "derived from Table 3"),
        (550, "12.4", S, "derived from Table 3"),
        (555, "12.5", S, "derived from Table 3"),
        (560, "12.6", S, "derived from Table 3"),
        (565, "12.7", C, "observed: 565.57.01 -> 12.7 (no CUDA 12.7 toolkit exists)"),
        (570, "12.8", S, "derived from Table 3"),
        (575, "12.9", C, "observed: 575.57.08 -> 12.9"),
        (580, "13.0", C, "observed: 580.95.05 -> 13.0"),
        (590, "13.1", C, "observed: 590.44.01 -> 13.1"),
        (595, "13.2", C, "observed: 595.58.03 -> 13.2"),
        (610, "13.3", U, "CUDA 13.4 release-notes branch table; no nvidia-smi sample"),
        (615, "13.4", U, "CUDA 13.4 release-notes branch table; no nvidia-smi sample"),
    )
)
