"""The NVML probe against a fake ``pynvml`` module: a healthy two-GPU box, every init failure, unsupported fields."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, Callable, Dict, List, Optional

import pytest

from gpudoctor.facts import DriverFacts, Gpu, GpuProcess
from gpudoctor.probes import nvml as nvml_probe
from gpudoctor.probes.nvml import NvmlResult, probe_nvml, throttle_names

MIB = 1024 * 1024


class NVMLError(Exception):
    """Like pynvml.NVMLError: carries the NVML return code as ``value``."""

    MESSAGES = {
        3: "Not Supported",
        4: "Insufficient Permissions",
        6: "Not Found",
        9: "Driver Not Loaded",
        12: "NVML Shared Library Not Found",
        15: "GPU is lost",
        18: "RM has detected an NVML/RM version mismatch.",
        999: "Unknown Error",
    }

    def __init__(self, value: int) -> None:
        super().__init__(value)
        self.value = value

    def __str__(self) -> str:
        return self.MESSAGES.get(self.value, f"NVML error {self.value}")


def _error_class(name: str, value: int) -> type:
    return type(name, (NVMLError,), {"__init__": lambda self: NVMLError.__init__(self, value)})


NotSupported = _error_class("NVMLError_NotSupported", 3)
NotFound = _error_class("NVMLError_NotFound", 6)
GpuIsLost = _error_class("NVMLError_GpuIsLost", 15)


class FakeNvml:
    """A stand-in for the pynvml module; device functions answer from one dict per GPU."""

    def __init__(self, gpus: List[Dict[str, Any]], init_error: Optional[Exception] = None) -> None:
        self.gpus = gpus
        self.init_error = init_error
        self.shut_down = False
        self.names = {4242: "/usr/bin/python3", 1300: b"Xorg"}

    def nvmlInit(self) -> None:
        if self.init_error is not None:
            raise self.init_error

    def nvmlShutdown(self) -> None:
        self.shut_down = True

    def nvmlSystemGetDriverVersion(self) -> str:
        return "550.54.14"

    def nvmlSystemGetCudaDriverVersion_v2(self) -> int:
        return 12040

    def nvmlSystemGetProcessName(self, pid: int) -> Any:
        if pid not in self.names:
            raise NotFound()
        return self.names[pid]

    def nvmlDeviceGetCount(self) -> int:
        return len(self.gpus)

    def nvmlDeviceGetHandleByIndex(self, index: int) -> Any:
        if self.gpus[index].get("lost"):
            raise GpuIsLost()
        return ("gpu", index)

    def nvmlDeviceGetMigDeviceHandleByIndex(self, handle: Any, index: int) -> Any:
        if index >= len(self.gpus[handle[1]].get("mig", ())):
            raise NotFound()
        return ("mig", handle[1], index)

    def nvmlDeviceGetUUID(self, handle: Any) -> str:
        gpu = self.gpus[handle[1]]
        return gpu["mig"][handle[2]] if handle[0] == "mig" else gpu["UUID"]

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if not name.startswith("nvmlDeviceGet"):
            raise AttributeError(name)
        key = name[len("nvmlDeviceGet"):]

        def call(handle: Any, *args: Any) -> Any:
            value = self.gpus[handle[1]].get(key, NotSupported)
            if isinstance(value, type) and issubclass(value, Exception):
                raise value()
            return value(*args) if callable(value) else value

        return call


RTX_4090: Dict[str, Any] = {
    "Name": b"NVIDIA GeForce RTX 4090",
    "UUID": "GPU-11111111-2222-3333-4444-555555555555",
    "PciInfo": SimpleNamespace(busId=b"00000000:01:00.0"),
    "CudaComputeCapability": (8, 9),
    "MemoryInfo": SimpleNamespace(total=24564 * MIB, used=1031 * MIB),
    "ComputeMode": 0,
    "PersistenceMode": 0,
    "CurrPcieLinkGeneration": 1,
    "MaxPcieLinkGeneration": 4,
    "CurrPcieLinkWidth": 16,
    "MaxPcieLinkWidth": 16,
    "UtilizationRates": SimpleNamespace(gpu=3, memory=1),
    "Temperature": 41,
    "CurrentClocksEventReasons": 0x1,
    "ComputeRunningProcesses": [SimpleNamespace(pid=4242, usedGpuMemory=812 * MIB)],
    "GraphicsRunningProcesses": [SimpleNamespace(pid=1300, usedGpuMemory=None), SimpleNamespace(pid=4242, usedGpuMemory=900 * MIB)],
}
A100_MIG: Dict[str, Any] = {
    "Name": "NVIDIA A100-SXM4-80GB",
    "UUID": "GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
    "Serial": "1564720004631",
    "PciInfo": SimpleNamespace(busId="00000000:41:00.0"),
    "CudaComputeCapability": (8, 0),
    "MemoryInfo": SimpleNamespace(total=81920 * MIB, used=0),
    "ComputeMode": 3,
    "PersistenceMode": 1,
    "MigMode": [1, 1],
    "MaxMigDeviceCount": 7,
    "mig": ["MIG-0f0e0d0c-1111-2222-3333-444444444444", "MIG-1f0e0d0c-1111-2222-3333-444444444444"],
    "CurrPcieLinkGeneration": 4,
    "MaxPcieLinkGeneration": 4,
    "CurrPcieLinkWidth": 8,
    "MaxPcieLinkWidth": 16,
    "UtilizationRates": SimpleNamespace(gpu=97, memory=40),
    "Temperature": 88,
    "EccMode": [1, 1],
    "TotalEccErrors": lambda error_type, counter: {(1, 0): 0, (1, 1): 2}[(error_type, counter)],
    "RetiredPagesPendingStatus": 0,
    "RemappedRows": (0, 1, 1, 0),
    "CurrentClocksEventReasons": 0x4 | 0x40 | 0x1000,
    "ComputeRunningProcesses": [],
    "GraphicsRunningProcesses": [],
}


def test_healthy_two_gpu_box() -> None:
    fake = FakeNvml([RTX_4090, A100_MIG])
    assert probe_nvml(fake) == NvmlResult(
        ok=True,
        driver=DriverFacts(source="nvml", version="550.54.14", cuda_version="12.4", gpu_count=2),
        gpus=(
            Gpu(
                index=0, name="NVIDIA GeForce RTX 4090", uuid="GPU-11111111-2222-3333-4444-555555555555",
                pci_bus_id="00000000:01:00.0", compute_capability=(8, 9), memory_total_mib=24564,
                memory_used_mib=1031, compute_mode="default", persistence_mode=False, pcie_gen_current=1,
                pcie_gen_max=4, pcie_width_current=16, pcie_width_max=16, utilization_percent=3,
                temperature_c=41, throttle_reasons=("gpu_idle",),
                processes=(GpuProcess(4242, "/usr/bin/python3", 900), GpuProcess(1300, "Xorg", None)),
            ),
            Gpu(
                index=1, name="NVIDIA A100-SXM4-80GB", uuid="GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeeeeeeeee",
                serial="1564720004631", pci_bus_id="00000000:41:00.0", compute_capability=(8, 0),
                memory_total_mib=81920, memory_used_mib=0, compute_mode="exclusive_process",
                persistence_mode=True, mig_mode=True,
                mig_devices=("MIG-0f0e0d0c-1111-2222-3333-444444444444", "MIG-1f0e0d0c-1111-2222-3333-444444444444"),
                pcie_gen_current=4, pcie_gen_max=4, pcie_width_current=8, pcie_width_max=16,
                utilization_percent=97, temperature_c=88, ecc_mode=True, ecc_uncorrected_volatile=0,
                ecc_uncorrected_aggregate=2, retired_pages_pending=False, remapped_rows_pending=True,
                remapped_rows_failure=False, throttle_reasons=("sw_power_cap", "hw_thermal_slowdown", "0x1000"),
            ),
        ),
    )
    assert fake.shut_down


def test_unsupported_fields_are_none_and_a_lost_gpu_is_reported() -> None:
    bare = {"Name": "Tesla K80", "UUID": "GPU-k80"}
    result = probe_nvml(FakeNvml([bare, {"lost": True}]))
    assert result.gpus == (Gpu(index=0, name="Tesla K80", uuid="GPU-k80"), Gpu(index=1))
    assert result.errors == (("gpus", "GPU 1 nvmlDeviceGetHandleByIndex: GPU is lost"),)


@pytest.mark.parametrize(
    ("error", "kind", "text", "reason"),
    [
        (_error_class("NVMLError_LibraryNotFound", 12)(), "library_not_found", "NVML Shared Library Not Found",
         "NVML library not found (libnvidia-ml.so.1)"),
        (_error_class("NVMLError_DriverNotLoaded", 9)(), "driver_not_loaded", "Driver Not Loaded",
         "NVML could not initialise: the NVIDIA kernel driver is not loaded"),
        (_error_class("NVMLError_LibRmVersionMismatch", 18)(), "version_mismatch",
         "RM has detected an NVML/RM version mismatch.", "NVML could not initialise: Driver/library version mismatch"),
        (_error_class("NVMLError_NoPermission", 4)(), "no_permission", "Insufficient Permissions",
         "NVML could not initialise: insufficient permissions"),
        (NVMLError(18), "version_mismatch", "RM has detected an NVML/RM version mismatch.",
         "NVML could not initialise: Driver/library version mismatch"),
        (NVMLError(999), "other", "Unknown Error", "NVML could not initialise: Unknown Error"),
        (OSError("libnvidia-ml.so.1: wrong ELF class"), "other", "libnvidia-ml.so.1: wrong ELF class",
         "NVML could not initialise: libnvidia-ml.so.1: wrong ELF class"),
    ],
)
def test_each_init_failure_is_classified(error: Exception, kind: str, text: str, reason: str) -> None:
    assert probe_nvml(FakeNvml([], init_error=error)) == NvmlResult(
        ok=False, driver=DriverFacts(nvml_error=kind, nvml_error_text=text), errors=(("driver", reason),)
    )


def test_binding_that_cannot_be_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing() -> None:
        raise ModuleNotFoundError("No module named 'pynvml'")

    monkeypatch.setattr(nvml_probe, "load_binding", missing)
    assert probe_nvml() == NvmlResult(
        ok=False,
        driver=DriverFacts(),
        errors=(("driver", "the NVML binding (nvidia-ml-py) cannot be imported: ModuleNotFoundError: No module named 'pynvml'"),),
    )


def test_real_binding_on_a_machine_without_the_library() -> None:
    pytest.importorskip("pynvml")
    result = probe_nvml()
    if result.ok:
        pytest.skip("this machine has a working NVIDIA driver")
    assert result.driver.nvml_error in ("library_not_found", "driver_not_loaded")


def test_throttle_names() -> None:
    assert throttle_names(0) == ()
    assert throttle_names(0x8 | 0x80 | 0x20) == ("hw_slowdown", "sw_thermal_slowdown", "hw_power_brake_slowdown")


def test_board_limit_and_reliability_have_names() -> None:
    assert throttle_names(0x200 | 0x400) == ("board_limit", "reliability")


def test_reason_and_error_tables_are_nvidia_ml_pys() -> None:
    """The fallback tables equal the installed binding's own constants."""
    binding = nvml_probe.load_binding()
    assert nvml_probe.throttle_bits(binding) == nvml_probe.THROTTLE_BITS
    for name in ("INVALID_ARGUMENT", "NOT_SUPPORTED", "NO_PERMISSION", "NOT_FOUND", "DRIVER_NOT_LOADED",
                 "LIBRARY_NOT_FOUND", "FUNCTION_NOT_FOUND", "LIB_RM_VERSION_MISMATCH", "NO_DATA"):
        assert getattr(nvml_probe, name) == getattr(binding, f"NVML_ERROR_{name}"), name


def test_reasons_are_decoded_with_the_bindings_constants() -> None:
    binding = SimpleNamespace(
        nvmlClocksEventReasonGpuIdle=0x1,
        nvmlClocksThrottleReasonUserDefinedClocks=0x2,
        nvmlClocksThrottleReasonApplicationsClocksSetting=0x2,
        nvmlClocksEventReasonNewLimiterKind=0x800,
        nvmlClocksThrottleReasonAll=0x803,
        nvmlClocksEventReasonNone=0,
    )
    bits = nvml_probe.throttle_bits(binding)
    assert bits == ((0x1, "gpu_idle"), (0x2, "applications_clocks_setting"), (0x800, "new_limiter_kind"))
    assert throttle_names(0x1803, bits) == ("gpu_idle", "applications_clocks_setting", "new_limiter_kind", "0x1000")
    assert nvml_probe.throttle_bits(SimpleNamespace()) == nvml_probe.THROTTLE_BITS


def test_the_verify_worker_names_clock_reasons_from_the_same_table_as_the_probe() -> None:
    from gpudoctor.trainers import clocks

    mask = sum(bit for bit, _ in nvml_probe.THROTTLE_BITS)
    assert tuple(clocks.reasons(mask)) == nvml_probe.throttle_names(mask)
    assert clocks.reasons(0x600) == ["board_limit", "reliability"]
