r"""A pairwise judge's length and position bias, measured against gold labels.

Each instance has two outputs, one of which the gold label prefers; the judge sees the
pair in one or both presentation orders and picks one.  Written as a two-item
Bradley-Terry comparison between the roles ``"gold"`` (the output gold prefers) and
``"other"``, the bias-aware model of :mod:`judgebayes.studies.ranking` reads

.. math::
    \Pr(\text{judge picks the output shown first}) =
    \sigma\big(\beta\,s + c\,(x_{first} - x_{second}) + \kappa\big),

with :math:`s = +1` when the gold output is shown first and :math:`-1` otherwise,
:math:`\beta = \theta_{gold} - \theta_{other}` the judge's discrimination (one per
subset by default: items ``"gold:<subset>"``, ``"other:<subset>"``, because a judge can
be good on natural pairs and worse than chance on adversarial ones),
:math:`x = \log_2(1 + \text{words})` the (standardised) length, :math:`c` the length
bias per standardised unit and :math:`\kappa` the first-position bias; :math:`c` and
:math:`\kappa` get the horseshoe (NUTS) or a normal prior (MAP/Laplace).

Correction.  For a held-out instance the fitted model gives the posterior odds that
output 1 is the gold output,

.. math::
    \frac{\Pr(g = 1 \mid y)}{\Pr(g = 2 \mid y)} = \frac{\pi}{1-\pi}
    \prod_{v} \frac{\Pr(y_v \mid s_v(g{=}1))}{\Pr(y_v \mid s_v(g{=}2))},

over the instance's usable verdicts :math:`v`, with :math:`\pi` the prior probability
that output 1 is gold given what is known before the judge speaks: by default a logistic
regression of gold on the outputs' length difference, fitted on the training instances
(``gold_prior="length"``), because in LLMBar the gold output is the shorter one in most
pairs by construction; ``gold_prior="constant"`` uses the training share of output-1
wins.  A judge that prefers the longer output and picks the first-shown
output both times is thereby read as undecided, and the length term breaks the tie
towards the output it did not favour for length.  :func:`cross_validated_agreement`
reports the agreement with gold of the raw verdicts and of this decision over K folds
of instances, beside the ranking paper's correction (an L2-regularised logistic
regression of gold on the order-averaged judge score and the length difference).
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import optimize
from scipy.special import expit, log_expit, logsumexp

from judgebayes.data.ranking import log_length
from judgebayes.errors import InputError
from judgebayes.inference.nuts import quiet_engine_warnings
from judgebayes.models.ranking import RankingPriors
from judgebayes.studies.ranking import PairwiseRanking

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from judgebayes.studies.ranking import RankingFit

__all__ = [
    "LLMBAR_BIAS_SUBSETS",
    "bias_comparisons",
    "cross_validated_agreement",
    "fit_judge_bias",
    "instance_ids",
    "judge_bias_table",
    "plot_bias_forest",
]

LLMBAR_BIAS_SUBSETS = (
    "LLMBar_Natural",
    "LLMBar_Adversarial_Neighbor",
    "LLMBar_Adversarial_GPTInst",
    "LLMBar_Adversarial_GPTOut",
    "LLMBar_Adversarial_Manual",
)
_ROLES = ("gold", "other")


def _roles(subset, by_subset: bool):
    if not by_subset:
        return np.full(len(subset), "gold", object), np.full(len(subset), "other", object)
    sub = np.asarray(subset, dtype=str)
    return np.char.add("gold:", sub).astype(object), np.char.add("other:", sub).astype(object)


def bias_comparisons(verdicts: pd.DataFrame, *, by_subset: bool = True) -> pd.DataFrame:
    r"""Both-order verdicts (:func:`judgebayes.datasets.llmbar_both_orders`) as comparisons.

    Parameters
    ----------
    verdicts : DataFrame
        ``subset, idx, order, shown_first, label, pick, len_words_1, len_words_2``.
    by_subset : bool
        One discrimination per subset (items ``"gold:<subset>"``/``"other:<subset>"``)
        or one overall (items ``"gold"``/``"other"``).

    Returns
    -------
    DataFrame
        The pairwise contract with items ``gold``/``other`` roles: ``first, second,
        winner, length_first, length_second`` (:math:`\log_2(1 + \text{words})`) plus
        ``subset, idx, order``.  Verdicts the judge did not give are dropped and counted
        in ``attrs["n_missing"]``.
    """
    need = ["subset", "idx", "order", "shown_first", "label", "pick", "len_words_1", "len_words_2"]
    miss = [c for c in need if c not in verdicts.columns]
    if miss:
        raise InputError(f"column {miss[0]!r} not found", field=miss[0], value=None)
    v = verdicts
    ok = v["pick"].isin([1, 2]).to_numpy()
    bad = v.loc[v["pick"].notna() & ~v["pick"].isin([1, 2]), "pick"]
    if len(bad):
        raise InputError(
            f"column 'pick' must be 1, 2 or missing; found {bad.iloc[0]!r}",
            field="pick",
            value=bad.iloc[0],
        )
    v = v[ok]
    first_is_gold = (v["shown_first"] == v["label"]).to_numpy()
    len1, len2 = log_length(v["len_words_1"]), log_length(v["len_words_2"])
    first_is_1 = (v["shown_first"] == 1).to_numpy()
    gold, other = _roles(v["subset"], by_subset)
    out = pd.DataFrame(
        {
            "subset": v["subset"].to_numpy(),
            "idx": v["idx"].to_numpy(),
            "order": v["order"].to_numpy(),
            "first": np.where(first_is_gold, gold, other),
            "second": np.where(first_is_gold, other, gold),
            "winner": np.where(v["pick"] == v["label"], gold, other),
            "length_first": np.where(first_is_1, len1, len2),
            "length_second": np.where(first_is_1, len2, len1),
        }
    )
    out.attrs["n_missing"] = int((~ok).sum())
    return out


def instance_ids(comparisons: pd.DataFrame) -> np.ndarray:
    """One id per row of :func:`bias_comparisons` output: ``"<subset>#<idx>"`` (the two
    presentation orders of an instance share it).
    """
    return (comparisons["subset"].astype(str) + "#" + comparisons["idx"].astype(str)).to_numpy()


def _ranking(comparisons: pd.DataFrame, priors: Any = None):

    return PairwiseRanking.from_frames(
        comparisons[["first", "second", "winner", "length_first", "length_second"]],
        covariates=["length"],
        priors=priors,
    )


def fit_judge_bias(
    verdicts: pd.DataFrame,
    method: str = "nuts",
    prior: str | None = None,
    *,
    by_subset: bool = True,
    random_seed: int | None = 0,
    warn: bool = False,
    priors: Any = None,
    instance_effect: bool = False,
    **kwargs: Any,
) -> RankingFit:
    """Fit the bias-aware pairwise model to one judge's both-order verdicts.

    ``method`` and ``prior`` as in :meth:`judgebayes.studies.ranking.PairwiseRanking.fit`
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
    fit = _ranking(comp, priors).fit(method, prior, random_seed=random_seed, warn=warn, **kwargs)
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


# ----------------------------------------------------------------------- correction
def _instance_table(verdicts: pd.DataFrame) -> pd.DataFrame:
    """One row per instance: gold, lengths, and each order's pick (NaN if missing)."""
    v = verdicts
    key = ["subset", "idx"]
    base = v.drop_duplicates(key)[[*key, "label", "len_words_1", "len_words_2"]]
    o = v[v["order"] == "original"][[*key, "pick"]].rename(columns={"pick": "pick_orig"})
    s = v[v["order"] == "swapped"][[*key, "pick"]].rename(columns={"pick": "pick_swap"})
    t = base.merge(o, on=key, how="left").merge(s, on=key, how="left")
    t["score"] = pd.concat(
        [(t["pick_orig"] == 1).where(t["pick_orig"].notna()),
         (t["pick_swap"] == 1).where(t["pick_swap"].notna())],
        axis=1,
    ).astype(float).mean(axis=1)  # fmt: skip
    return t.reset_index(drop=True)


def _log_lik_ratio(
    t: pd.DataFrame, beta, c: float, kappa: float, scale, instance_sd: float = 0.0
) -> np.ndarray:
    r"""Log P(verdicts | gold = 1) - log P(verdicts | gold = 2) per instance.

    With ``instance_sd`` > 0 the instance's two verdicts share a deviation
    :math:`u \sim N(0, \sigma_u^2)` of the discrimination, integrated out by 40-node
    Gauss-Hermite quadrature: :math:`\Pr(y \mid g) = E_u \prod_v \Pr(y_v \mid g, u)`, not the
    product of the verdicts' marginals.
    """
    mean, sd = scale
    x1 = (log_length(t["len_words_1"]) - mean) / sd
    x2 = (log_length(t["len_words_2"]) - mean) / sd
    if instance_sd > 0:
        nodes, weights = np.polynomial.hermite.hermgauss(40)
        u = np.sqrt(2.0) * instance_sd * nodes
        logw = np.log(weights / np.sqrt(np.pi))
    else:
        u, logw = np.zeros(1), np.zeros(1)
    beta = np.asarray(beta, dtype=float)[:, None] + u[None, :]  # (instances, nodes)
    out = np.zeros(len(t))
    for g, sign in ((1, 1.0), (2, -1.0)):
        ll = np.zeros((len(t), u.size))
        for col, first in (("pick_orig", 1), ("pick_swap", 2)):
            pick = t[col].to_numpy(float)[:, None]
            dx = np.asarray((x1 - x2) if first == 1 else (x2 - x1), dtype=float)[:, None]
            s = 1.0 if first == g else -1.0
            eta = beta * s + c * dx + kappa
            lv = np.where(pick == first, log_expit(eta), log_expit(-eta))
            ll += np.where(np.isnan(pick), 0.0, lv)
        out += sign * logsumexp(ll + logw[None, :], axis=1)
    return out


def _ridge_logistic(x: np.ndarray, y: np.ndarray, lam: float) -> np.ndarray:

    xa = np.column_stack([np.ones(len(x)), x])

    def f(w):
        eta = xa @ w
        ll = y * log_expit(eta) + (1 - y) * log_expit(-eta)
        pen = 0.5 * lam * np.sum(w[1:] ** 2)
        grad = -xa.T @ (y - expit(eta)) + lam * np.r_[0.0, w[1:]]
        return -ll.sum() + pen, grad

    return optimize.minimize(f, np.zeros(xa.shape[1]), jac=True, method="L-BFGS-B").x


def _decide(score: np.ndarray) -> np.ndarray:
    """Agreement credit of a decision score (>0: output 1): 1, 0, or 0.5 at a tie."""
    return np.where(score > 0, 1.0, np.where(score < 0, 0.0, 0.5))


def cross_validated_agreement(
    verdicts: pd.DataFrame,
    *,
    folds: int = 5,
    seed: int = 0,
    by_subset: bool = True,
    lam_b: float = 0.1,
    ridge: float = 1.0,
    gold_prior: str = "length",
    instance_effect: bool = False,
    random_seed: int = 0,
) -> pd.DataFrame:
    """Agreement with gold before and after the length/position correction, by K-fold CV.

    Parameters
    ----------
    verdicts : DataFrame
        One judge's both-order verdicts (:func:`judgebayes.datasets.llmbar_both_orders`).
    folds : int
        Instances are split into ``folds`` random folds (seeded); each fold is predicted
        from a model fitted on the others.
    seed : int
        Fold assignment seed.
    by_subset : bool
        One discrimination per subset (the subset is known when a new pair is judged).
    lam_b : float
        Prior precision of the bias coefficients of the MAP fit.
    ridge : float
        L2 penalty of the logistic baseline (standardised features) and of the length
        prior.
    gold_prior : {"length", "constant"}
        Prior odds of the posterior decision: a ridge logistic regression of gold on the
        log-length difference of the two outputs, fitted on the training folds (default;
        the same information the logistic baseline has), or the training share of
        output-1 wins.  With the constant prior the decision ignores that in LLMBar gold is
        the shorter output in 73% of the pairs, and lost to the logistic baseline on all
        six judges for that reason alone.
    instance_effect : bool
        Fit each training fold by NUTS with the instance effect (the two orders of a pair
        share a deviation of the discrimination; normal bias prior) and decide with the
        verdicts' joint likelihood, the deviation integrated out, at the posterior means;
        default: the Newton MAP of the model without it.
    random_seed : int
        NUTS seed (with ``instance_effect``).

    Returns
    -------
    DataFrame
        Per subset (and ``"all"``): ``instances``, ``verdict_agreement`` (share of single
        verdicts that pick the gold output), ``order_averaged`` (agreement of the
        order-averaged score, a split score counting one half), ``bias_aware`` (the
        model's posterior decision above), ``logistic`` (the paper's correction),
        ``prior_only`` (the decision of the gold prior alone, no judge),
        ``prefers_longer`` and ``gold_longer`` (shares over instances with unequal
        lengths: judge verdicts for the longer output, gold's longer output).
    """
    if folds < 2:
        raise InputError(f"folds must be at least 2; got {folds!r}", field="folds", value=folds)
    if gold_prior not in ("length", "constant"):
        raise InputError(
            f"gold_prior must be 'length' or 'constant'; got {gold_prior!r}",
            field="gold_prior",
            value=gold_prior,
        )
    t = _instance_table(verdicts)
    gold1 = (t["label"] == 1).to_numpy()
    rng = np.random.default_rng(seed)
    fold = rng.permutation(np.arange(len(t)) % folds)
    key = t["subset"].astype(str) + "#" + t["idx"].astype(str)
    vkey = verdicts["subset"].astype(str) + "#" + verdicts["idx"].astype(str)
    bias_score = np.full(len(t), np.nan)
    logit_score = np.full(len(t), np.nan)
    prior_score = np.full(len(t), np.nan)
    dlen = log_length(t["len_words_1"]) - log_length(t["len_words_2"])
    feats = np.column_stack([np.nan_to_num(t["score"].to_numpy(float), nan=0.5) - 0.5, dlen])
    for f in range(folds):
        train, test = fold != f, fold == f
        vtrain = verdicts[vkey.isin(set(key[train])).to_numpy()]
        comp = bias_comparisons(vtrain, by_subset=by_subset)
        rk = _ranking(comp, RankingPriors(lam_b=lam_b))
        u_sd = 0.0
        if instance_effect:
            with quiet_engine_warnings():
                fit = rk.fit(
                    "nuts", "normal", warn=False, instance=instance_ids(comp),
                    random_seed=random_seed,
                )  # fmt: skip
            u_sd = float(fit.idata.posterior["instance_sd"].mean())
            bias = fit.bias_draws().mean(axis=0)
        else:
            fit = rk.fit("laplace", "normal", warn=False, draws=100)
            bias = fit.map_result.bias
        pos = {it: i for i, it in enumerate(fit.data.items)}
        gold, other = _roles(t.loc[test, "subset"], by_subset)
        beta = np.array(
            [
                fit.point[pos[g]] - fit.point[pos[o]] if g in pos else 0.0
                for g, o in zip(gold, other, strict=True)
            ]
        )
        b = dict(zip(fit.bias_names, bias, strict=True))
        mean, sd, _ = fit.data.scales["length"]
        if gold_prior == "length":
            m0, s0 = dlen[train].mean(), dlen[train].std() + 1e-12
            w0 = _ridge_logistic(((dlen[train] - m0) / s0)[:, None], gold1[train] + 0.0, ridge)
            prior = w0[0] + w0[1] * (dlen[test] - m0) / s0
        else:
            pi = gold1[train].mean()
            prior = np.full(int(test.sum()), np.log(pi / (1 - pi)))
        llr = _log_lik_ratio(t[test], beta, b["length"], b.get("position", 0.0), (mean, sd), u_sd)
        prior_score[test] = prior
        bias_score[test] = prior + llr
        mu, s = feats[train].mean(0), feats[train].std(0) + 1e-12
        w = _ridge_logistic((feats[train] - mu) / s, gold1[train].astype(float), ridge)
        logit_score[test] = w[0] + ((feats[test] - mu) / s) @ w[1:]
    sign = np.where(gold1, 1.0, -1.0)
    per_verdict = verdicts.assign(agree=(verdicts["pick"] == verdicts["label"]).astype(float))
    per_verdict.loc[verdicts["pick"].isna(), "agree"] = np.nan
    score = t["score"].to_numpy(float)
    res = pd.DataFrame(
        {
            "subset": t["subset"],
            "order_averaged": _decide(sign * np.nan_to_num(score - 0.5, nan=0.0)),
            "bias_aware": _decide(sign * bias_score),
            "logistic": _decide(sign * logit_score),
            "prior_only": _decide(sign * prior_score),
            "prefers_longer": np.where(dlen > 0, score, 1 - score),
            "gold_longer": np.where(dlen > 0, gold1, ~gold1).astype(float),
            "unequal": dlen != 0,
        }
    )
    rows = []
    for name, part, pv in [("all", res, per_verdict)] + [
        (s, res[res["subset"] == s], per_verdict[per_verdict["subset"] == s])
        for s in dict.fromkeys(t["subset"])
    ]:
        uneq = part[part["unequal"]]
        rows.append(
            {
                "subset": name,
                "instances": len(part),
                "missing_verdicts": int(pv["pick"].isna().sum()),
                "verdict_agreement": float(pv["agree"].mean()),
                "order_averaged": float(part["order_averaged"].mean()),
                "bias_aware": float(part["bias_aware"].mean()),
                "logistic": float(part["logistic"].mean()),
                "prior_only": float(part["prior_only"].mean()),
                "prefers_longer": float(uneq["prefers_longer"].mean()),
                "gold_longer": float(uneq["gold_longer"].mean()),
            }
        )
    return pd.DataFrame(rows)
