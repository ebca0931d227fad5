"""The judge's length and position bias measured on LLMBar: comparisons by role, the
Bradley-Terry fits, their table and forest.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from judgebayes.data.ranking.verdicts import bias_comparisons, instance_ids
from judgebayes.studies.ranking import PairwiseRanking

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from judgebayes.studies.ranking import RankingFit


LLMBAR_BIAS_SUBSETS = (
    "LLMBar_Natural",
    "LLMBar_Adversarial_Neighbor",
    "LLMBar_Adversarial_GPTInst",
    "LLMBar_Adversarial_GPTOut",
    "LLMBar_Adversarial_Manual",
)


def bias_ranking(comparisons: pd.DataFrame, priors: Any = None):
    """The Bradley-Terry study of the bias comparisons, with the answers' length as the
    covariate.
    """
    return PairwiseRanking.from_frames(
        comparisons[["first", "second", "winner", "length_first", "length_second"]],
        covariates=["length"],
        priors=priors,
    )


def fit_judge_bias(
    verdicts: pd.DataFrame,
    method: str = "nuts",
    prior: Any = None,
    *,
    by_subset: bool = True,
    random_seed: int | None = 0,
    warn: bool = False,
    priors: Any = None,
    instance_effect: bool = False,
    **kwargs: Any,
) -> RankingFit:
    """Fit the bias-aware pairwise model to one judge's both-order verdicts.

    ``method`` and ``prior`` (a bias prior or its name) as in the ranking methods
    (default: NUTS with the horseshoe; ``"laplace"`` uses the normal prior and the exact
    Newton MAP); ``by_subset`` as in :func:`bias_comparisons`; ``priors`` a
    :class:`~judgebayes.models.ranking.RankingPriors`.  The fit's
    ``info["n_missing"]`` counts the verdicts left out.  The identifiability warning is
    off by default: by subset, the comparison graph has one component per subset on
    purpose (only the gold - other difference within a subset is used).
    ``instance_effect=True`` (NUTS) gives each instance its own deviation of the
    discrimination, shared by its two presentation orders (see ``instance`` in
    :meth:`~judgebayes.studies.ranking.PairwiseRanking.fit`).
    """
    comp = bias_comparisons(verdicts, by_subset=by_subset)

    if instance_effect:
        kwargs["instance"] = instance_ids(comp)
    if prior is not None:
        kwargs["prior"] = prior
    fit = bias_ranking(comp, priors).fit(method, random_seed=random_seed, warn=warn, **kwargs)
    info = {**fit.info, "n_missing": comp.attrs["n_missing"], "n_verdicts": len(comp)}
    return replace(fit, info=info)


def judge_bias_table(fits: dict[str, RankingFit], alpha: float = 0.05) -> pd.DataFrame:
    r"""One row per judge x coefficient: discrimination, length, position.

    ``length`` is per standardised unit of :math:`\log_2(1+\text{words})` and
    ``per_raw_unit`` per doubling of the length; ``discrimination`` (one row per subset
    when fitted by subset, named ``discrimination:<subset>``) is
    :math:`\theta_{gold} - \theta_{other}`.
    """
    rows = []
    for judge, fit in fits.items():
        th = fit.theta_draws()
        items = list(fit.data.items)
        start = len(rows)
        for it in items:
            if not it.startswith("gold"):
                continue
            beta = th[:, items.index(it)] - th[:, items.index("other" + it[4:])]
            lo, hi = np.quantile(beta, [alpha / 2, 1 - alpha / 2])
            rows.append(
                {
                    "judge": judge,
                    "coefficient": "discrimination" + it[4:],
                    "estimate": float(beta.mean()),
                    "lower": float(lo),
                    "upper": float(hi),
                    "p_positive": float(np.mean(beta > 0)),
                    "per_raw_unit": np.nan,
                    "identified_by": "data",
                }
            )
        bt = fit.bias_table(alpha)
        bt = bt[bt["judge"] == "all"].assign(judge=judge)
        rows.extend(bt.to_dict("records"))
        for r in rows[start:]:
            r["method"] = fit.label
            r["verdicts"] = fit.info.get("n_verdicts", fit.data.n)
            r["missing"] = fit.info.get("n_missing", 0)
            if fit.diagnostics is not None:
                r["r_hat"] = fit.diagnostics.r_hat_max
                r["divergences"] = fit.diagnostics.divergences
    return pd.DataFrame(rows)


def plot_bias_forest(table: pd.DataFrame, ax=None, coefficients=("length", "position")):
    """Forest plot of every judge's bias coefficients with their intervals.

    ``table`` is :func:`judge_bias_table` output, optionally with several methods (one
    marker per method).
    """
    import matplotlib.pyplot as plt

    d = table[table["coefficient"].isin(coefficients)]
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 0.45 * d["judge"].nunique() * len(coefficients) + 1))
    methods = list(dict.fromkeys(d["method"])) if "method" in d else [None]
    judges = list(dict.fromkeys(d["judge"]))
    labels, y = [], 0.0
    colours = {c: f"C{i}" for i, c in enumerate(coefficients)}
    for coef in coefficients:
        for j in judges:
            for mi, m in enumerate(methods):
                r = d[(d["coefficient"] == coef) & (d["judge"] == j)]
                if m is not None:
                    r = r[r["method"] == m]
                if r.empty:
                    continue
                r = r.iloc[0]
                yy = y + 0.25 * mi
                ax.plot([r["lower"], r["upper"]], [yy, yy], color=colours[coef], lw=1.5)
                ax.plot(r["estimate"], yy, "os^"[mi % 3], color=colours[coef], ms=5)
            labels.append((y, f"{j}: {coef}"))
            y += 1.0
    ax.axvline(0.0, color="0.5", lw=0.8, ls="--")
    ax.set_yticks([p for p, _ in labels], [t for _, t in labels])
    ax.invert_yaxis()
    ax.set_xlabel("coefficient on the logit scale (95% interval)")
    if len(methods) > 1:
        from matplotlib.lines import Line2D

        ax.legend(
            [Line2D([], [], marker="os^"[i % 3], color="k", ls="") for i in range(len(methods))],
            methods,
            loc="best",
            fontsize=8,
        )
    return ax
