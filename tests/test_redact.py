"""Redaction: planted secrets and personal data never reach a markdown or JSON report."""

from __future__ import annotations

import dataclasses

import pytest

from gpudoctor.facts import CompanionFacts, EnvFacts, Facts, Gpu, PlatformFacts, TorchDevice, TorchFacts
from gpudoctor.model import Report
from gpudoctor.redact import Identity, local_identity, redact
from gpudoctor.render.json import render_json
from gpudoctor.render.markdown import render_markdown

GPU_UUID = "GPU-8932f937-d72c-4106-c12f-20bd9faed9f6"
MIG_UUID = "MIG-4c2b3d1e-aaaa-5bbb-8ccc-0123456789ab"
OTHER_UUID = "GPU-11112222-3333-4444-5555-666677778888"
ALICE = Identity(homes=("/home/alice",), users=("alice",), hosts=("gpubox7.lab.example.org",))

SECRETS = (
    "alice",
    "gpubox7",
    "lab.example.org",
    "8932f937",
    "d72c-4106",
    "4c2b3d1e",
    "11112222",
    "1320221034567",
    "hf_AbCdEfGhIjKlMnOpQrStUv",
    "ghp_0123456789abcdefghijABCDEFGHIJ",
    "sk-proj-ABCDEFGHIJKLMNOPQRST",
    "s3cretpass",
    "wandb0123456789",
    "abcdef123456",
)


def planted_facts() -> Facts:
    """Facts with a secret, a personal detail or a hardware identifier in every kind of field."""
    return Facts(
        platform=PlatformFacts(
            system="Linux",
            distro="Ubuntu 24.04.1 LTS",
            libc="glibc 2.39-0ubuntu8.3",
            python_executable="/home/alice/miniconda3/envs/alice-gpu/bin/python",
            conda_env="alice-gpu",
        ),
        gpus=(
            Gpu(index=0, name="NVIDIA H100 80GB HBM3", uuid=GPU_UUID, serial="1320221034567", mig_devices=(MIG_UUID,)),
        ),
        torch=TorchFacts(
            installed=True,
            version="2.6.0+cu126",
            location="/home/alice/miniconda3/envs/alice-gpu/lib/python3.11/site-packages/torch",
            init_error="CUDA error on gpubox7.lab.example.org: device GPU-8932f937-d72c-4106-c12f-20bd9faed9f6 busy",
            import_traceback='File "/data/alice/hack.py", line 3, in <module>\n  '
            "token = 'ghp_0123456789abcdefghijABCDEFGHIJ'",
            devices=(TorchDevice(index=0, uuid="8932f937-d72c-4106-c12f-20bd9faed9f6"),),
        ),
        torchvision=CompanionFacts(installed=True, location="C:\\Users\\Alice\\venv\\Lib\\site-packages\\torchvision"),
        env=EnvFacts(
            variables=(
                ("CUDA_VISIBLE_DEVICES", "GPU-8932f937,GPU-11112222"),
                ("HF_TOKEN", "hf_AbCdEfGhIjKlMnOpQrStUv"),
                ("LD_LIBRARY_PATH", "/home/alice/cuda/lib64:/usr/local/cuda/lib64"),
                ("NVIDIA_VISIBLE_DEVICES", OTHER_UUID),
                ("PIP_INDEX_URL", "https://alice:s3cretpass@pypi.corp.example/simple"),
                ("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"),
                ("PYTORCH_NOTE", "see sk-proj-ABCDEFGHIJKLMNOPQRST and ?token=abcdef123456"),
                ("WANDB_API_KEY", "wandb0123456789"),
            ),
            path_cuda_entries=("/home/alice/cuda/bin",),
        ),
        extra=(("hostname seen", "gpubox7"),),
        probe_errors=(("toolkit", "nvcc not found under /home/alice/cuda"),),
    )


def test_redacted_facts_field_by_field() -> None:
    facts = redact(planted_facts(), ALICE)
    assert facts.meta.redacted is True
    assert facts.platform.python_executable == "~/miniconda3/envs/<user>-gpu/bin/python"
    assert facts.platform.conda_env == "<user>-gpu"
    assert facts.platform.distro == "Ubuntu 24.04.1 LTS"
    assert facts.platform.libc == "glibc 2.39-0ubuntu8.3"
    assert facts.gpus[0] == Gpu(index=0, name="NVIDIA H100 80GB HBM3", uuid="GPU-<uuid-1>", serial=None,
                                mig_devices=("MIG-<uuid-2>",))
    assert facts.torch.devices[0].uuid == "<uuid-1>"
    assert facts.torch.location == "~/miniconda3/envs/<user>-gpu/lib/python3.11/site-packages/torch"
    assert facts.torch.init_error == "CUDA error on <host>: device GPU-<uuid-1> busy"
    assert facts.torch.import_traceback == 'File "/data/<user>/hack.py", line 3, in <module>\n  token = \'<secret>\''
    assert facts.torchvision.location == "~\\venv\\Lib\\site-packages\\torchvision"
    assert facts.env.variables == (
        ("CUDA_VISIBLE_DEVICES", "GPU-<uuid-1>,GPU-<uuid-3>"),
        ("HF_TOKEN", "set"),
        ("LD_LIBRARY_PATH", "~/cuda/lib64:/usr/local/cuda/lib64"),
        ("NVIDIA_VISIBLE_DEVICES", "GPU-<uuid-3>"),
        ("PIP_INDEX_URL", "https://<secret>@pypi.corp.example/simple"),
        ("PYTORCH_CUDA_ALLOC_CONF", "expandable_segments:True"),
        ("PYTORCH_NOTE", "see <secret> and ?token=<secret>"),
        ("WANDB_API_KEY", "set"),
    )
    assert facts.env.path_cuda_entries == ("~/cuda/bin",)
    assert facts.extra == (("hostname seen", "<host>"),)
    assert facts.probe_errors == (("toolkit", "nvcc not found under ~/cuda"),)


@pytest.mark.parametrize("render", [render_markdown, render_json], ids=["markdown", "json"])
def test_no_planted_secret_reaches_a_report(render) -> None:
    text = render(Report(facts=redact(planted_facts(), ALICE)))
    leaked = [s for s in SECRETS if s.lower() in text.lower()]
    assert leaked == []


def test_redaction_is_idempotent() -> None:
    once = redact(planted_facts(), ALICE)
    assert redact(once, ALICE) == once


def test_homes_and_users_found_in_the_facts_are_redacted_without_an_identity() -> None:
    facts = Facts(
        platform=PlatformFacts(python_executable="/Users/bob/venv/bin/python", conda_env="bob"),
        torch=TorchFacts(location="/home/carol/t", import_error="OSError: /mnt/home/carol/x.so: bob"),
    )
    out = redact(facts, Identity())
    assert (out.platform.python_executable, out.platform.conda_env) == ("~/venv/bin/python", "<user>")
    assert (out.torch.location, out.torch.import_error) == ("~/t", "OSError: /mnt/home/<user>/x.so: <user>")


def test_generic_and_short_names_are_not_replaced_outside_home_paths() -> None:
    facts = Facts(platform=PlatformFacts(distro="Ubuntu 22.04", python_executable="/home/ubuntu/v/bin/python",
                                         conda_env="ml"))
    out = redact(facts, Identity(homes=("/root",), users=("ubuntu", "ml", "root"), hosts=("localhost",)))
    assert out.platform == dataclasses.replace(facts.platform, python_executable="~/v/bin/python")


def test_local_home_and_user_are_used_by_default(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("gpudoctor.redact.local_identity", lambda: ALICE)
    out = redact(Facts(platform=PlatformFacts(python_executable="/home/alice/x", conda_env="alice")))
    assert (out.platform.python_executable, out.platform.conda_env) == ("~/x", "<user>")


def test_local_identity_reads_this_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/zed")
    monkeypatch.setenv("USER", "zed")
    monkeypatch.setattr("getpass.getuser", lambda: "zed")
    monkeypatch.setattr("socket.gethostname", lambda: "zedbox")
    ident = local_identity()
    assert ident.homes == ("/home/zed",)
    assert ident.hosts == ("zedbox",)
    assert set(ident.users) == {"zed"}


# pasted input: redaction applies to what diagnose reads, whoever's machine it came from

PASTE = """Collecting environment information...
PyTorch version: 2.7.0+cu128
Is debug build: False
CUDA used to build PyTorch: 12.8
ROCM used to build PyTorch: N/A

OS: Ubuntu 24.04.2 LTS (x86_64)
Libc version: glibc-2.39

Python version: 3.12.3 (main, Feb  4 2025, 14:48:35) [GCC 13.3.0] (64-bit runtime)
Python platform: Linux-6.11.0-24-generic-x86_64-with-glibc2.39
Is CUDA available: True
CUDA runtime version: 12.8.93
GPU models and configuration: GPU 0: NVIDIA GeForce RTX 5090 (UUID: GPU-8932f937-d72c-4106-c12f-20bd9faed9f6)
Nvidia driver version: 575.51.03
cuDNN version: /home/alice/cudnn/lib/libcudnn.so.9.1.0

Versions of relevant libraries:
[pip3] torch==2.7.0+cu128
[pip3] torchvision==0.22.0+cu128
[conda] torch 2.7.0 https://alice:s3cretpass@conda.corp.example/alice-channel
"""


def _diagnose(tmp_path, name: str, text: str, fmt: str, monkeypatch: pytest.MonkeyPatch) -> str:
    from click.testing import CliRunner

    from gpudoctor.cli import main

    monkeypatch.setattr("gpudoctor.redact.local_identity", lambda: Identity(("/home/maintainer",), ("maintainer",)))
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["diagnose", str(path), "--format", fmt, "--fail-on", "never"])
    assert (result.exit_code, result.stderr) == (0, "")
    return result.stdout


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_a_pasted_unredacted_markdown_report_is_redacted(tmp_path, monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    pasted = render_markdown(Report(facts=planted_facts()))
    assert "alice" in pasted and "hf_AbCd" in pasted
    out = _diagnose(tmp_path, "pasted.md", pasted, fmt, monkeypatch)
    # the reporter's host name is not in their facts as such, so only its known spellings are checked here
    leaked = [s for s in SECRETS if s.lower() in out.lower() and s not in ("gpubox7", "lab.example.org")]
    assert leaked == []


@pytest.mark.parametrize("fmt", ["markdown", "json"])
def test_a_pasted_collect_env_is_redacted(tmp_path, monkeypatch: pytest.MonkeyPatch, fmt: str) -> None:
    pytest.importorskip("gpudoctor.parsers.collect_env")
    out = _diagnose(tmp_path, "paste.txt", PASTE, fmt, monkeypatch)
    assert [s for s in ("alice", "s3cretpass", "8932f937", "d72c-4106") if s in out] == []


def test_a_user_named_like_the_hardware_keeps_the_hardware_name() -> None:
    facts = Facts(gpus=(Gpu(name="Tesla V100-SXM2-16GB"),),
                  platform=PlatformFacts(python_executable="/home/tesla/v/bin/python", conda_env="tesla"))
    out = redact(facts, Identity(users=("tesla",)))
    assert (out.gpus[0].name, out.platform.python_executable, out.platform.conda_env) == (
        "Tesla V100-SXM2-16GB", "~/v/bin/python", "tesla",
    )
