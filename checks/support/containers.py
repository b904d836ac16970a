"""A pasted container start that gives the container no GPU: which command, how sure, and the fix for its runtime."""

from __future__ import annotations

from typing import List, Optional, Sequence

from gpudoctor.checks.support.paste_notes import extras
from gpudoctor.facts import Facts
from gpudoctor.facts.containers import ContainerRun, GpuRequest, Runtime, container_runs, no_gpu_lines
from gpudoctor.model import Finding, Fix, Severity
from gpudoctor.shell import Shell, UnsafeValue, quote

LINKS = ("https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/latest/docker-specialized.html",
         "https://docs.docker.com/compose/how-tos/gpu-support/")
DOCKER_TEST = "docker run --rm --gpus all ubuntu nvidia-smi -L"
CAPABILITIES = "NVIDIA_DRIVER_CAPABILITIES=compute,utility"
# messages that a program finds no GPU, no driver or no CUDA where it runs (a container's, a batch job's)
FAILING = ("no-driver", "no-device", "libcuda-missing", "cuda-unavailable", "smi-no-driver", "gpu-unused-unexplained",
           "container-without-driver")
# messages only a working GPU prints: the container had the GPU
WORKING = ("out-of-memory", "device-side-assert", "tensors-on-different-devices", "misaligned-address",
           "invalid-launch-configuration", "float16-not-efficient", "cudnn-plan-declined",
           "cudnn-cnn-infer-warning",
           "ranks-share-a-gpu", "illegal-memory-access", "bfloat16-needs-ampere", "gpu-slower-than-cpu",
           "is-available-not-called", "gpu-waits-for-data", "cuda-in-forked-subprocess")
EVIDENCE = ("paste.container.run", "paste.container.no_gpu", "torch.init_error")


def _image(run: Optional[ContainerRun]) -> str:
    if run is None or run.image is None:
        return "IMAGE"
    try:
        return quote(run.image, Shell.POSIX)
    except UnsafeValue:
        return "IMAGE"


def fix_for(run: Optional[ContainerRun], driver_missing: bool = False) -> Fix:
    """How to start this kind of container with the GPUs (and, when the driver was missing, its libraries)."""
    image = _image(run)
    runtime = run.runtime if run is not None else Runtime.DOCKER
    caps = f" -e {CAPABILITIES}" if driver_missing else ""
    if runtime is Runtime.PODMAN:
        return Fix("Generate the CDI specification of the GPUs (NVIDIA Container Toolkit) and pass them to podman "
                   "with --device nvidia.com/gpu=all, before the image name.",
                   ("sudo nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml",
                    "podman run --rm --device nvidia.com/gpu=all ubuntu nvidia-smi -L",
                    f"podman run --device nvidia.com/gpu=all{caps} {image}"))
    if runtime is Runtime.COMPOSE:
        return Fix("Give the service the GPUs in the compose file: under the service, deploy: resources: "
                   "reservations: devices: - driver: nvidia, count: all, capabilities: [gpu]"
                   + (f"; and in its environment NVIDIA_VISIBLE_DEVICES=all and {CAPABILITIES} so that the driver's "
                      "libraries are mounted" if driver_missing else "")
                   + ". Check that docker itself can reach the GPU, then recreate the service.",
                   (DOCKER_TEST, "docker compose up --force-recreate"))
    return Fix("Add --gpus all to the docker run command, before the image name"
               + (f", and -e {CAPABILITIES} so that the driver's libraries are mounted" if driver_missing else "")
               + ". If the test below answers 'could not select device driver', install the NVIDIA Container Toolkit "
               "on the host first.", (DOCKER_TEST, f"docker run --gpus all{caps} {image}"))


def _failing(facts: Facts) -> List[str]:
    """What in the paste says the program found no GPU: its recognised messages and its own words."""
    quoted = [v for k, v in facts.extra if k.startswith("paste.line.signature.") and k.rsplit(".", 1)[-1] in FAILING]
    return [f"line {q.partition(': ')[0]}: {q.partition(': ')[2]}" for q in quoted] + list(no_gpu_lines(facts))


def _runs_word(run: ContainerRun) -> str:
    return {Runtime.DOCKER: "docker run", Runtime.PODMAN: "podman run", Runtime.COMPOSE: "compose service"}[run.runtime]


def started_without_gpus(facts: Facts) -> Optional[Finding]:
    """The container started without GPU access, when the paste shows its start command asking for no GPU (or
    "Found no NVIDIA driver" inside it) and a program in it finding no GPU; None when the paste shows the GPU working."""
    runs = container_runs(facts)
    found = extras(facts, "paste.signature")
    if any(sig in WORKING for sig in found):
        return None
    if not runs:
        return _said_in_container(facts, found)
    failing = _failing(facts)
    bare = [r for r in runs if r.request is GpuRequest.NONE]
    asked = [r for r in runs if r.request.asks]
    if bare and failing:
        run = bare[0]
        tried = [r for r in asked if r.image is None or r.image == run.image]
        if tried:
            return None  # the paste shows the same image started with GPUs too: the flag is not what is missing
        word = _runs_word(run)
        also = f" (another command in the paste asks for GPUs: line {asked[0].line})" if asked else ""
        return Finding(
            "platform.container", Severity.WARNING if asked else Severity.ERROR,
            f"the container was started without GPU access: its {word} asks for no GPU, and the program in it "
            "finds none",
            f"Observed: the {word} at line {run.line} has no --gpus, --runtime=nvidia, --device nvidia.com/gpu=... "
            f"or NVIDIA_VISIBLE_DEVICES{also}; then " + "; ".join(failing[:3]) + ". Required: the container "
            "started with the GPUs (docker run --gpus all; podman run --device nvidia.com/gpu=all; a compose "
            "device reservation). How sure: likely; only a Docker daemon whose default runtime is nvidia "
            "(default-runtime in /etc/docker/daemon.json, shown by `docker info`) gives GPUs without asking.",
            fix_for(run), LINKS, EVIDENCE,
        )
    if "no-driver" in found and not bare:
        run = asked[0] if asked else runs[0]
        return Finding(
            "platform.container", Severity.ERROR,
            "the program in the container finds no NVIDIA driver: the container does not reach the host's driver "
            "(a driver is never installed inside a container)",
            "Observed: \"Found no NVIDIA driver on your system\" from a program started by the "
            f"{_runs_word(run)} at line {run.line}"
            + (", which asks for GPUs" if run.request.asks else ", whose GPU request the paste does not show")
            + ". Required: the NVIDIA runtime passing the GPUs and the driver's libraries in: a GPU request, and "
            f"{CAPABILITIES} (NVIDIA_VISIBLE_DEVICES=all) where the image does not set them; the NVIDIA Container "
            "Toolkit and a working nvidia-smi on the host.",
            fix_for(run, driver_missing=True), LINKS, EVIDENCE,
        )
    return None


def _said_in_container(facts: Facts, found: Sequence[str]) -> Optional[Finding]:
    """The paste says the program runs in a container, does not show how it was started, and shows CUDA finding no
    GPU while nothing shows the GPU reaching the container (nvidia-smi, a driver version)."""
    said = extras(facts, "paste.container_said")
    failing = [sig for sig in found if sig in FAILING] or (["cuda-unavailable"] if facts.torch.is_available is False
                                                           else [])
    shown = bool(facts.gpus) and not extras(facts, "paste.gpus_named_only")  # a tool listed them, not a sentence
    if (not said or not failing or shown or facts.driver.version or facts.torch.cuda_compiled is False
            or extras(facts, "paste.smi_works")):  # nvidia-smi working in it: the GPU reached the container
        return None
    return Finding(
        "platform.container", Severity.WARNING,
        "the program runs in a container and finds no GPU, and the paste does not show how the container was "
        "started: a container has the GPUs only when started with them",
        f"Observed: {said[0]}; then {', '.join(failing)}. Required: the container started with the GPUs (docker run "
        "--gpus all; podman run --device nvidia.com/gpu=all; a compose device reservation) on a host with the NVIDIA "
        "Container Toolkit. How sure: likely; run the test below on the host and nvidia-smi inside the container.",
        fix_for(None), LINKS, EVIDENCE,
    )
