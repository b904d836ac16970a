"""`gpudoctor checks` lists every built-in check, with its source, through the real entry point."""

from __future__ import annotations

import subprocess
import sys

# The checks the product promises, by id; a check renamed or dropped must fail here.
PROMISED = [
    "driver", "torch", "gpu.arch", "torchvision", "devices",
    "driver.fabric-manager", "driver.uvm", "driver.nouveau", "devices.order", "devices.mig",
    "gpu.exclusive-mode", "gpu.memory-held", "gpu.ecc", "gpu.throttled", "gpu.pcie-link", "env.cuda-vars",
    "libs.shadowed", "libs.mixed-cuda-majors", "libs.missing", "libs.wrong-version",
    "packages.duplicate-torch", "packages.torchaudio-mismatch", "packages.unreleased-combination", "packages.kernel-pins",
    "toolkit.mismatch", "windows.dll-load-failed", "platform.wsl", "platform.container", "platform.macos",
    "platform.no-nvidia-gpu", "torch.rocm-build-on-nvidia", "torch.cuda-build-on-amd", "paste.errors", "paste.xid", "paste.environments",
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
