"""SBC problems of the accuracy family: binary, strata and K-class counts, and the
items design (plain, pooled, covariate, clustered, several judges, over time).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy import stats
from scipy.special import expit, logit

from judgebayes.data.accuracy import CalibrationCounts, TestCounts
from judgebayes.models.accuracy import AccuracyPriors
from judgebayes.models.items import items_priors
from judgebayes.simulate.sbc.result import SBCDataset
from judgebayes.studies.accuracy import AccuracyStudy

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd


# ------------------------------------------------------------------- problems
def _btc_rates(rng) -> tuple[float, float]:
    """(q0, q1) uniform on q0 + q1 > 1 (the default better-than-chance prior)."""
    while True:
        q0, q1 = rng.random(2)
        if q0 + q1 > 1:
            return float(q0), float(q1)


def binary_problem(design: str, n: int = 200, m: int = 40) -> Callable:
    """The binary model's data sets: ``n`` judged, ``m`` labelled by ``design``."""

    def draw(rng) -> SBCDataset:

        theta = rng.random()
        q0, q1 = _btc_rates(rng)
        rate_cal = theta if design == "random" else rng.random()
        m1 = int(rng.binomial(m, rate_cal))
        tp, tn = int(rng.binomial(m1, q1)), int(rng.binomial(m - m1, q0))
        k = int(rng.binomial(n, theta * q1 + (1 - theta) * (1 - q0)))
        study = AccuracyStudy.from_counts(k, n, tn, m - m1, tp, m1, design=design)
        truth = {"theta": np.array([theta]), "q0": np.array(q0), "q1": np.array(q1)}
        if design == "shifted":
            truth["theta_cal"] = np.array(rate_cal)
        return SBCDataset(study.model_spec(), truth)

    return draw


def strata_problem(n=(300, 200, 100), m=15) -> Callable:
    """The pooled-strata model's data sets: ``n`` judged and ``m`` labels per class per
    stratum.
    """

    def draw(rng) -> SBCDataset:

        pr = AccuracyPriors()
        S = len(n)
        rates, truth = {}, {}
        for c in ("q0", "q1"):
            mu, sigma = rng.normal(*pr.strata_mu), abs(rng.normal(0, pr.strata_sigma))
            rates[c] = 1 / (1 + np.exp(-(mu + sigma * rng.normal(size=S))))
            truth |= {f"mu_{c}": np.array(mu), f"sigma_{c}": np.array(sigma), c: rates[c]}
        th = rng.beta(*pr.theta, S)
        nn = np.asarray(n)
        k = rng.binomial(nn, th * rates["q1"] + (1 - th) * (1 - rates["q0"]))
        strata = tuple(f"s{i}" for i in range(S))
        cal = CalibrationCounts(
            tp=rng.binomial(m, rates["q1"]),
            m1=[m] * S,
            tn=rng.binomial(m, rates["q0"]),
            m0=[m] * S,
            strata=strata,
        )
        test = TestCounts(k=[k], n=[nn], n_missing=[[0] * S], strata=strata)
        truth["theta"] = np.array([(th * nn).sum() / nn.sum()])
        return SBCDataset(AccuracyStudy(test, cal).model_spec(), truth)

    return draw


def multiclass_problem(K: int = 3, m: int = 30, n: int = 400) -> Callable:
    """The K-class model's data sets: ``m`` labels per true class, ``n`` judged."""

    def draw(rng) -> SBCDataset:

        C = rng.dirichlet(np.ones(K), K)
        prev = rng.dirichlet(np.ones(K))
        conf = np.stack([rng.multinomial(m, C[i]) for i in range(K)])
        test = rng.multinomial(n, prev @ C)[None]
        study = AccuracyStudy.from_multiclass_counts(
            conf, test, classes=[f"c{i}" for i in range(K)]
        )
        return SBCDataset(study.model_spec(), {"prevalence": prev[None], "confusion_rates": C})

    return draw


def _items_frame(rng, theta, q0, q1, n, labelled, system="s"):
    """``n`` items of one system at rate ``theta``; verdicts of judges with specificities
    ``q0`` and sensitivities ``q1`` (arrays over judges); the first ``labelled`` carry the
    human label.
    """
    h = rng.random(n) < theta
    q0, q1 = np.atleast_1d(q0), np.atleast_1d(q1)
    pos = np.where(h[:, None], rng.random((n, q1.size)) < q1, rng.random((n, q0.size)) >= q0)
    frame = pd.DataFrame(pos.astype(int), columns=[f"j{i}" for i in range(q1.size)])
    return frame.assign(
        human=np.where(np.arange(n) < labelled, h.astype(float), np.nan), system=system
    )


def items_problem(n: int = 300, labelled: int = 40, systems: int = 2) -> Callable:
    """The items model's data sets: shared judge rates, ``labelled`` of ``n`` items per
    system.
    """

    def draw(rng) -> SBCDataset:

        pr = items_priors()
        theta = rng.beta(*pr.theta, systems)
        q0, q1 = rng.beta(*pr.q0), rng.beta(*pr.q1)
        frame = pd.concat(
            [_items_frame(rng, theta[i], q0, q1, n, labelled, f"s{i}") for i in range(systems)]
        )
        study = AccuracyStudy.from_items(
            frame, judge="j0", system="system", estimand="process", judge_rates="shared"
        )
        truth = {"theta": theta, "q0": np.array(q0), "q1": np.array(q1)}
        return SBCDataset(study.model_spec(), truth)

    return draw


def items_pooled_problem(n: int = 200, labelled: int = 40, systems: int = 3) -> Callable:
    """The items model's data sets with the judge's rates pooled across systems."""

    def draw(rng) -> SBCDataset:
        pr = items_priors()
        theta = rng.beta(*pr.theta, systems)
        truth = {"theta": theta}
        rates = {}
        for r, (a, b) in ((0, pr.q0), (1, pr.q1)):  # logit-normal around the typical rate
            mean, sigma = rng.beta(a, b), abs(rng.normal(0, pr.judge_sigma))
            rates[r] = expit(logit(mean) + sigma * rng.normal(size=systems))
            truth[f"q{r}"], truth[f"q{r}_sigma"] = rates[r], np.array(sigma)
        frame = pd.concat(
            [
                _items_frame(rng, theta[i], rates[0][i], rates[1][i], n, labelled, f"s{i}")
                for i in range(systems)
            ]
        )
        study = AccuracyStudy.from_items(
            frame, judge="j0", system="system", estimand="process", judge_rates="pooled"
        )
        return SBCDataset(study.model_spec(), truth)

    return draw


def items_covariate_problem(n: int = 200, labelled: int = 40, systems: int = 2) -> Callable:
    """The covariate items model's data sets: rates logistic in a covariate."""

    def draw(rng) -> SBCDataset:
        pr = items_priors()
        x = rng.normal(np.linspace(-0.7, 0.7, systems)[:, None], 1.0, (systems, n))
        z = (x - x.mean()) / x.std()  # what the study standardises to
        th0 = rng.beta(*pr.theta, systems)
        gamma = rng.normal(0, pr.coef_sd, systems)
        q0, q1 = rng.beta(*pr.q0), rng.beta(*pr.q1)
        b0, b1 = rng.normal(0, pr.coef_sd, 2)
        item_rate = expit(logit(th0)[:, None] + gamma[:, None] * z)
        h = rng.random((systems, n)) < item_rate
        sens = expit(logit(q1) + b1 * z)
        spec = expit(logit(q0) + b0 * z)
        v = np.where(h, rng.random((systems, n)) < sens, rng.random((systems, n)) >= spec)
        lab = np.arange(n)[None, :] < labelled
        frame = pd.DataFrame(
            {
                "system": np.repeat([f"s{i}" for i in range(systems)], n),
                "j0": v.astype(int).ravel(),
                "human": np.where(lab, h.astype(float), np.nan).ravel(),
                "x": x.ravel(),
            }
        )
        study = AccuracyStudy.from_items(
            frame,
            judge="j0",
            system="system",
            covariates="x",
            estimand="process",
            judge_rates="shared",
        )
        truth = {
            "theta": item_rate.mean(1),
            "q0": np.array([q0]),
            "q1": np.array([q1]),
            "q0_coef": np.array([b0]),
            "q1_coef": np.array([b1]),
            "rate_coef": gamma,
        }
        return SBCDataset(study.model_spec(), truth)

    return draw


def items_clustered_problem(clusters: int = 12, size: int = 20, labelled: int = 4) -> Callable:
    """The clustered items model's data sets: ``clusters`` prompts of ``size``
    responses, ``labelled`` labelled per prompt.
    """

    def draw(rng) -> SBCDataset:

        pr = items_priors()
        mu, sigma = rng.normal(*pr.cluster_mu), abs(rng.normal(0, pr.cluster_sigma))
        rates = expit(mu + sigma * rng.normal(size=clusters))
        q0, q1 = rng.beta(*pr.q0), rng.beta(*pr.q1)
        frame = pd.concat(
            [
                _items_frame(rng, r, q0, q1, size, labelled).assign(prompt=f"p{g}")
                for g, r in enumerate(rates)
            ]
        )
        study = AccuracyStudy.from_items(
            frame, judge="j0", cluster="prompt", estimand="process", judge_rates="shared"
        )
        # the population mean rate by a 2,001-point midpoint rule over the normal's quantiles
        u = (np.arange(2001) + 0.5) / 2001
        theta = expit(mu + sigma * stats.norm.ppf(u)).mean()
        truth = {
            "theta": np.array([theta]),
            "mu": np.array([mu]),
            "sigma": np.array([sigma]),
            "q0": np.array(q0),
            "q1": np.array(q1),
        }
        return SBCDataset(study.model_spec(), truth)

    return draw


def items_judges_problem(n: int = 300, labelled: int = 40, judges: int = 3) -> Callable:
    """The latent-class model's data sets: ``judges`` judges on the same items."""

    def draw(rng) -> SBCDataset:

        pr = items_priors()
        theta = rng.beta(*pr.theta)
        q0, q1 = rng.beta(*pr.q0, judges), rng.beta(*pr.q1, judges)
        frame = _items_frame(rng, theta, q0, q1, n, labelled)
        study = AccuracyStudy.from_items(
            frame, judge=[f"j{i}" for i in range(judges)], estimand="process"
        )
        truth = {"theta": np.array([theta]), "q0": q0, "q1": q1}
        return SBCDataset(study.model_spec(), truth)

    return draw


def items_over_time_problem(weeks: int = 6, n: int = 150, labelled: int = 25) -> Callable:
    """The dynamic items model's data sets: ``weeks`` periods, the judge's rates and
    the rate walking.
    """
    """Drawn from the dynamic model's prior (:func:`items_dynamic_model`): random walks on
    the judge's logit rates and the rate over ``weeks`` periods.
    """

    def draw(rng) -> SBCDataset:
        pr = items_priors()

        def walk(start, size=None):
            step = abs(rng.normal(0, pr.walk_step))
            first = rng.normal(*start, size=size)
            shape = (weeks,) if size is None else (size, weeks)
            share, scale = pr.walk_jump  # a two-normal mixture: a wide step with prob. share
            z = rng.normal(0, 1, shape) * np.where(rng.random(shape) < share, scale, 1.0)
            z[..., 0] = 0.0
            return expit(np.asarray(first)[..., None] + step * np.cumsum(z, axis=-1)), step

        theta, _ = walk(pr.cluster_mu, size=1)
        q1, _ = walk(pr.strata_mu)
        q0, _ = walk(pr.strata_mu)
        frame = pd.concat(
            [
                _items_frame(rng, theta[0, w], q0[w], q1[w], n, labelled).assign(week=w)
                for w in range(weeks)
            ]
        )
        study = AccuracyStudy.from_items(frame, judge="j0", time="week", estimand="process")
        truth = {"theta_stratum": theta, "q0": q0, "q1": q1}
        return SBCDataset(study.model_spec(), truth)

    return draw
