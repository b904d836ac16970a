"""Pasted container start commands: a container started without GPU access is named with its runtime's fix, and
WSL 1 is recognised from what its pastes show."""

from __future__ import annotations

from typing import List, Optional, Tuple

import pytest

from gpudoctor.causes import causes
from gpudoctor.facts.containers import ContainerRun, GpuRequest, Runtime, container_runs
from gpudoctor.model import Finding, Report, Severity
from gpudoctor.parsers.paste import read_paste
from gpudoctor.parsers.paste.containers import parse_run
from gpudoctor.parsers.report import load_facts
from gpudoctor.registry import discover
from gpudoctor.render.diagnosis import answer
from gpudoctor.runner import run_checks

FAILS = "2025-01-02 | WARNING | NVIDIA CUDA test failed\n2025-01-02 | INFO | No GPUs detected\n"


def _report(text: str) -> Report:
    return run_checks(discover(plugins=False), load_facts(text, "paste"))


def _container(report: Report) -> List[Finding]:
    return [f for f in report.findings() if f.code == "platform.container" and f.severity is not Severity.INFO]


def _runs(text: str) -> Tuple[ContainerRun, ...]:
    return container_runs(read_paste(text).facts)


@pytest.mark.parametrize(("words", "request_", "image"), [
    ("--rm -it app:1 --gpus all", GpuRequest.NONE, "app:1"),  # a flag after the image is the program's
    ("--gpus all app:1", GpuRequest.GPUS, "app:1"),
    ("--gpus=\"device=0\" app:1", GpuRequest.GPUS, "app:1"),
    ("-it --runtime=nvidia app:1", GpuRequest.RUNTIME, "app:1"),
    ("--runtime nvidia app:1", GpuRequest.RUNTIME, "app:1"),
    ("--device nvidia.com/gpu=all app:1", GpuRequest.CDI, "app:1"),
    ("--device=/dev/nvidia0 --device /dev/nvidiactl app:1", GpuRequest.DEVICE, "app:1"),
    ("-e NVIDIA_VISIBLE_DEVICES=all app:1", GpuRequest.ENV, "app:1"),
    ("-e NVIDIA_VISIBLE_DEVICES=void app:1", GpuRequest.NONE, "app:1"),
    ("-p8080:80 -v /data:/data --name x -d app:1", GpuRequest.NONE, "app:1"),
    ("--device /dev/snd app:1", GpuRequest.NONE, "app:1"),
])
def test_run_options_say_whether_gpus_are_asked_for(words: str, request_: GpuRequest, image: str) -> None:
    import shlex

    assert parse_run(shlex.split(words)) == (request_, image)


def test_a_command_cut_off_before_its_image_is_no_run() -> None:
    assert parse_run(["--rm", "-p", "80:80"]) is None


@pytest.mark.parametrize("text", [
    "```\n$ docker run --rm \\\n  -p 8080:80 \\\n  my/app:2\n```\n",
    "```\nPS C:\\> docker run --rm `\n  -p 8080:80 `\n  my/app:2\n```\n",
    "```\nC:\\> docker container run --rm ^\n  my/app:2\n```\n",
    "I started it with `sudo docker run --rm my/app:2` as the README says.\n",
])
def test_continued_and_inline_run_commands_are_read(text: str) -> None:
    runs = _runs(text)
    assert [(r.runtime, r.request, r.image) for r in runs] == [(Runtime.DOCKER, GpuRequest.NONE, "my/app:2")]
    assert read_paste(text).facts.platform.container == "docker"


def test_prose_that_only_names_docker_run_is_no_command() -> None:
    assert _runs("Then docker run with the usual options fails for me.\n") == ()


def test_podman_runs_and_compose_files_are_read() -> None:
    podman = _runs("```\n$ podman run --rm -it quay.io/x/app\n```\n")
    assert [(r.runtime, r.request) for r in podman] == [(Runtime.PODMAN, GpuRequest.NONE)]
    compose = "```yaml\nservices:\n  web:\n    image: my/app:2\n    ports:\n      - 80:80\n```\n"
    assert [(r.runtime, r.request, r.image) for r in _runs(compose)] == [(Runtime.COMPOSE, GpuRequest.NONE, "my/app:2")]
    gpu = compose.replace("      - 80:80\n", "      - 80:80\n    deploy:\n      resources:\n        reservations:\n"
                          "          devices:\n            - driver: nvidia\n              capabilities: [gpu]\n")
    assert [r.request for r in _runs(gpu)] == [GpuRequest.GPUS]
    runtime = compose.replace("    ports:", "    runtime: nvidia\n    ports:")
    assert [r.request for r in _runs(runtime)] == [GpuRequest.RUNTIME]


def test_a_docker_run_without_gpus_and_a_failing_gpu_test_is_the_cause() -> None:
    text = f"```\n❯ docker run --rm acme/previews:latest --list-gpus\n{FAILS}```\n"
    report = _report(text)
    [finding] = _container(report)
    assert finding.severity is Severity.ERROR
    assert "started without GPU access" in finding.summary and "Docker's default runtime" not in finding.summary
    assert "default-runtime" in finding.detail  # says how sure it is
    assert finding.fix is not None and "docker run --gpus all acme/previews:latest" in finding.fix.commands
    lead = answer(report)
    assert lead.lead is not None and lead.lead.code == "platform.container"
    assert any("No GPUs detected" in line for line in lead.evidence)


def test_the_image_from_the_paste_is_shell_quoted_in_the_fix() -> None:
    text = "```\n$ docker run --rm 'acme/app;touch x' \n" + FAILS + "```\n"
    [finding] = _container(_report(text))
    assert finding.fix is not None
    assert not any("touch x" in c for c in finding.fix.commands)  # not an image name: a placeholder instead
    assert "docker run --gpus all IMAGE" in finding.fix.commands


def test_a_model_on_the_cpu_in_a_container_of_a_healthy_host_is_the_cause() -> None:
    text = ("```\nPyTorch version: 2.6.0+cu124\nIs CUDA available: True\nCUDA used to build PyTorch: 12.4\n"
            "GPU models and configuration: GPU 0: NVIDIA H100\nNvidia driver version: 535.154.05\n```\n\n"
            "```\ndocker run \\\n  -it \\\n  -v ~/.x:/root/.x \\\n  acme/server-gpu \\\n  --port 8321\n```\n\n"
            "The model is loaded on the CPU instead of the GPU inside the container.\n")
    [finding] = _container(_report(text))
    assert "docker run --gpus all acme/server-gpu" in (finding.fix.commands if finding.fix else ())


@pytest.mark.parametrize("flags", ["--gpus all", "--runtime=nvidia", "--device nvidia.com/gpu=all",
                                   "-e NVIDIA_VISIBLE_DEVICES=all"])
def test_a_run_that_asks_for_gpus_is_not_blamed(flags: str) -> None:
    text = f"```\n$ docker run --rm {flags} acme/previews:latest\n{FAILS}```\n"
    assert _container(_report(text)) == []


def test_out_of_memory_in_a_container_started_without_gpus_is_healthy() -> None:
    text = ("```\n$ docker run --rm acme/trainer:1\n"
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
            "No GPUs detected on the second node\n```\n")
    report = _report(text)
    assert _container(report) == []
    assert not [f for f in report.findings() if f.severity is Severity.ERROR]


def test_the_same_image_also_run_with_gpus_is_not_blamed_on_the_flag() -> None:
    text = (f"```\n$ docker run --rm acme/app:1\n{FAILS}$ docker run --rm --gpus all acme/app:1\n{FAILS}```\n")
    assert _container(_report(text)) == []


def test_a_gpu_test_container_beside_a_bare_app_container_lowers_the_certainty() -> None:
    text = (f"```\n$ docker run --rm --gpus all ubuntu nvidia-smi -L\nGPU 0: NVIDIA RTX 4090\n"
            f"$ docker run --rm acme/app:1\n{FAILS}```\n")
    [finding] = _container(_report(text))
    assert finding.severity is Severity.WARNING and "another command" in finding.detail


def test_podman_and_compose_get_their_own_fixes() -> None:
    podman = _container(_report(f"```\n$ podman run --rm acme/app:1\n{FAILS}```\n"))
    assert podman and podman[0].fix is not None
    assert "podman run --device nvidia.com/gpu=all acme/app:1" in podman[0].fix.commands
    compose = ("```yaml\nservices:\n  app:\n    image: acme/app:1\n```\n\n```\n$ docker compose up\n"
               f"app-1  | {FAILS.splitlines()[0]}\n```\n")
    found = _container(_report(compose))
    assert found and found[0].fix is not None and "capabilities: [gpu]" in found[0].fix.text


def _no_driver(prefix: str) -> Optional[Report]:
    return _report(prefix + "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an "
                   "NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx\n```\n")


def test_found_no_nvidia_driver_inside_compose_joins_the_container_cause() -> None:
    report = _no_driver("Nvidia-smi works on the host.\n\n```\n$ docker compose up --build\napp-1  | ")
    assert report is not None
    [finding] = _container(report)
    assert "NVIDIA_DRIVER_CAPABILITIES=compute,utility" in finding.detail
    lead = answer(report)
    assert lead.lead is finding
    assert [f.code for f in lead.same_cause] == ["driver.not-loaded"]  # not a second cause that installs a driver
    assert len([c for c in causes(report) if c.lead.severity is not Severity.INFO]) == 1


def test_found_no_nvidia_driver_outside_any_container_stays_a_driver_problem() -> None:
    report = _no_driver("```\n")
    assert report is not None and _container(report) == []
    assert any(f.code == "driver.not-loaded" for f in report.findings())


@pytest.mark.parametrize(("text", "distro"), [
    ("```\n$ uname -r\n4.4.0-19041-Microsoft\n$ nvidia-smi\nNVIDIA-SMI has failed because it couldn't "
     "communicate with the NVIDIA driver.\n```\n", None),
    ("```\nPS> wsl -l -v\n  NAME            STATE           VERSION\n* Ubuntu-22.04    Running         1\n"
     "  docker-desktop  Stopped         2\n```\n", "Ubuntu-22.04"),
    ("Windows 10 [Version 10.0.17763.292] here, in WSL Ubuntu nvidia-smi fails.\n\n```\nMicrosoft Windows "
     "[Version 10.0.17763.292]\n```\n", None),
    ("```\nPyTorch version: 2.1.0+cu121\nIs CUDA available: False\nCUDA used to build PyTorch: 12.1\n"
     "OS: Ubuntu 20.04.6 LTS (x86_64)\nPython platform: Linux-4.4.0-19041-Microsoft-x86_64-with-glibc2.29\n```\n", None),
])
def test_wsl1_is_recognised_and_its_fix_converts_the_distribution(text: str, distro: Optional[str]) -> None:
    facts = load_facts(text, "paste")
    assert facts.platform.wsl == 1
    report = run_checks(discover(plugins=False), facts)
    [finding] = [f for f in report.findings() if f.code == "platform.wsl"]
    assert finding.fix is not None
    assert f"wsl --set-version {distro or '<distribution>'} 2" in finding.fix.commands
    lead = answer(report)
    assert lead.lead is finding


def test_a_wsl_distribution_name_is_quoted_for_powershell() -> None:
    text = "```\n  NAME        STATE      VERSION\n* my-distro.1    Stopped    1\n```\n"
    facts = load_facts(text, "paste")
    [finding] = [f for f in run_checks(discover(plugins=False), facts).findings() if f.code == "platform.wsl"]
    assert finding.fix is not None and "wsl --set-version my-distro.1 2" in finding.fix.commands


@pytest.mark.parametrize("text", [
    "```\n$ uname -r\n5.15.153.1-microsoft-standard-WSL2\n```\n",
    "```\nPS> wsl -l -v\n  NAME      STATE      VERSION\n* Ubuntu    Running    2\n```\n",
    "Microsoft Windows [Version 10.0.17763.292]: nvidia-smi fails in cmd.\n",
    "WSL on Microsoft Windows [Version 10.0.22631.4037]\n",
])
def test_wsl2_and_other_windows_pastes_are_not_wsl1(text: str) -> None:
    assert read_paste(text).facts.platform.wsl != 1


def test_a_run_without_gpus_and_nothing_failing_is_not_blamed() -> None:
    text = "```\n$ docker run --rm -p 8080:80 acme/app:1\nListening on :8080\n```\n"
    assert [r.request for r in _runs(text)] == [GpuRequest.NONE]
    assert _container(_report(text)) == []
