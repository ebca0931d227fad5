"""The repeats design's methods (:class:`~judgebayes.studies.repeats.base.RepeatsStudy`):
the closed form (:mod:`judgebayes.inference.repeats.closed_form`) and NUTS on the
hierarchical model, and the rate's interval from either fit.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from judgebayes.inference.repeats.closed_form import boot_moments, component_intervals, moments
from judgebayes.results import point_tree
from judgebayes.studies.base import FitParts
from judgebayes.studies.repeats.base import COMPONENTS, RepeatsStudy

__all__ = ["BOOTSTRAP", "rate_interval"]

#: bootstrap resamples of prompts behind the closed form's intervals
BOOTSTRAP = 1000


@RepeatsStudy.methods.register(
    "closed_form",
    engine="closed_form",
    summary="nested ANOVA, large-sample and bootstrap intervals",
)
def _closed_form(study: RepeatsStudy, *, random_seed=None) -> FitParts:
    """Moments of the nested design; intervals by
    :func:`~judgebayes.inference.repeats.closed_form.component_intervals` (:data:`BOOTSTRAP`
    resamples of prompts for the judge runs).
    """
    c = study.counts
    k, runs, pc = c["k"], c["runs"], c["prompt"]
    n_p, n_g = study.n_prompts, study.n_generations
    rate, v_p, v_g, v_j, raw_g, raw_p = moments(k, runs, pc, n_p)
    notes = [
        f"the {name} component's moment estimate was {raw:.4f} < 0: set to 0"
        for name, raw in (("generation", raw_g), ("prompt", raw_p))
        if np.isfinite(raw) and raw < 0
    ]
    picks = np.random.default_rng(random_seed).integers(0, n_p, (BOOTSTRAP, n_p))
    boot = boot_moments(k, runs, pc, n_p, picks)
    m_i = np.bincount(pc, weights=k / runs, minlength=n_p) / n_g
    se = float(m_i.std(ddof=1) / np.sqrt(n_p))

    def interval(alpha):
        return component_intervals(k, runs, pc, n_p, v_j, raw_p, boot, alpha)

    return FitParts(
        point_tree({"variance": [v_p, v_g, v_j], "rate": rate}, "component", COMPONENTS),
        quantity="variance",
        interval_fn=interval,
        info={
            "estimator": "nested analysis of variance (moments); intervals: modified "
            "large-sample (differences of mean squares) for prompts and generations, "
            f"expanded percentile bootstrap over prompts ({BOOTSTRAP} resamples) for the "
            "judge runs; rate: cluster-robust se, t(I - 1)",
            "rate": float(rate),
            "rate_se": se,
            "rate_df": n_p - 1,
            "bootstrap": BOOTSTRAP,
        },
        notes=tuple(notes),
        extra={"unit": "component"},
    )


@RepeatsStudy.methods.register(
    "nuts", engine="nuts", summary="hierarchical model, NUTS with the gate", mcmc=True
)
def _nuts(
    study: RepeatsStudy, *, random_seed=None, sampler=None, posterior_predictive: bool = False
) -> FitParts:
    """NUTS (``sampler``) on the hierarchical model; ``posterior_predictive`` adds that
    group (replicated passes per generation).
    """
    parts = study._nuts(
        study.model_spec(), sampler, random_seed, posterior_predictive=posterior_predictive
    )
    parts.quantity = "variance"
    parts.extra = {"unit": "component"}
    return parts


def rate_interval(fit, alpha: float) -> tuple[float, float, float]:
    """(rate, lower, upper) of a :class:`RepeatsStudy` fit: the cluster-robust t interval
    of the closed form, the posterior's equal-tailed one of NUTS.
    """
    if fit.is_point:
        r, se = fit.info["rate"], fit.info["rate_se"]
        t = stats.t.ppf(1 - alpha / 2, fit.info["rate_df"])
        return r, r - t * se, r + t * se
    x = fit.tree.posterior["rate"].values.ravel()
    lo, hi = np.quantile(x, [alpha / 2, 1 - alpha / 2])
    return float(x.mean()), float(lo), float(hi)
