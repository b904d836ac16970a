"""`gpudoctor checks` lists every built-in check, with its source, through the real entry point."""

from __future__ import annotations

import subprocess
import sys

# The checks the product promises, by id; a check renamed or dropped must fail here.
PROMISED = [
    "driver", "torch", "torch.cuda", "gpu.arch", "torchvision", "devices",
    "driver.fabric-manager", "driver.uvm", "driver.nouveau", "devices.order", "devices.mig",
    "gpu.exclusive-mode", "gpu.memory-held", "gpu.ecc", "gpu.throttled", "gpu.pcie-link", "env.cuda-vars",
    "libs.shadowed", "libs.mixed-cuda-majors", "libs.missing", "libs.wrong-version",
    "packages.duplicate-torch", "packages.torchaudio-mismatch", "packages.unreleased-combination", "packages.kernel-pins",
    "toolkit.mismatch", "windows.dll-load-failed", "platform.wsl", "platform.container", "platform.macos",
    "platform.no-nvidia-gpu", "platform.machine", "torch.rocm-build-on-nvidia", "torch.cuda-build-on-amd", "paste.errors", "paste.xid", "paste.environments",
    "paste.device-index", "paste.job-without-gpu", "paste.install-cuda", "paste.install-arch", "paste.jetson-torch",
    "paste.flash-attn-gpu", "paste.bitsandbytes-platform", "paste.bitsandbytes-gpu", "paste.system-cudnn", "paste.flashinfer-gpu",
    "verify.worker", "verify.smoke", "verify.parity", "verify.learning", "verify.speedup", "verify.bench",
    "verify.rank-failed", "verify.rank-drift", "verify.collective", "verify.straggler", "verify.ddp-parity",
]


def test_checks_command_lists_every_promised_check_with_its_source() -> None:
    from gpudoctor import __version__

    done = subprocess.run([sys.executable, "-m", "gpudoctor", "checks"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    rows = [line.split() for line in done.stdout.splitlines()[1:]]
    assert [row[0] for row in rows] == PROMISED
    assert all(row[-2:] == ["torch-gpudoctor", __version__] for row in rows)


def test_every_check_module_is_named_after_the_ids_it_holds() -> None:
    """checks/<prefix>.py or checks/<prefix>_<aspect>.py holds only <prefix>.* checks; helpers live in support/."""
    import importlib
    from pathlib import Path

    import gpudoctor.checks as package

    folder = Path(package.__file__).parent
    misnamed = {}
    for path in sorted(folder.glob("*.py")):
        if path.stem in ("__init__", "builtin"):
            continue
        module = importlib.import_module(f"gpudoctor.checks.{path.stem}")
        checks = getattr(module, "CHECKS", None)
        assert checks, f"checks/{path.name} holds no checks: helpers belong in checks/support/"
        prefixes = {c.id.split(".")[0].replace("-", "_") for c in checks}
        wrong = sorted(p for p in prefixes if path.stem != p and not path.stem.startswith(p + "_"))
        if wrong:
            misnamed[path.name] = wrong
    assert misnamed == {}
