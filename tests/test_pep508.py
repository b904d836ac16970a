"""Requires-Dist parsing and evaluation against what `packaging` itself decides."""

from __future__ import annotations

import pytest
from packaging.requirements import Requirement as Reference

from gpudoctor.pep508 import InvalidRequirement, parse_requirement

LINUX = {"platform_system": "Linux", "platform_machine": "x86_64", "sys_platform": "linux", "python_version": "3.12"}
WINDOWS = {"platform_system": "Windows", "platform_machine": "AMD64", "sys_platform": "win32", "python_version": "3.9"}

LINES = [
    'nvidia-cudnn-cu12==9.5.1.17; platform_system == "Linux" and platform_machine == "x86_64"',
    'cuda-toolkit[cublas,cudart]==13.0.3; platform_system == "Linux"',
    "torch==2.13.0",
    "torch>=2.14.0",
    "filelock",
    'typing-extensions>=4.10.0',
    'setuptools; python_version >= "3.12"',
    'triton==3.2.0; platform_system == "Linux" and platform_machine == "x86_64" and python_version < "3.13"',
    'numpy (>=1.21,<3)',
    'nvidia-nccl-cu12==2.21.5; (platform_system == "Linux" or sys_platform == "win32") and extra == "cuda"',
    'opt-einsum>=3.3; extra == "opt-einsum"',
    "sympy~=1.13.1",
    "jinja2!=3.0.*",
]


@pytest.mark.parametrize("line", LINES)
@pytest.mark.parametrize("env", [LINUX, WINDOWS])
@pytest.mark.parametrize("extra", ["", "cuda", "opt_einsum"])
def test_markers_agree_with_packaging(line: str, env: dict, extra: str) -> None:
    ours, ref = parse_requirement(line), Reference(line)
    assert ours.name == ref.name
    assert ours.extras == ref.extras
    full = {**env, "extra": extra}
    expected = ref.marker.evaluate(full) if ref.marker else True
    assert (ours.marker.evaluate(full) if ours.marker else True) == expected


@pytest.mark.parametrize("line", LINES)
@pytest.mark.parametrize("version", ["2.13.0", "2.13.0+cpu", "2.14.1", "9.5.1.17", "1.13.3", "3.0.1", "3.1.4", "2.0"])
def test_specifiers_agree_with_packaging(line: str, version: str) -> None:
    ours, ref = parse_requirement(line), Reference(line)
    assert ours.specifier.contains(version, prereleases=True) == ref.specifier.contains(version, prereleases=True)


def test_str_round_trip_and_bad_lines() -> None:
    assert str(parse_requirement("torch>=2.14.0")) == "torch>=2.14.0"
    assert str(parse_requirement('cuda-toolkit[cudart,cublas]==13.0.3; platform_system == "Linux"')) == (
        'cuda-toolkit[cublas,cudart]==13.0.3; platform_system == "Linux"'
    )
    for bad in ["", "torch @ https://example.invalid/torch.whl", "torch==", 'torch; os_name ==', "torch; (a == 'b'"]:
        with pytest.raises(InvalidRequirement):
            parse_requirement(bad)
