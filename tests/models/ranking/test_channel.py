"""The judge-error ranking (judgebayes/models/ranking/channel.py): its variables and dims,
its log density at fixed points against the module docstring's (a judge's verdict as a
noisy channel of the human outcome, shifted by covariates and favouritism; scipy.stats),
and the numpy shift and verdict probabilities.
"""

import numpy as np
import pytest

from judgebayes.models.ranking.channel import (
    channel_shift,
    channel_var_names,
    judge_channel_model,
    verdict_probs,
)
from tests.models.logp import (
    TOL,
    coords,
    dims,
    dirichlet_rows,
    evaluate,
    half_normal,
    normal,
    zero_sum_normal,
)

FIRST, SECOND = np.array([0, 1, 2, 0, 1]), np.array([1, 2, 0, 2, 0])
HUMAN = np.array([0, -1, 2, 1, -1])  # 0 first, 1 second, 2 tie, -1 not labelled
VERDICTS = np.array([[0, 0], [1, -1], [2, 0], [1, 1], [-1, 0]])  # -1: no verdict
WEIGHT = np.array([3.0, 2.0, 1.0, 4.0, 2.0])
X = np.array([[0.4], [-1.0], [0.2], [1.3], [-0.5]])
DATA = (FIRST, SECOND, HUMAN, VERDICTS, WEIGHT)
THETA_C = np.array([0.6, -0.1, -0.5])
SHIFT = np.array([0.5, -0.5, 0.0])  # e: toward "first", away from "second"


def _confusion(k):
    base = np.array([[0.7, 0.2, 0.1], [0.15, 0.75, 0.1], [0.2, 0.3, 0.5]])
    second = np.array([[0.6, 0.3, 0.1], [0.1, 0.8, 0.1], [0.25, 0.25, 0.5]])
    conf = np.stack([base, second])[:, :k, :k]
    return conf / conf.sum(-1, keepdims=True)


def _reference(data, conf, theta, log_nu, s, k):
    """sum_g w_g log sum_h P(h) prod_j P(v_gj | h) over the outcomes h the label allows."""
    first, second, human, verdicts, weight = data
    eta = theta[first] - theta[second]
    u = np.stack([eta / 2, -eta / 2, np.full(eta.size, log_nu)], 1)[:, :k]
    log_ph = u - np.logaddexp.reduce(u, axis=1, keepdims=True)
    total = 0.0
    for g in range(eta.size):
        terms = []
        for h in range(k):
            if human[g] >= 0 and human[g] != h:
                continue
            t = log_ph[g, h]
            for j, v in enumerate(verdicts[g]):
                if v < 0:  # a missing verdict contributes nothing
                    continue
                row = np.log(conf[j, h]) + s[g, j] * SHIFT[:k]
                t += row[v] - np.logaddexp.reduce(row)
            terms.append(t)
        total += weight[g] * np.logaddexp.reduce(terms)
    return total


def test_two_judges_channels_shifted_by_a_covariate_and_favouritism():
    model = judge_channel_model(
        *DATA, X,
        items=("a", "b", "c"), judges=("j1", "j2"), n_outcomes=3, lam=1.5, lam_nu=0.5,
        confusion_diag=3.0, confusion_off=1.5, channel_covariates=("length",), favour=True,
        coef_sd=0.6, favour_scale=0.4,
    )  # fmt: skip
    outcomes = ["first", "second", "tie"]
    assert coords(model) == {
        "item": ["a", "b", "c"],
        "judge": ["j1", "j2"],
        "human_outcome": outcomes,
        "verdict": outcomes,
        "channel_covariate": ["length"],
    }
    assert dims(model, "free_RVs") == {
        "theta_mean": (), "theta_centred": ("item",), "log_nu": (),
        "confusion": ("judge", "human_outcome", "verdict"),
        "channel_coef": ("judge", "channel_covariate"), "favour_sd": ("judge",),
        "favour_z": ("judge", "item"),
    }  # fmt: skip
    assert [p.name for p in model.potentials] == ["loglik"] and not model.observed_RVs
    assert dims(model, "deterministics") == {
        "theta": ("item",), "nu": (), "agreement": ("judge", "human_outcome"),
        "favour": ("judge", "item"),
    }  # fmt: skip

    conf, coef = _confusion(3), np.array([[0.8], [-0.3]])
    fsd, fz = np.array([0.3, 0.5]), np.array([[1.0, -0.4, 0.2], [0.0, 0.7, -1.1]])
    point = {"theta_mean": 0.1, "theta_centred": THETA_C, "log_nu": -0.7, "confusion": conf}
    lp, det = evaluate(model, point | {"channel_coef": coef, "favour_sd": fsd, "favour_z": fz})
    fav = fsd[:, None] * fz
    np.testing.assert_allclose(det["favour"], fav, rtol=1e-14)
    np.testing.assert_allclose(det["agreement"], np.diagonal(conf, axis1=1, axis2=2))
    s = X @ coef.T + (fav[:, FIRST] - fav[:, SECOND]).T  # (G, J)
    alpha = np.where(np.eye(3, dtype=bool), 3.0, 1.5)
    assert lp == pytest.approx(
        {
            "theta_mean": normal(0.1, 0, 1 / np.sqrt(1.5 * 3)),
            "theta_centred": zero_sum_normal(THETA_C, 1 / np.sqrt(1.5)),
            "log_nu": normal(-0.7, 0, 1 / np.sqrt(0.5)),
            "confusion": dirichlet_rows(conf, np.broadcast_to(alpha, conf.shape)),
            "channel_coef": normal(coef, 0, 0.6),
            "favour_sd": half_normal(fsd, 0.4),
            "favour_z": normal(fz, 0, 1),
            "loglik": _reference(DATA, conf, 0.1 + THETA_C, -0.7, s, 3),
        },
        **TOL,
    )
    # the numpy shift and verdict probabilities of the checks: the same channel
    post = {"confusion": conf[None], "channel_coef": coef[None], "favour": fav[None]}
    for j in range(2):
        got = channel_shift(post, X, FIRST, SECOND, j)
        np.testing.assert_allclose(got, s[None, :, j], rtol=1e-14)
        p = verdict_probs(conf[j][None, [0, 1, 2, 0, 1]], got)
        row = np.log(conf[j][[0, 1, 2, 0, 1]]) + got[0][:, None] * SHIFT
        np.testing.assert_allclose(p[0], np.exp(row - np.logaddexp.reduce(row, 1, keepdims=True)))


def test_without_ties_or_shifts_a_judge_is_a_confusion_matrix():
    keep = HUMAN < 2  # no tie labelled; verdicts of ties dropped
    data = (FIRST[keep], SECOND[keep], HUMAN[keep], np.where(VERDICTS == 2, -1, VERDICTS)[keep])
    data += (WEIGHT[keep],)
    model = judge_channel_model(*data, items=("a", "b", "c"), judges=("j1", "j2"))
    assert set(dims(model, "free_RVs")) == {"theta_mean", "theta_centred", "confusion"}
    conf = _confusion(2)
    lp = evaluate(model, {"theta_mean": 0.1, "theta_centred": THETA_C, "confusion": conf})[0]
    no_shift = np.zeros((keep.sum(), 2))
    assert lp["loglik"] == pytest.approx(
        _reference(data, conf, 0.1 + THETA_C, 0.0, no_shift, 2), **TOL
    )
    # the default prior: 4 on the agreeing verdict, 1 on the other
    assert lp["confusion"] == pytest.approx(dirichlet_rows(conf, [[4, 1], [1, 4]]), **TOL)
    assert channel_var_names(2) == ("theta", "confusion")
    assert channel_var_names(3, covariates=True, favour=True) == (
        "theta", "confusion", "nu", "channel_coef", "favour",
    )  # fmt: skip
