"""The nvidia-smi probe against a fake nvidia-smi placed first on PATH."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

import pytest

from gpudoctor.facts import DriverFacts, Gpu, GpuProcess
from gpudoctor.probes.smi import SmiResult, probe_smi, value

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "probes" / "smi"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the fake nvidia-smi is a shell script")


def fake_smi(tmp_path: Path, header: str, header_status: int = 0, gpus: str = "gpus.csv", unknown: Sequence[str] = ()) -> str:
    """Write a fake nvidia-smi that answers from fixture files; return a PATH with it first."""
    rejects = "".join(
        f'    case ",${{1#*=}}," in *,{field},*) echo \'Field "{field}" is not a valid field to query.\'; exit 2;; esac\n'
        for field in unknown
    )
    script = (
        "#!/bin/sh\n"
        f'if [ $# -eq 0 ]; then cat "{FIXTURES / header}"; exit {header_status}; fi\n'
        'case "$1" in\n'
        "  --query-gpu=*)\n"
        f"{rejects}"
        f'    cat "{FIXTURES / gpus}" ;;\n'
        f'  --query-compute-apps=*) cat "{FIXTURES / "apps.csv"}" ;;\n'
        '  *) echo "unexpected arguments: $*"; exit 1 ;;\n'
        "esac\n"
    )
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    exe = bin_dir / "nvidia-smi"
    exe.write_text(script)
    exe.chmod(0o755)
    return f"{bin_dir}:/usr/bin:/bin"


def test_healthy_csv(tmp_path: Path) -> None:
    result = probe_smi({"PATH": fake_smi(tmp_path, "header.txt")})
    assert result == SmiResult(
        found=True,
        driver=DriverFacts(source="nvidia-smi", version="550.54.14", cuda_version="12.4", gpu_count=2),
        gpus=(
            Gpu(
                index=0, name="NVIDIA GeForce RTX 4090", uuid="GPU-11111111-2222-3333-4444-555555555555",
                pci_bus_id="00000000:01:00.0", compute_capability=(8, 9), memory_total_mib=24564,
                memory_used_mib=1031, compute_mode="default", persistence_mode=False, pcie_gen_current=1,
                pcie_gen_max=4, pcie_width_current=16, pcie_width_max=16, utilization_percent=3,
                temperature_c=41, throttle_reasons=("gpu_idle",),
                processes=(GpuProcess(4242, "/usr/bin/python3", 812),),
            ),
            Gpu(
                index=1, name="NVIDIA A100-SXM4-80GB", uuid="GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
                serial="1564720004631", pci_bus_id="00000000:41:00.0", compute_capability=(8, 0),
                memory_total_mib=81920, memory_used_mib=0, compute_mode="exclusive_process",
                persistence_mode=True, mig_mode=True, pcie_gen_current=4, pcie_gen_max=4, pcie_width_current=8,
                pcie_width_max=16, utilization_percent=97, temperature_c=88, ecc_mode=True,
                ecc_uncorrected_volatile=0, ecc_uncorrected_aggregate=2, retired_pages_pending=False,
                throttle_reasons=("sw_power_cap", "hw_thermal_slowdown"),
                processes=(GpuProcess(777, None, None),),
            ),
        ),
    )


def test_old_smi_without_compute_cap_and_not_supported_fields(tmp_path: Path) -> None:
    path = fake_smi(tmp_path, "header.txt", gpus="old-smi-gpus.csv", unknown=("compute_cap",))
    result = probe_smi({"PATH": path})
    assert result.errors == ()
    assert result.gpus == (
        Gpu(
            index=0, name="Quadro K4000", uuid="GPU-99999999-2222-3333-4444-555555555555",
            pci_bus_id="00000000:02:00.0", memory_total_mib=3019, memory_used_mib=0, compute_mode="default",
            persistence_mode=False, pcie_gen_current=1, pcie_gen_max=2, pcie_width_current=16, pcie_width_max=16,
            utilization_percent=0, temperature_c=30,
        ),
    )
    assert result.driver.version == "470.239.06"


def test_smi_that_cannot_talk_to_the_driver(tmp_path: Path) -> None:
    result = probe_smi({"PATH": fake_smi(tmp_path, "no-driver.txt", header_status=9)})
    text = (
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
        "Make sure that the latest NVIDIA driver is installed and running."
    )
    assert result == SmiResult(
        found=True, driver=DriverFacts(smi_error_text=text), errors=(("gpus", f"nvidia-smi failed: {text}"),)
    )


def test_no_smi_on_path(tmp_path: Path) -> None:
    assert probe_smi({"PATH": str(tmp_path)}) == SmiResult(
        found=False, driver=DriverFacts(), errors=(("gpus", "nvidia-smi not found on PATH"),)
    )


@pytest.mark.parametrize(
    ("cell", "expected"),
    [("[N/A]", None), ("[Not Supported]", None), ("N/A", None), ("", None), (" 8.9 ", "8.9"), ("[GPU requires reset]", None)],
)
def test_cell_values(cell: str, expected: object) -> None:
    assert value(cell) == expected


def test_board_limit_and_reliability_by_name() -> None:
    from gpudoctor.probes.smi import parse_gpu

    gpu = parse_gpu({"index": "0", "clocks_throttle_reasons.active": "0x0000000000000601"})
    assert gpu.throttle_reasons == ("gpu_idle", "board_limit", "reliability")
