"""The worker's first record: the target's torch build and what it can do with CUDA, or why it cannot."""

from __future__ import annotations

import os
import sys
import warnings
from typing import Any, Dict, List

from .protocol import HELLO, Emitter


def warnings_text(caught: List[warnings.WarningMessage]) -> List[str]:
    return [" ".join(str(w.message).split()) for w in caught]


def hello(torch: Any, em: Emitter, stand_ins: int, mig: bool = False) -> Dict[str, Any]:
    """What this torch can do with CUDA, and why not when it cannot (``stand_ins``: CPUs posing as GPUs, for tests)."""
    from .sanity import error_text

    info: Dict[str, Any] = {
        "python": sys.version.split()[0],
        "executable": sys.executable,
        "torch": getattr(torch, "__version__", None),
        "cuda_build": getattr(torch.version, "cuda", None),
        "threads": torch.get_num_threads(),
        "tf32_override": os.environ.get("NVIDIA_TF32_OVERRIDE"),
        "devices": [],
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            info["cuda_available"] = bool(torch.cuda.is_available())
            if not info["cuda_available"]:
                torch.cuda.init()  # raises the reason: CPU-only build, no driver, driver too old...
            count = torch.cuda.device_count()
            for i in range(count):
                props = torch.cuda.get_device_properties(i)
                bus = None
                if hasattr(props, "pci_bus_id"):
                    bus = f"{props.pci_domain_id:04x}:{props.pci_bus_id:02x}:{props.pci_device_id:02x}.0"
                info["devices"].append(
                    {
                        "device": f"cuda:{i}",
                        "name": props.name,
                        "compute_capability": [props.major, props.minor],
                        "total_memory_mib": int(props.total_memory) // (1024 * 1024),
                        "pci_bus_id": bus,
                        "sm_count": getattr(props, "multi_processor_count", None),
                    }
                )
        except Exception as exc:  # noqa: BLE001 - the reason is the point
            info["cuda_error"] = error_text(exc)
    info["warnings"] = warnings_text(caught)
    if info.get("cuda_available") and not info["devices"]:
        info["cuda_available"] = False  # available, yet no device could be described: cuda_error says why
    if stand_ins:
        info["cuda_available"], info["cuda_error"] = True, None
        info["devices"] = [
            {"device": f"cuda:{i}", "name": "CPU (test stand-in for a GPU)" + (" MIG 1g.10gb" if mig else ""),
             "total_memory_mib": 0}
            for i in range(stand_ins)
        ]
    em.emit(HELLO, **info)
    return info
