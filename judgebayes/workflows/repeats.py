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
  designs allowed; a negative component is set to 0 and said), with a percentile
  bootstrap over prompts for intervals, and the mean's cluster-robust standard error
  (prompts as clusters, t(I - 1));
* ``"nuts"``: the hierarchical model :func:`judgebayes.models.accuracy.repeated_verdicts_model`
  (logit-normal prompt and generation effects, binomial runs), whose components are
  computed from each draw.

This is the judge's verdict process; what the judge's verdicts say about the human rate
is the items design's business (human labels, :meth:`judgebayes.AccuracyStudy.from_items`
with ``cluster=`` the prompt).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from judgebayes.data.frames import as_pandas
from judgebayes.data.items import _binary
from judgebayes.errors import InputError
from judgebayes.inference.registry import check_count, check_seed

__all__ = ["plan_repeats", "repeated_counts", "variance_split"]

COMPONENTS = ("prompt", "generation", "judge run")
#: bootstrap resamples of prompts behind the closed form's intervals
BOOTSTRAP = 1000


def repeated_counts(
    frame, *, prompt: str = "prompt", generation: str = "generation", verdict: str = "judge"
) -> dict[str, Any]:
    """Passes and runs per (prompt, generation) from one row per judge run.

    Returns ``k``, ``runs``, ``prompt`` (codes, one per generation), ``prompts`` (names)
    and ``n_missing`` (rows without a verdict: counted, left out).
    """
    df = as_pandas(frame, "frame")
    for col in (prompt, generation, verdict):
        if col not in df.columns:
            raise InputError(
                f"frame has no column {col!r} (columns: {list(df.columns)})",
                field=col,
                value=None,
            )
    y = _binary(df[verdict], verdict, None)
    ok = ~np.isnan(y)
    if not ok.any():
        raise InputError(f"column {verdict!r} has no verdict", field=verdict, value=0)
    sub = df.loc[ok, [prompt, generation]].astype(str).assign(_y=y[ok])
    g = sub.groupby([prompt, generation], sort=True)["_y"].agg(["sum", "count"]).reset_index()
    prompts, pcode = np.unique(g[prompt].to_numpy(), return_inverse=True)
    if prompts.size < 2:
        raise InputError(
            f"column {prompt!r} has {prompts.size} prompt(s); a split needs at least 2",
            field=prompt,
            value=int(prompts.size),
        )
    return {
        "k": g["sum"].to_numpy(np.int64),
        "runs": g["count"].to_numpy(np.int64),
        "prompt": pcode.astype(np.int64),
        "prompts": tuple(prompts.tolist()),
        "n_missing": int((~ok).sum()),
    }


def _moments(k, runs, prompt, n_prompts):
    """(rate, v_prompt, v_generation, v_judge, raw v_generation, raw v_prompt)."""
    ybar = k / runs
    df_r = np.sum(runs - 1)
    v_j = np.sum(k - k**2 / runs) / df_r if df_r > 0 else np.nan
    n_g = np.bincount(prompt, minlength=n_prompts).astype(float)
    m_i = np.bincount(prompt, weights=ybar, minlength=n_prompts) / n_g
    df_g = np.sum(n_g - 1)
    inv_r = 1 / runs
    if df_g > 0:
        ss_g = np.sum((ybar - m_i[prompt]) ** 2)
        raw_g = ss_g / df_g - (0 if np.isnan(v_j) else v_j) * inv_r.mean()
    else:
        raw_g = np.nan
    mean_inv_r = np.bincount(prompt, weights=inv_r, minlength=n_prompts) / n_g
    noise = np.mean(
        (0 if np.isnan(raw_g) else max(raw_g, 0.0)) / n_g
        + (0 if np.isnan(v_j) else v_j) * mean_inv_r / n_g
    )
    raw_p = m_i.var(ddof=1) - noise
    return m_i.mean(), max(raw_p, 0.0), max(raw_g, 0.0) if df_g > 0 else np.nan, v_j, raw_g, raw_p


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
    """The verdict variance split into prompts, generations and judge runs (module docstring).

    Parameters
    ----------
    frame : DataFrame
        One row per judge run (blank verdict = none, counted).
    prompt, generation, verdict : str
        Columns: the prompt, the generation (an id unique within its prompt) and the
        judge's verdict on that run (1 / 0, or words the package reads as such).
    method : {"closed_form", "nuts"}
        Nested analysis of variance with a bootstrap over prompts, or the hierarchical
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
        ``notes`` and, for NUTS, ``diagnostics``.
    """
    if method not in ("closed_form", "nuts"):
        raise InputError(
            f"method must be 'closed_form' or 'nuts'; got {method!r}", field="method", value=method
        )
    if not 0 < alpha < 1:
        raise InputError(f"alpha must be in (0, 1); got {alpha!r}", field="alpha", value=alpha)
    c = repeated_counts(frame, prompt=prompt, generation=generation, verdict=verdict)
    k, runs, pc = c["k"], c["runs"], c["prompt"]
    n_p = len(c["prompts"])
    n_g = np.bincount(pc, minlength=n_p)
    design = {
        "prompts": n_p,
        "generations_per_prompt": float(n_g.mean()),
        "runs_per_generation": float(runs.mean()),
    }
    notes = []
    if runs.max() < 2:
        notes.append("one judge run per generation: the judge-run component is not identified")
    if n_g.max() < 2:
        notes.append("one generation per prompt: the generation component is not identified")
    seed = check_seed(random_seed)
    q = (alpha / 2, 1 - alpha / 2)
    if method == "closed_form":
        rate, v_p, v_g, v_j, raw_g, raw_p = _moments(k, runs, pc, n_p)
        for name, raw in (("generation", raw_g), ("prompt", raw_p)):
            if np.isfinite(raw) and raw < 0:
                notes.append(f"the {name} component's moment estimate was {raw:.4f} < 0: set to 0")
        rng = np.random.default_rng(seed)
        starts = np.concatenate([[0], np.cumsum(n_g)])
        order = np.argsort(pc, kind="stable")
        boot = []
        for _ in range(BOOTSTRAP):
            pick = rng.integers(0, n_p, n_p)
            rows = np.concatenate([order[starts[i] : starts[i + 1]] for i in pick])
            code = np.repeat(np.arange(n_p), n_g[pick])
            boot.append(_moments(k[rows], runs[rows], code, n_p)[:4])
        boot = np.array(boot)
        est = np.array([v_p, v_g, v_j])
        lo, hi = np.nanquantile(boot[:, 1:], q, axis=0)
        m_i = np.bincount(pc, weights=k / runs, minlength=n_p) / n_g
        se = m_i.std(ddof=1) / np.sqrt(n_p)
        t = stats.t.ppf(1 - alpha / 2, n_p - 1)
        rate_ci = (rate - t * se, rate + t * se)
        extra: dict[str, Any] = {"rate_se": float(se), "bootstrap": BOOTSTRAP}
    else:
        from judgebayes.inference.nuts import ModelSpec, sample_nuts
        from judgebayes.inference.registry import resolve_sampler
        from judgebayes.models.accuracy import repeated_verdicts_model

        spec = ModelSpec(
            repeated_verdicts_model,
            {"k": k, "runs": runs, "prompt": pc},
            {"n_prompts": n_p},
            ("mu", "sigma_prompt", "sigma_generation"),
        )
        idata, diag, _ = sample_nuts(
            spec, random_seed=seed, sampler=resolve_sampler("accuracy.repeats", sampler)
        )
        post = idata.posterior
        draws = {v: post[v].values.ravel() for v in ("var_prompt", "var_generation", "var_judge")}
        est = np.array([draws[v].mean() for v in draws])
        lo, hi = np.array([np.quantile(draws[v], q) for v in draws]).T
        r = post["rate"].values.ravel()
        rate, rate_ci = float(r.mean()), tuple(np.quantile(r, q))
        extra = {
            "diagnostics": diag.message(),
            "passed": diag.passed,
            "sigma_prompt": tuple(np.quantile(post["sigma_prompt"].values, q)),
            "sigma_generation": tuple(np.quantile(post["sigma_generation"].values, q)),
        }
    total = np.nansum(est)
    out = pd.DataFrame(
        {
            "component": COMPONENTS,
            "variance": est,
            "lower": lo,
            "upper": hi,
            "share": est / total if total > 0 else np.nan,
        }
    )
    out.attrs = {
        "method": method,
        "rate": float(rate),
        "rate_lower": float(rate_ci[0]),
        "rate_upper": float(rate_ci[1]),
        "design": design,
        "n_missing": c["n_missing"],
        "notes": notes,
        **extra,
    }
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
    d = dict(split.attrs.get("design", {}) if design is None else design)
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
