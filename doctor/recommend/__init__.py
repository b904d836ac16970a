"""The fix recommender: which torch build to install on a machine, as an install plan, and the plan's commands.

    recommend(ccs, driver_version, system, machine, python_version, current_torch,
              *, with_torchvision=True, with_torchaudio=False, gpu_names=None) -> Recommendation
        the newest official build covering every GPU that the driver runs, as ``Recommendation.plan``
        (an ``InstallPlan``), or ok False with .reason and .options; ValueError for a value in ccs that is no CC

``render.commands(plan, Target(shell, python, installer))`` is the one place a plan becomes commands. The
tables the recommender reads live in ``gpudoctor.compat``.
"""

from __future__ import annotations

from gpudoctor.recommend.choose import recommend
from gpudoctor.recommend.plan import InstallPlan, NewEnv, Package, Step
from gpudoctor.recommend.recommendation import Option, Recommendation
from gpudoctor.recommend.render import Target

__all__ = ["InstallPlan", "NewEnv", "Option", "Package", "Recommendation", "Step", "Target", "recommend"]
