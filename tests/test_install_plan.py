"""Install plans are values; one renderer turns them into commands for a shell and an interpreter."""

from __future__ import annotations

import pytest

from gpudoctor.recommend import InstallPlan, NewEnv, Package, Step, Target, recommend
from gpudoctor.recommend import render
from gpudoctor.shell import Shell, UnsafeValue

CU128 = InstallPlan((Package("torch", "2.14.1", "cu128"), Package("torchvision", "0.29.2", "cu128")), "cu128",
                    "https://download.pytorch.org/whl/cu128")


@pytest.mark.parametrize("text", ["torch", "torch==2.6.0", "torch==2.6.0+cu126", "nvidia-cudnn-cu12>=9.1",
                                  "torch==2.6.0+", "$(touch x)", "torch==1==2", "a[b]==1"])
def test_a_requirement_text_survives_the_round_trip(text: str) -> None:
    assert Package.parse(text).requirement == text


def test_a_pin_is_read_into_version_and_local_tag() -> None:
    assert Package.parse("torch==2.6.0+cu126") == Package("torch", "2.6.0", "cu126")
    assert Package.parse("nvidia-cudnn-cu12>=9.1") == Package("nvidia-cudnn-cu12", specifier=">=9.1")


def test_the_plan_renders_for_each_shell() -> None:
    tail = "torch==2.14.1+cu128 torchvision==0.29.2+cu128 --index-url https://download.pytorch.org/whl/cu128"
    assert render.commands(CU128) == (f"pip install {tail}",)
    assert render.commands(CU128, Target(Shell.POSIX, "/opt/my env/bin/python")) == (
        f"'/opt/my env/bin/python' -m pip install {tail}",)
    assert render.commands(CU128, Target(Shell.POWERSHELL, "C:\\Program Files\\Py's\\python.exe")) == (
        f"& 'C:\\Program Files\\Py''s\\python.exe' -m pip install {tail}",)
    assert render.commands(CU128, Target(Shell.CMD, "C:\\Py 3\\python.exe")) == (
        f'"C:\\Py 3\\python.exe" -m pip install {tail}',)


def test_force_and_a_new_environment_are_rendered_from_the_plan() -> None:
    plan = InstallPlan((Package("torch", "2.14.1", "cpu"),), "cpu", None, True, "pip would keep it",
                       new_env=NewEnv("3.13"))
    assert render.commands(plan, Target(python="/usr/bin/python3")) == (
        "python3.13 -m venv .venv-torch", ".venv-torch/bin/python -m pip install --force-reinstall torch==2.14.1+cpu")
    assert render.commands(plan, Target(Shell.POWERSHELL, "python"))[-1].startswith(
        ".venv-torch\\Scripts\\python.exe -m pip install --force-reinstall ")


def test_hostile_words_are_quoted_or_refused() -> None:
    plan = InstallPlan((Package.parse("torch; rm -rf ~"),))
    assert render.commands(plan) == ("pip install 'torch; rm -rf ~'",)
    with pytest.raises(UnsafeValue):
        render.commands(plan, Target(python="/x\n/python"))
    assert render.steps((Step(("install", "."), pip=True), Step(line="cd pytorch")), Target(python="/a b/py")) == (
        "'/a b/py' -m pip install .", "cd pytorch")


def test_the_recommender_answers_with_a_plan() -> None:
    rec = recommend([(8, 9)], "580.95.05", "Linux", "x86_64", "3.12.3", None)
    assert rec.plan is not None and rec.plan.variant == rec.variant and rec.plan.index_url == rec.index_url
    assert rec.plan.package("torch") == Package("torch", rec.torch.split("+")[0], rec.variant)
    assert rec.plan.confidence is rec.confidence and not rec.plan.force_reinstall
    again = recommend([(8, 9)], "580.95.05", "Linux", "x86_64", "3.12.3", rec.torch)
    assert again.plan is not None and again.plan.force_reinstall and rec.torch in again.plan.force_reason
