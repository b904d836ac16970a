"""Root causes: one cause seen by several checks counts once, in the summary and in the terminal report."""

from __future__ import annotations

from typing import Tuple

from gpudoctor.causes import CONSEQUENCES, causes
from gpudoctor.facts import Facts
from gpudoctor.model import CheckResult, Finding, Fix, Report, Severity, Status
from gpudoctor.render.common import problem_count, summary_line
from gpudoctor.render.terminal import render_terminal, skip_topic

SOURCE = "torch-gpudoctor 0.1.0"
IMPORT = Finding("torchvision.import-failed", Severity.ERROR, "import torchvision fails",
                 fix=Fix("Install torch and torchvision together.", ("pip install torch torchvision",)))
UNRELEASED = Finding("packages.unreleased-combination", Severity.WARNING, "never released together",
                     detail="Observed: a CUDA torchvision beside a CPU torch.",
                     fix=Fix("Install the released set.", ("pip install --force-reinstall torch torchvision",)))


def _result(check: str, status: Status, *findings: Finding, reason: str = "") -> CheckResult:
    return CheckResult(check, check.title(), SOURCE, status, findings, reason or None)


def _report(*results: CheckResult) -> Report:
    return Report(facts=Facts(), results=results)


def _vision_pair() -> Tuple[CheckResult, CheckResult]:
    return (_result("torchvision", Status.FAIL, IMPORT),
            _result("packages.unreleased-combination", Status.WARN, UNRELEASED))


def test_a_listed_consequence_joins_the_finding_that_explains_it() -> None:
    report = _report(*_vision_pair())
    (cause,) = causes(report)
    assert cause.lead is IMPORT and cause.symptoms == (UNRELEASED,)
    assert cause.checks == ("torchvision", "packages.unreleased-combination")
    assert cause.severity is Severity.ERROR
    assert problem_count(report) == 1
    assert summary_line(report) == "1 problem (1 cause, seen in 2 findings) found: 1 error."


def test_a_consequence_alone_is_its_own_cause() -> None:
    report = _report(_result("packages.unreleased-combination", Status.WARN, UNRELEASED))
    (cause,) = causes(report)
    assert cause.lead is UNRELEASED and cause.symptoms == ()
    assert summary_line(report) == "1 problem found: 1 warning."


def test_findings_of_one_code_without_a_declared_cause_stay_apart() -> None:
    one = Finding("env.bad", Severity.WARNING, "CUDA_HOME is wrong")
    two = Finding("env.bad", Severity.WARNING, "LD_LIBRARY_PATH is wrong")
    report = _report(_result("env", Status.WARN, one, two))
    assert len(causes(report)) == 2
    assert summary_line(report) == "2 problems found: 2 warnings."


def test_a_declared_cause_groups_findings_across_checks() -> None:
    one = Finding("a.x", Severity.WARNING, "first", cause="wheel")
    two = Finding("b.y", Severity.ERROR, "second", cause="wheel")
    report = _report(_result("a", Status.WARN, one), _result("b", Status.FAIL, two))
    (cause,) = causes(report)
    assert cause.severity is Severity.ERROR and cause.checks == ("a", "b")
    assert summary_line(report) == "1 problem (1 cause, seen in 2 findings) found: 1 error."


def test_info_findings_and_crashes() -> None:
    note = Finding("driver.ok", Severity.INFO, "fine")
    crashed = CheckResult("acme", "Acme", "acme 1.0", Status.CRASH, (), "boom")
    report = _report(_result("driver", Status.PASS, note), crashed)
    (cause,) = causes(report)
    assert cause.lead.code == "crash:acme"
    assert summary_line(report) == "1 problem found: 1 crashed check."


def test_every_consequence_names_codes_the_checks_emit() -> None:
    import pathlib

    from gpudoctor.checks.support.paste_causes import CAUSES

    sources = "".join(p.read_text() for p in pathlib.Path(__file__).parent.parent.joinpath("checks").glob("*.py"))
    for symptom, leads in CONSEQUENCES.items():
        pasted = symptom.startswith("paste.") and symptom[len("paste."):] in CAUSES  # paste.errors builds these
        assert pasted or f'"{symptom}"' in sources
        assert all(f'"{code}"' in sources or (code.startswith("paste.") and code[len("paste."):] in CAUSES)
                   for code in leads), symptom


def test_terminal_shows_the_symptom_once_and_points_at_the_cause() -> None:
    text = render_terminal(_report(*_vision_pair()))
    assert text.count("pip install torch torchvision") == 1
    assert "pip install --force-reinstall" not in text
    assert 'Same cause as "Torchvision" above; its fix covers this.' in text
    verbose = render_terminal(_report(*_vision_pair()), verbose=True)
    assert "pip install --force-reinstall" in verbose


def test_passing_rows_carry_their_short_status() -> None:
    ok = Finding("driver.ok", Severity.INFO, "NVIDIA driver 570.133.07 (CUDA 12.8); new enough",
                 short="570.133.07, CUDA 12.8")
    plain = Finding("env.ok", Severity.INFO, "nothing set")
    text = render_terminal(_report(_result("driver", Status.PASS, ok), _result("env", Status.PASS, plain)))
    assert "[✓] Driver (570.133.07, CUDA 12.8)\n" in text
    assert "[✓] Env\n" in text


def test_skips_fold_by_reason_and_verbose_lists_them() -> None:
    results = [_result(f"c{i}", Status.SKIP, reason=f"no GPU list from NVML, so c{i} cannot judge (NVML library not found)")
               for i in range(3)]
    results.append(_result("win", Status.SKIP, reason="not Windows"))
    report = _report(*results)
    text = render_terminal(report)
    assert "[-] 3 checks skipped: no GPU list from NVML\n" in text
    assert "[-] Win (skipped: not Windows)\n" in text
    assert "C0" not in text
    assert text.endswith("Run with -v to see each skipped check and the evidence.\n")
    verbose = render_terminal(report, verbose=True)
    assert all(f"C{i} (skipped: no GPU list from NVML, so c{i}" in verbose for i in range(3))
    assert "Run with -v" not in verbose
    unfolded = render_terminal(_report(results[0], results[-1]))
    assert "Run with -v" not in unfolded


def test_skip_topic() -> None:
    assert skip_topic("no GPU list from NVML, so the MIG mode is not known (NVML library not found)") == (
        "no GPU list from NVML")
    assert skip_topic("gpudoctor verify was not run (only it trains models)") == "gpudoctor verify was not run"
    assert skip_topic("not Windows") == "not Windows"
    assert skip_topic("(odd)") == "(odd)"


def test_markdown_leads_with_the_cause_then_the_failing_checks_then_everything() -> None:
    from gpudoctor.render.markdown import render_markdown

    passing = _result("driver", Status.PASS, Finding("driver.ok", Severity.INFO, "fine", short="570.133.07, CUDA 12.8"))
    text = render_markdown(_report(passing, *_vision_pair()))
    cause = text.index("### ✗ 1. error: import torchvision fails")
    also = text.index("Also seen as:\n\n- ! warning: never released together")
    table = text.index("#### Checks that did not pass")
    every = text.index("<details><summary>all 3 checks</summary>")
    facts = text.index("<details><summary>facts</summary>")
    assert cause < also < table < every < facts
    assert text.count("pip install --force-reinstall") == 0  # the symptom's fix is covered by the cause's
    failing = text[table:every]
    assert "(`torchvision`)" in failing and "(`driver`)" not in failing
    assert "| Driver (`driver`) | ✓ pass | 570.133.07, CUDA 12.8 |" in text[every:facts]


def test_verify_failures_join_the_static_finding_that_explains_them() -> None:
    arch = Finding("gpu.arch-too-new", Severity.ERROR, "GPU is sm_120, wheel stops at sm_90")
    seen = Finding("verify.kernel-image-missing", Severity.ERROR, "no kernel image is available")
    report = _report(_result("gpu.arch", Status.FAIL, arch), _result("verify.smoke", Status.FAIL, seen))
    (cause,) = causes(report)
    assert cause.lead is arch and cause.symptoms == (seen,)
    alone = _report(_result("verify.smoke", Status.FAIL, seen))
    assert [c.lead for c in causes(alone)] == [seen]
