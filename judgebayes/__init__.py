"""judgebayes: what LLM judges' verdicts really say, with honest uncertainty.

The public API is loaded lazily: ``import judgebayes`` imports neither pymc, pytensor,
arviz nor even numpy-heavy submodules until a name is first used.

>>> import judgebayes as jb
>>> round(jb.estimators.rogan_gladen(0.62, 0.7, 0.9), 4)
0.5333
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> module that defines it; everything else lives in a namespace
_EXPORTS: dict[str, str] = {
    # the studies: data in, a Fit out
    "AccuracyStudy": "judgebayes.studies.accuracy",
    "ItemStudy": "judgebayes.studies.items",
    "ScoreStudy": "judgebayes.studies.scores",
    "RepeatsStudy": "judgebayes.studies.repeats",
    "ValidatorPanel": "judgebayes.studies.panel",
    "PairwiseRanking": "judgebayes.studies.ranking",
    "LeaderboardStudy": "judgebayes.studies.leaderboard",
    # results
    "Fit": "judgebayes.results",
    "compare": "judgebayes.results",
    "compare_loo": "judgebayes.studies.ranking",
    "compare_posteriors": "judgebayes.studies.ranking",
    "load_fit": "judgebayes.studies.archive",
    "plot_forest": "judgebayes.results",
    "plot_check": "judgebayes.results",
    "plot_intervals": "judgebayes.results",
    "plot_ranks": "judgebayes.results",
    # the workflows a user starts from
    "agreement": "judgebayes.workflows.agreement",
    "monitor": "judgebayes.workflows.monitor",
    "sequential_decision": "judgebayes.workflows.monitor",
    "active_estimate": "judgebayes.workflows.label_next",
    "variance_split": "judgebayes.workflows.repeats",
    "human_error_interval": "judgebayes.workflows.labeller_error",
    "split_protocol": "judgebayes.workflows.split_protocol",
    "accuracy_report": "judgebayes.report",
    "leaderboard": "judgebayes.workflows.leaderboard",
    # priors and sampler settings, as data
    "AccuracyPriors": "judgebayes.models.accuracy",
    "PanelPriors": "judgebayes.models.panel",
    "RankingPriors": "judgebayes.models.ranking",
    "BoardPriors": "judgebayes.models.leaderboard",
    "SamplerConfig": "judgebayes.models.sampler",
    "set_progress": "judgebayes.inference.progress",
    # what a user catches (the rest, the warnings among them: jb.errors)
    "JudgeBayesError": "judgebayes.errors",
    "InputError": "judgebayes.errors",
}

# public namespaces (in ``__all__``): closed forms, designs and budgets, data in, simulators,
# the real data sets, the errors
_NAMESPACES = ("estimators", "plan", "io", "simulate", "datasets", "errors")
# the package's layers: importable, not offered by tab completion
_SUBMODULES = (
    *_NAMESPACES,
    "data",
    "models",
    "results",
    "inference",
    "studies",
    "workflows",
    "report",
    "cli",
)

__all__ = [*sorted(_EXPORTS), *_NAMESPACES, "__version__"]

# names no longer public, and where each is importable now
_PRIVATE = {
    "optimal_calibration_ratio": "jb.plan.allocate_calibration answers its question",
    "Study": "judgebayes.studies.base.Study",
    "Diagnostics": "judgebayes.inference.nuts.gate.Diagnostics",
    "Report": "judgebayes.report.Report",
    "SplitProtocolResult": "judgebayes.workflows.split_protocol.SplitProtocolResult",
}


def _moved(name: str) -> str:
    """Where a name that is not at the top level lives now, or ''."""
    if name in _PRIVATE:
        return f"it is no longer public: {_PRIVATE[name]}"
    if name.endswith("Fit") and name[:1].isupper():
        return "the fit classes are not public: a study's fit() returns one (jb.Fit documents it)"
    for space in _NAMESPACES:
        if name in getattr(importlib.import_module(f"judgebayes.{space}"), "__all__", ()):
            return f"it moved: jb.{space}.{name}"
    for home in _HOMES:  # a family's model variants and the readers' roles objects
        if name in getattr(importlib.import_module(f"judgebayes.{home}"), "__all__", ()):
            return f"it lives in its family: from judgebayes.{home} import {name}"
    return ""


# where a family's model variants and roles objects live (asked of jb, each is named)
_HOMES = tuple(
    f"{layer}.{family}"
    for layer, families in (
        ("studies", ("accuracy", "items", "scores", "repeats", "panel", "ranking", "leaderboard")),
        ("data", ("items", "scores")),
    )
    for family in families
)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value  # cache: later look-ups skip __getattr__
        return value
    if name in _SUBMODULES:
        return importlib.import_module(f"judgebayes.{name}")
    where = _moved(name) if not name.startswith("_") else ""
    raise AttributeError(
        f"module 'judgebayes' has no attribute {name!r}" + (f"; {where}" if where else "")
    )


def __dir__() -> list[str]:
    # the public names and the module's dunders: not the helpers it imports for itself
    own = {n for n in globals() if n.startswith("__") or n in _EXPORTS or n in _NAMESPACES}
    return sorted(own | set(__all__))
