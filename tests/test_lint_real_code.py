"""No false positives on real, correct training code: excerpts of pytorch/examples (see each fixture's header)."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

from gpudoctor.lint.engine import lint_paths
from gpudoctor.lint.registry import discover

EXAMPLES = Path(__file__).resolve().parent / "fixtures" / "lint" / "pytorch_examples"


def counts(select: tuple) -> Counter:
    result = lint_paths([str(EXAMPLES)], discover(plugins=False).select(select))
    assert result.errors == () and result.files == 5
    return Counter((Path(d.path).name, d.code) for d in result.diagnostics)


def test_default_rules_find_only_the_data_parallel_imagenet_really_uses() -> None:
    # imagenet/main.py falls back to nn.DataParallel on one machine; nothing else is reported
    assert counts(()) == Counter({("imagenet_main.py", "GD206"): 2})


def test_no_correctness_rule_fires_on_any_example() -> None:
    assert counts(("GD1",)) == Counter()


def test_the_opt_in_sync_rule_finds_the_per_step_loss_items() -> None:
    # imagenet's losses.update(loss.item(), ...) and word_language_model's total_loss += loss.item()
    assert counts(("GD203",)) == Counter({("imagenet_main.py", "GD203"): 1,
                                          ("word_language_model_main.py", "GD203"): 1})


def test_linting_never_imports_torch_or_the_script() -> None:
    code = ("import sys\nfrom gpudoctor.lint.engine import lint_paths\nfrom gpudoctor.lint.registry import discover\n"
            f"lint_paths([{str(EXAMPLES)!r}], discover(plugins=False).select(['ALL']))\n"
            "assert 'torch' not in sys.modules and 'mnist_main' not in sys.modules, sorted(sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
