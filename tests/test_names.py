"""Distribution names are compared in one way everywhere: packaging's canonicalize_name (PEP 503)."""

from __future__ import annotations

import re
from pathlib import Path

from gpudoctor.facts import Distribution, Facts
from gpudoctor.parsers.collect_env.packages import parse_packages

ROOT = Path(__file__).resolve().parent.parent
# Only the torch child runs stdlib-only inside the target interpreter, where packaging may be missing.
OWN_NORMALISER_ALLOWED = {ROOT / "doctor" / "probes" / "torch_child.py"}
HAND_WRITTEN = re.compile(r"""\.replace\(\s*["']_["']\s*,\s*["']-["']\s*\)|re\.sub\(\s*r?["']\[-_\.\]\+["']""")


def test_no_module_writes_its_own_name_normaliser() -> None:
    found = [
        str(path.relative_to(ROOT))
        for folder in ("doctor", "checks")
        for path in sorted((ROOT / folder).rglob("*.py"))
        if path not in OWN_NORMALISER_ALLOWED and HAND_WRITTEN.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_scan_finds_a_hand_written_normaliser() -> None:
    assert HAND_WRITTEN.search('name.lower().replace("_", "-")')
    assert HAND_WRITTEN.search('re.sub(r"[-_.]+", "-", name)')
    assert HAND_WRITTEN.search((ROOT / "doctor" / "probes" / "torch_child.py").read_text(encoding="utf-8"))


def test_facts_find_a_package_under_any_spelling_of_its_name() -> None:
    facts = Facts(packages=(Distribution("Typing__Extensions", "4.12.2"), Distribution("nvidia_cudnn.cu12", "9.1")))
    assert facts.package("typing-extensions") == facts.packages[0]  # runs of separators count as one
    assert facts.package("NVIDIA-CUDNN-CU12") == facts.packages[1]
    assert facts.package("typing-extension") is None


def test_a_pasted_package_list_is_looked_up_by_canonical_name() -> None:
    packages = parse_packages(["[pip3] Nvidia__CuDNN.cu12==9.1.0.70", "[pip3] torch==2.14.1"])
    assert packages.pip_version("nvidia-cudnn-cu12") == "9.1.0.70"
    assert packages.pip_version("torch") == "2.14.1"
