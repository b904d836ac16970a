"""The hand-kept tables (releases.py, wheels.py, cudnn.py) against pytorch/test-infra's build matrix.

Each failure names the torch release, the channel and the test-infra commit that disagrees. Nightly rows are
not compared: a nightly matrix says what was being built months before a release, not what it shipped (2.15's
nightly still built cu126, which 2.15.0 dropped).
"""

from __future__ import annotations

from typing import Dict, List, Set, Tuple

import pytest
from gpudoctor.compat import bundled_cudnn, release_for_torch
from gpudoctor.compat.build_matrix import BUILD_MATRIX
from gpudoctor.compat.matrix_history import MatrixRow, rows_of
from gpudoctor.compat.pypi import python_tags
from gpudoctor.compat.wheels import published_variants

ROWS = rows_of(BUILD_MATRIX)
COMPARED = [row for row in ROWS if row.channel != "nightly"]
GO_LIVE = [row for row in COMPARED if row.channel == "release"]
PLATFORMS = {"linux": ("Linux", "x86_64"), "aarch64": ("Linux", "aarch64"), "windows": ("Windows", "AMD64")}


def _name(row: MatrixRow) -> str:
    return f"{row.torch}-{row.channel}"


def _where(row: MatrixRow) -> str:
    return f"torch {row.torch}: test-infra {row.channel} channel at {row.ref} {row.commit[:12]} ({row.date})"


def _py(text: str) -> Tuple[int, int]:
    major, minor = text.rstrip("t").split(".")
    return (int(major), int(minor))


@pytest.mark.parametrize("row", COMPARED, ids=_name)
def test_every_variant_the_matrix_builds_is_in_the_tables(row: MatrixRow) -> None:
    for key, (system, machine) in PLATFORMS.items():
        built = getattr(row, key)
        if built is None:
            continue  # that version of the file states no list for this platform
        known = published_variants(row.torch, system, machine)
        missing = [variant for variant in built if variant not in known]
        assert not missing, f"{_where(row)} builds {key} {missing}; the tables have {known}"


def test_the_tables_claim_no_variant_the_matrix_never_built() -> None:
    """For each release the matrix covers, every variant of the tables is in some release or test row of it."""
    built: Dict[Tuple[str, str], Set[str]] = {}
    for row in COMPARED:
        for key in PLATFORMS:
            listed = getattr(row, key)
            if listed is not None:
                built.setdefault((row.minor, key), set()).update(listed)
    claims: List[str] = []
    for (minor, key), variants in sorted(built.items()):
        release = release_for_torch(minor)
        assert release is not None, minor
        system, machine = PLATFORMS[key]
        extra = [v for v in published_variants(release.latest.torch, system, machine) if v not in variants]
        if extra:
            claims.append(f"torch {minor} {key}: the tables have {extra}; test-infra built {sorted(variants)}")
    assert not claims, "\n".join(claims)


@pytest.mark.parametrize("row", GO_LIVE, ids=_name)
def test_python_range_and_default_variant_match_the_go_live_matrix(row: MatrixRow) -> None:
    release = release_for_torch(row.torch)
    assert release is not None, _where(row)
    pythons = sorted({_py(p) for p in row.python})
    assert release.python == (pythons[0], pythons[-1]), (
        f"{_where(row)} lists Python {row.python}; releases.py has {release.python_text}")
    if row.stable is not None:  # STABLE_CUDA_VERSIONS exists from 2.7 on: what PyPI's Linux wheel is
        assert release.pypi_default == row.stable, (
            f"{_where(row)} makes {row.stable} the default; releases.py has {release.pypi_default}")


@pytest.mark.parametrize("row", GO_LIVE, ids=_name)
def test_pypi_has_a_wheel_for_every_python_the_go_live_matrix_lists(row: MatrixRow) -> None:
    """The matrix (SECONDARY) against PyPI's own files (CONFIRMED): cp313t for "3.13t"."""
    tags = python_tags("torch", row.torch)
    assert tags, f"{_where(row)}: PyPI has no torch {row.torch}"
    missing = [p for p in row.python if f"cp{p.replace('.', '')}" not in tags]
    assert not missing, f"{_where(row)} lists Python {missing}; PyPI's torch {row.torch} wheels are {tags}"


@pytest.mark.parametrize("row", COMPARED, ids=_name)
def test_the_cudnn_major_matches_the_matrix(row: MatrixRow) -> None:
    for variant, major in row.cudnn:
        known = bundled_cudnn(row.torch, variant)
        if known is None:
            continue  # cudnn.py does not claim one
        have = known // 10000 if known >= 90000 else known // 1000
        assert str(have) == major, f"{_where(row)}: {variant} uses cuDNN {major}; cudnn.py has {known}"


def test_the_matrix_reaches_the_releases_it_should() -> None:
    """Go-live rows from 2.0.0 to 2.13.0, a candidate row for 2.14.0, and the 2.15 nightly, all dated."""
    go_live = {row.torch for row in GO_LIVE}
    assert {"2.0.0", "2.7.0", "2.11.0", "2.12.1", "2.13.0"} <= go_live
    assert any(row.torch == "2.14.0" and row.channel == "test" for row in ROWS)
    assert all(row.date and row.commit for row in ROWS)
    by_minor = {(row.minor, row.channel): row for row in COMPARED}
    assert "cu129" in by_minor[("2.13", "test")].linux and "cu129" in (by_minor[("2.13", "test")].aarch64 or ())
    assert by_minor[("2.11", "release")].stable == "cu130"
