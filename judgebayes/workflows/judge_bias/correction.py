"""Correcting the judge's verdicts for its bias, with the agreement it buys measured by
cross-validation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import optimize
from scipy.special import expit, log_expit, logsumexp

from judgebayes.data.ranking import log_length
from judgebayes.data.ranking.verdicts import (
    bias_comparisons,
    instance_ids,
    instance_table,
    item_roles,
)
from judgebayes.errors import InputError
from judgebayes.inference.nuts import quiet_engine_warnings
from judgebayes.models.ranking import NormalBias, RankingPriors
from judgebayes.workflows.judge_bias.fit import bias_ranking

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


# ----------------------------------------------------------------------- correction
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
    t = instance_table(verdicts)
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
        rk = bias_ranking(comp, RankingPriors(lam_b=lam_b))
        u_sd = 0.0
        if instance_effect:
            with quiet_engine_warnings():
                fit = rk.fit(
                    "nuts", prior=NormalBias(), warn=False, instance=instance_ids(comp),
                    random_seed=random_seed,
                )  # fmt: skip
            u_sd = float(fit.tree.posterior["instance_sd"].mean())
            bias = fit.bias_draws().mean(axis=0)
        else:
            fit = rk.fit("laplace", prior=NormalBias(), warn=False, draws=100)
            bias = fit.map_result.bias
        pos = {it: i for i, it in enumerate(fit.data.items)}
        gold, other = item_roles(t.loc[test, "subset"], by_subset)
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
    scores = {"bias_aware": bias_score, "logistic": logit_score, "prior_only": prior_score}
    return _agreement_table(verdicts, t, gold1, dlen, scores)


def _agreement_table(verdicts, t, gold1, dlen, scores: dict) -> pd.DataFrame:
    """Agreement with gold of the single verdicts, the order-averaged verdict and each
    cross-fitted ``scores``' decision, over all instances and by subset.
    """
    sign = np.where(gold1, 1.0, -1.0)
    per_verdict = verdicts.assign(agree=(verdicts["pick"] == verdicts["label"]).astype(float))
    per_verdict.loc[verdicts["pick"].isna(), "agree"] = np.nan
    score = t["score"].to_numpy(float)
    res = pd.DataFrame(
        {
            "subset": t["subset"],
            "order_averaged": _decide(sign * np.nan_to_num(score - 0.5, nan=0.0)),
            **{name: _decide(sign * x) for name, x in scores.items()},
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
