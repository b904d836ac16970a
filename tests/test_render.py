"""Renderers: whole terminal, markdown and JSON outputs of a healthy and a broken report against goldens."""

from __future__ import annotations

import dataclasses
import json

from gpudoctor.facts import (
    CompanionFacts,
    Distribution,
    DriverFacts,
    EnvFacts,
    Facts,
    Gpu,
    Meta,
    PlatformFacts,
    TorchDevice,
    TorchFacts,
)
from gpudoctor.model import CheckResult, Finding, Fix, Report, Severity, Status
from gpudoctor.render import Format, render
from gpudoctor.render.common import summary_line
from gpudoctor.facts.codec import FACTS_MARKER
from gpudoctor.render.markdown import fence, md_escape, render_markdown
from gpudoctor.render.terminal import render_rich, render_terminal

SOURCE = "torch-gpudoctor 0.1.0"
META = Meta(gpudoctor_version="0.1.0", created="2025-06-01T12:00:00Z", source="live")


def healthy_facts() -> Facts:
    """A healthy H100 box with a matching torch and torchvision."""
    return Facts(
        meta=META,
        platform=PlatformFacts(
            system="Linux", release="6.8.0-45-generic", machine="x86_64", distro="Ubuntu 24.04.1 LTS",
            libc="glibc 2.39", python_version="3.11.9", python_executable="/opt/venv/bin/python",
        ),
        driver=DriverFacts(source="nvml", version="560.35.03", cuda_version="12.6", gpu_count=1),
        gpus=(Gpu(index=0, name="NVIDIA H100 80GB HBM3", compute_capability=(9, 0), memory_total_mib=81559),),
        torch=TorchFacts(
            installed=True, version="2.6.0+cu126", cuda="12.6", cuda_compiled=True,
            arch_flags=("sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"),
            cudnn_version=90501, is_available=True, device_count=1,
            devices=(TorchDevice(index=0, name="NVIDIA H100 80GB HBM3", compute_capability=(9, 0)),),
        ),
        torchvision=CompanionFacts(installed=True, version="0.21.0+cu126", cuda="12.6"),
        packages=(Distribution("torch", "2.6.0+cu126"), Distribution("torchvision", "0.21.0+cu126")),
    )


def broken_facts() -> Facts:
    """An RTX 5090 with a cu126 wheel and a torchvision from another release."""
    base = healthy_facts()
    return dataclasses.replace(
        base,
        gpus=(Gpu(index=0, name="NVIDIA GeForce RTX 5090", compute_capability=(12, 0)),),
        torch=dataclasses.replace(
            base.torch,
            init_error="NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current "
            "PyTorch installation.",
            loaded_libraries=("/opt/venv/lib/python3.11/site-packages/torch/lib/libtorch_cuda.so",),
        ),
        torchvision=CompanionFacts(installed=True, version="0.22.0+cu128", cuda="12.8"),
        env=EnvFacts(variables=(("CUDA_VISIBLE_DEVICES", "0"),)),
        probe_errors=(("toolkit", "nvcc not found on PATH or under CUDA_HOME"),),
        inferred=("torchvision.cuda",),
    )


def _result(check: str, title: str, *findings: Finding, status: Status = Status.PASS,
            source: str = SOURCE, reason: str | None = None) -> CheckResult:
    return CheckResult(check, title, source, status, tuple(findings), reason)


ARCH = Finding(
    code="gpu.arch-too-new",
    severity=Severity.ERROR,
    summary="torch 2.6.0+cu126 has kernels for sm_50..sm_90; GPU 0 (NVIDIA GeForce RTX 5090) is sm_120",
    detail="No kernel in this wheel runs on compute capability 12.0, and its PTX (compute_90) cannot be\n"
    "compiled for it either. Every CUDA call fails with 'no kernel image is available'.",
    fix=Fix(
        "Install torch 2.7.0 built with CUDA 12.8, which has sm_120 kernels:",
        (
            "/opt/venv/bin/python -m pip install --force-reinstall torch==2.7.0 torchvision==0.22.0 "
            "--index-url https://download.pytorch.org/whl/cu128",
        ),
    ),
    links=("https://pytorch.org/get-started/locally/",),
    evidence=("torch.arch_flags", "gpus.0.compute_capability"),
)
VISION = Finding(
    code="torchvision.version-mismatch",
    severity=Severity.WARNING,
    summary="torchvision 0.22.0 belongs to torch 2.7, not torch 2.6.0",
    detail="torchvision's C++ operators (nms, roi_align) are built against one torch release.",
    fix=Fix("Install the torchvision of this torch:", ("python -m pip install torchvision==0.21.0",)),
    evidence=("torchvision.version", "torch.version"),
    inferred=True,
)
DRIVER_NOTE = Finding(
    code="driver.cuda-version",
    severity=Severity.INFO,
    summary="driver 560.35.03 supports CUDA up to 12.6",
    evidence=("driver.version",),
)


def healthy_report() -> Report:
    return Report(
        facts=healthy_facts(),
        results=(
            _result("driver", "NVIDIA driver", DRIVER_NOTE),
            _result("gpu.arch", "GPU architecture vs the wheel's kernels"),
            _result("torchvision", "torchvision matches torch"),
        ),
    )


def broken_report() -> Report:
    return Report(
        facts=broken_facts(),
        results=(
            _result("driver", "NVIDIA driver", DRIVER_NOTE),
            _result("gpu.arch", "GPU architecture vs the wheel's kernels", ARCH, status=Status.FAIL),
            _result("torchvision", "torchvision matches torch", VISION, status=Status.WARN),
            _result("devices", "Visible devices", status=Status.SKIP,
                    reason="torch.device_count is not known (the torch probe timed out)"),
            _result("acme.cooling", "Cooling | airflow", status=Status.CRASH, source="acme-checks 1.2",
                    reason="ZeroDivisionError: division by zero at cooling.py:3 (report this to acme-checks 1.2)"),
        ),
    )


def test_terminal_healthy(golden) -> None:
    golden("terminal-healthy.txt", render_terminal(healthy_report()))


def test_terminal_broken(golden) -> None:
    golden("terminal-broken.txt", render_terminal(broken_report()))


def test_terminal_broken_verbose(golden) -> None:
    golden("terminal-broken-verbose.txt", render_terminal(broken_report(), verbose=True))


def test_markdown_healthy(golden) -> None:
    golden("markdown-healthy.md", render_markdown(healthy_report()))


def test_markdown_broken(golden) -> None:
    golden("markdown-broken.md", render_markdown(broken_report()))


def test_markdown_broken_verbose_adds_the_notes(golden) -> None:
    plain = render_markdown(broken_report())
    verbose = render_markdown(broken_report(), verbose=True)
    notes = "#### Notes\n\n- driver 560.35.03 supports CUDA up to 12.6 (`driver.cuda-version`)\n\n"
    assert verbose == plain.replace("</details>", notes + "</details>", 1)


def test_json_healthy(golden) -> None:
    golden("json-healthy.json", render(healthy_report(), Format.JSON))


def test_json_broken(golden) -> None:
    golden("json-broken.json", render(broken_report(), Format.JSON))


def test_json_keys_are_stable() -> None:
    data = json.loads(render(broken_report(), Format.JSON))
    assert list(data) == ["schema", "facts", "results"]
    assert list(data["results"][1]) == ["check", "title", "source", "status", "reason", "findings"]
    assert list(data["results"][1]["findings"][0]) == [
        "code", "severity", "summary", "detail", "fix", "links", "evidence", "inferred", "short", "cause",
    ]
    assert data["results"][1]["findings"][0]["fix"] == {"text": ARCH.fix.text, "commands": list(ARCH.fix.commands)}
    assert Facts.from_dict(data["facts"]) == broken_facts()


def test_render_dispatches_to_each_format() -> None:
    report = broken_report()
    assert render(report, Format.TERMINAL) == render_terminal(report)
    assert render(report, Format.TERMINAL, verbose=True) == render_terminal(report, verbose=True)
    assert render(report, Format.MARKDOWN) == render_markdown(report)


def test_rich_text_has_the_same_characters_as_the_plain_text() -> None:
    report = broken_report()
    styled = render_rich(report, verbose=True)
    assert styled.plain == render_terminal(report, verbose=True)
    assert {str(span.style) for span in styled.spans} >= {"red", "yellow", "magenta", "bold cyan"}


def _summary(*results: CheckResult) -> str:
    return summary_line(Report(facts=Facts(), results=results))


def test_summary_lines() -> None:
    passed = _result("a", "A")
    skipped = _result("b", "B", status=Status.SKIP, reason="r")
    crashed = _result("c", "C", status=Status.CRASH, reason="boom")
    error = _result("d", "D", ARCH, VISION, status=Status.FAIL)
    assert _summary() == "No checks ran."
    assert _summary(passed) == "No problems found."
    assert _summary(passed, skipped) == "No problems found in the 1 check that ran; 1 check skipped."
    assert _summary(skipped, skipped) == "Nothing could be checked: all 2 checks were skipped."
    assert _summary(passed, crashed) == "1 problem found: 1 crashed check."
    assert _summary(error, crashed, skipped) == (
        "3 problems found: 1 error, 1 warning, 1 crashed check. 1 check skipped."
    )


def test_md_escape_and_fences() -> None:
    assert md_escape("torch/__init__.py | ~/x <user> *a* [b]") == (
        "torch/\\_\\_init\\_\\_.py \\| \\~/x \\<user\\> \\*a\\* \\[b\\]"
    )
    assert fence("echo `a`", "sh") == "```sh\necho `a`\n```"
    assert fence("a\n```\nb", "text") == "````text\na\n```\nb\n````"


def _huge_report() -> Report:
    facts = broken_facts()
    libs = tuple(f"/opt/venv/lib/python3.11/site-packages/nvidia/lib/libhuge{i:05d}.so" for i in range(2000))
    facts = dataclasses.replace(
        facts, torch=dataclasses.replace(facts.torch, loaded_libraries=libs, import_traceback="x" * 60_000)
    )
    return dataclasses.replace(broken_report(), facts=facts)


def test_markdown_stays_under_githubs_limit_by_shrinking_the_facts() -> None:
    report = _huge_report()
    text = render_markdown(report)
    assert len(text) <= 65_536
    note = (
        "*Facts shortened to fit GitHub's 65,536-character limit: dropped torch.loaded\\_libraries; "
        "import tracebacks.*"
    )
    assert note in text.splitlines()
    embedded = json.loads(text.split(FACTS_MARKER + "\n```json\n", 1)[1].split("\n```\n", 1)[0])
    shrunk = Facts.from_dict(embedded)
    assert shrunk.torch.loaded_libraries == ()
    assert shrunk.torch.import_traceback is None
    assert shrunk.extra == (("markdown.dropped", "torch.loaded_libraries; import tracebacks"),)
    assert shrunk.gpus == report.facts.gpus


def test_markdown_without_facts_when_nothing_fits() -> None:
    text = render_markdown(broken_report(), limit=3000)
    assert len(text) <= 3000
    assert FACTS_MARKER not in text
    assert text.endswith(
        "*The facts are too large to embed within GitHub's 3,000-character limit; attach the output of "
        "`gpudoctor facts -o facts.json` instead.*\n"
    )


def test_tracebacks_fold_to_their_last_line_unless_verbose() -> None:
    from gpudoctor.render.terminal import fold_tracebacks

    detail = (
        "Importing torch failed.\n"
        "Traceback (most recent call last):\n"
        '  File "/env/lib/python3.11/site-packages/torch/__init__.py", line 409, in <module>\n'
        "    from torch._C import *\n"
        '  File "<frozen importlib._bootstrap>", line 1176, in _find_and_load\n'
        "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory\n"
        "See the fix below."
    )
    assert fold_tracebacks(detail) == (
        "Importing torch failed.\n"
        "(a traceback of 2 frames ends in the line below; -v shows it)\n"
        "ImportError: libcudnn.so.9: cannot open shared object file: No such file or directory\n"
        "See the fix below."
    )
    assert fold_tracebacks("no traceback here") == "no traceback here"


def test_every_report_says_how_far_its_compatibility_data_reaches() -> None:
    from gpudoctor import compat

    reach = f"data to torch {compat.newest_torch()} of {compat.DATA_DATE}"
    report = Report(facts=Facts())
    assert reach in render(report, Format.TERMINAL, False).splitlines()[0]
    assert reach in [line for line in render(report, Format.MARKDOWN, False).splitlines() if line][1]
