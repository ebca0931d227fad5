r"""Repeated sampling and repeated judging: where a verdict's variance comes from.

Several generations per prompt and several judge runs per generation.  One verdict
:math:`y_{igr}` (prompt :math:`i`, generation :math:`g`, run :math:`r`) varies because
prompts differ, because one prompt's generations differ, and because the judge gives
another verdict when run again.  With :math:`p_{ig}` the pass probability of generation
:math:`g` of prompt :math:`i`,

.. math::
    \mathrm{Var}(y) = \underbrace{\mathrm{Var}_i\,E_g[p_{ig}]}_\text{prompts}
    + \underbrace{E_i\,\mathrm{Var}_g[p_{ig}]}_\text{generations}
    + \underbrace{E[p_{ig}(1 - p_{ig})]}_\text{judge runs},

and the mean over :math:`I` prompts, :math:`G` generations and :math:`R` runs has variance
:math:`v_p / I + v_g / (IG) + v_r / (IGR)`: the planner (:func:`plan_repeats`) reads off
what another prompt, generation or run buys.

:func:`variance_split` estimates the three by

* ``"closed_form"``: the nested analysis of variance (method of moments, unbalanced
  designs allowed; a negative component is set to 0 and said), with modified
  large-sample intervals for the prompt and generation components and a bootstrap over
  prompts for the judge runs, and the mean's cluster-robust standard error (prompts as
  clusters, t(I - 1));
* ``"nuts"``: the hierarchical model :func:`judgebayes.models.repeats.repeated_verdicts_model`
  (logit-normal prompt and generation effects, binomial runs), whose components are
  computed from each draw over the observed prompts' own effects with Bayesian-bootstrap
  weights, so easy and hard prompts are not read through a normal's shape.

This is the judge's verdict process; what the judge's verdicts say about the human rate
is the items design's business (human labels, :meth:`judgebayes.AccuracyStudy.from_items`
with ``cluster=`` the prompt).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from judgebayes.errors import InputError
from judgebayes.inference.registry import check_count
from judgebayes.studies.repeats import COMPONENTS, RepeatsStudy, rate_interval

__all__ = ["plan_repeats", "variance_split"]


def variance_split(
    frame,
    *,
    prompt: str = "prompt",
    generation: str = "generation",
    verdict: str = "judge",
    method: str = "closed_form",
    alpha: float = 0.05,
    random_seed: int | None = None,
    sampler: Any = None,
) -> pd.DataFrame:
    """The verdict variance split into prompts, generations and judge runs, as a table.

    A convenience over :class:`~judgebayes.studies.repeats.RepeatsStudy`, whose fits are the
    package's :class:`~judgebayes.results.Fit` (``jb.compare``, diagnostics, draws).

    Parameters
    ----------
    frame : DataFrame
        One row per judge run (blank verdict = none, counted).
    prompt, generation, verdict : str
        Columns: the prompt, the generation (an id unique within its prompt) and the
        judge's verdict on that run (1 / 0, or words the package reads as such).
    method : {"closed_form", "nuts"}
        Nested analysis of variance (large-sample and bootstrap intervals), or the hierarchical
        model (NUTS with the convergence gate).
    alpha : float
        1 - the intervals' level.
    random_seed : int, optional
        Bootstrap / sampler seed.
    sampler : SamplerConfig or mapping, optional
        NUTS settings.

    Returns
    -------
    DataFrame
        One row per component (``prompt``, ``generation``, ``judge run``): ``variance``,
        ``lower``, ``upper`` and ``share`` of the verdict variance; ``attrs`` hold
        ``rate`` (with ``rate_lower`` / ``rate_upper``), ``design`` (prompts, mean
        generations per prompt, mean runs per generation), ``n_missing``, ``method``,
        ``notes`` and, for NUTS, ``diagnostics``, ``passed`` and the sds' intervals.
    """
    if method not in ("closed_form", "nuts"):
        raise InputError(
            f"method must be 'closed_form' or 'nuts'; got {method!r}", field="method", value=method
        )
    if not 0 < alpha < 1:
        raise InputError(f"alpha must be in (0, 1); got {alpha!r}", field="alpha", value=alpha)
    study = RepeatsStudy.from_frame(frame, prompt=prompt, generation=generation, verdict=verdict)
    options = {"sampler": sampler} if method == "nuts" else {}
    fit = study.fit(method, random_seed=random_seed, **options)
    iv = fit.interval(alpha=alpha)
    est = iv["estimate"].to_numpy(float)
    total = np.nansum(est)
    out = pd.DataFrame(
        {
            "component": COMPONENTS,
            "variance": est,
            "lower": iv["lower"].to_numpy(float),
            "upper": iv["upper"].to_numpy(float),
            "share": est / total if total > 0 else np.nan,
        }
    )
    rate, lo, hi = rate_interval(fit, alpha)
    attrs = {
        "method": method,
        "rate": float(rate),
        "rate_lower": float(lo),
        "rate_upper": float(hi),
        "design": fit.info["design"],
        "n_missing": fit.info["n_missing"],
        "notes": list(fit.notes),
    }
    if fit.is_point:
        attrs |= {"rate_se": fit.info["rate_se"], "bootstrap": fit.info["bootstrap"]}
    else:
        post = fit.tree.posterior
        q = (alpha / 2, 1 - alpha / 2)
        attrs |= {
            "diagnostics": fit.diagnostics.message(),
            "passed": fit.diagnostics.passed,
            "sigma_prompt": tuple(np.quantile(post["sigma_prompt"].values, q)),
            "sigma_generation": tuple(np.quantile(post["sigma_generation"].values, q)),
        }
    out.attrs = attrs
    return out


def plan_repeats(
    split: pd.DataFrame,
    *,
    budget: float,
    cost_generation: float = 1.0,
    cost_run: float = 1.0,
    design: dict | None = None,
) -> pd.DataFrame:
    r"""Where the next budget goes: more prompts, more generations or more judge runs.

    With components :math:`v_p, v_g, v_r` (a :func:`variance_split` table) the mean over
    :math:`I` prompts, :math:`G` generations and :math:`R` runs has standard error
    :math:`\sqrt{v_p / I + v_g / (IG) + v_r / (IGR)}`; a design costs
    :math:`IG(c_g + R c_r)` (``cost_generation``, ``cost_run``; a new prompt costs its
    generations and runs).  For each way of spending ``budget`` more (all of it on
    prompts, on generations per prompt, or on runs per generation), the new design, its
    standard error and the reduction.

    Parameters
    ----------
    split : DataFrame
        From :func:`variance_split`.
    budget : float
        Extra cost to spend (> 0).
    cost_generation, cost_run : float
        Cost of one generation and of one judge run.
    design : dict, optional
        ``prompts``, ``generations_per_prompt``, ``runs_per_generation``; default the
        split's own design.

    Returns
    -------
    DataFrame
        ``option``, ``prompts``, ``generations_per_prompt``, ``runs_per_generation``,
        ``cost``, ``se``, ``se_now``; sorted by ``se`` (best first).
    """
    for name, v in (
        ("budget", budget),
        ("cost_generation", cost_generation),
        ("cost_run", cost_run),
    ):
        if not (
            isinstance(v, int | float) and not isinstance(v, bool) and np.isfinite(v) and v > 0
        ):
            raise InputError(f"{name} must be a number > 0; got {v!r}", field=name, value=v)
    need = {"component", "variance"}
    if not isinstance(split, pd.DataFrame) or not need <= set(split.columns):
        raise InputError(
            "split must be the table variance_split returns (columns component, variance, "
            f"...); got {type(split).__name__} with columns {list(getattr(split, 'columns', []))}",
            field="split",
            value=type(split).__name__,
        )
    d = dict(split.attrs.get("design", {}) if design is None else design)
    keys = ("prompts", "generations_per_prompt", "runs_per_generation")
    if not all(k in d for k in keys):
        raise InputError(
            f"plan_repeats needs the design ({', '.join(keys)}): give design=, or the table "
            "variance_split returns (which carries it)",
            field="design",
            value=sorted(d),
        )
    n_i = float(check_count(round(d["prompts"]), "prompts"))
    n_g, n_r = float(d["generations_per_prompt"]), float(d["runs_per_generation"])
    v = split.set_index("component")["variance"].fillna(0.0)

    def se(i, g, r):
        return float(
            np.sqrt(v["prompt"] / i + v["generation"] / (i * g) + v["judge run"] / (i * g * r))
        )

    def cost(i, g, r):
        return i * g * (cost_generation + r * cost_run)

    now = cost(n_i, n_g, n_r)
    target = now + budget
    rows = [
        ("more prompts", target / (n_g * (cost_generation + n_r * cost_run)), n_g, n_r),
        (
            "more generations per prompt",
            n_i,
            target / (n_i * (cost_generation + n_r * cost_run)),
            n_r,
        ),
        (
            "more judge runs per generation",
            n_i,
            n_g,
            (target / (n_i * n_g) - cost_generation) / cost_run,
        ),
    ]
    out = pd.DataFrame(
        [
            {
                "option": o,
                "prompts": i,
                "generations_per_prompt": g,
                "runs_per_generation": r,
                "cost": cost(i, g, r),
                "se": se(i, g, r),
                "se_now": se(n_i, n_g, n_r),
            }
            for o, i, g, r in rows
        ]
    )
    return out.sort_values("se", ignore_index=True)
