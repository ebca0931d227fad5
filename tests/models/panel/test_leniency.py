"""The panel's leniency model (judgebayes/models/panel/leniency.py): its variables and dims
(annotated generators centred, unannotated ones through what their verdicts see), and its
log density at a fixed point against the docstring's (scipy.stats).
"""

import numpy as np
import pytest

from judgebayes.models.panel import PanelPriors, panel_leniency_model
from tests.models.logp import (
    TOL,
    binom,
    coords,
    dims,
    evaluate,
    expit,
    half_normal,
    logit,
    normal,
    zero_sum_normal,
)

PRIORS = PanelPriors(
    mu_g=(1.5, 1.2), mu_leniency=(0.3, 1.1), sigma_leniency=0.8, tau_generator=0.4,
    tau_cell=0.3, self_shift=0.7,
)  # fmt: skip
DATA = dict(
    n_rest=np.array([[40, 38, 40], [30, 30, 28], [20, 22, 21]]),
    k_rest=np.array([[30, 25, 33], [20, 15, 22], [15, 16, 14]]),
    tp=np.array([[5, 6, 4], [0, 0, 0], [3, 2, 4]]),
    pos=np.array([[6, 7, 6], [0, 0, 0], [4, 4, 5]]),
    tn=np.array([[2, 1, 3], [0, 0, 0], [3, 2, 1]]),
    neg=np.array([[4, 3, 4], [0, 0, 0], [5, 4, 3]]),
    n_annotated=np.array([10, 0, 9]),
    n_valid_human=np.array([6, 0, 4]),
    self_mask=np.array([[1, 0, 0], [0, 0, 0], [0, 1, 0]], dtype=bool),
)
GV, G = ("generator", "validator"), ("generator",)


def test_validators_shift_the_share_valid_on_the_logit_scale():
    model = panel_leniency_model(
        **DATA, generators=("g1", "g2", "g3"), validators=("v1", "v2", "v3"),
        annotated=(True, False, True), self_shift=True, priors=PRIORS,
    )  # fmt: skip
    assert coords(model) == {"generator": ["g1", "g2", "g3"], "validator": ["v1", "v2", "v3"]}
    assert dims(model, "free_RVs") == {
        "mu_leniency": (), "sigma_leniency": (), "leniency_offset": ("validator",),
        "omega": (), "g_logit_annotated": (), "shift_annotated": (), "generator_z": (),
        "judged_logit": (), "tau": (), "cell_deviation": GV, "self_shift": (), "f_z": G,
    }  # fmt: skip
    assert dims(model, "observed_RVs") == {"human": G, "annotated_cells": GV, "cells": GV}
    assert [p.name for p in model.potentials] == ["g_prior"]
    assert dims(model, "deterministics") == {
        "leniency": ("validator",), "g": G, "f": G, "precision_judged": G,
    }  # fmt: skip

    mu_b, sd_b, omega, tau = 0.2, 0.6, 0.35, 0.25
    b = np.array([0.4, -0.1, -0.3])  # sums to zero
    lg_a, shift_a = np.array([1.2, 0.4]), np.array([0.5, -0.2])  # g1, g3
    u, c = np.array([0.7]), np.array([2.0])  # g2: c = logit g + mu_b + omega u
    e = np.array([[0.1, -0.2, 0.05], [0.3, 0.0, -0.1], [-0.2, 0.15, 0.1]])
    f_z, delta = np.array([0.3, -0.6, 1.0]), 0.45
    point = {"mu_leniency": mu_b, "sigma_leniency": sd_b, "leniency_offset": b, "omega": omega}
    point |= {"g_logit_annotated": lg_a, "shift_annotated": shift_a, "generator_z": u}
    point |= {"judged_logit": c, "tau": tau, "cell_deviation": e, "self_shift": delta}
    lp, det = evaluate(model, point | {"f_z": f_z})

    level_u = mu_b + omega * u
    lg = np.array([lg_a[0], (c - level_u)[0], lg_a[1]])
    level = np.array([shift_a[0], level_u[0], shift_a[1]])
    g = expit(lg)
    shift = b[None, :] + level[:, None] + e + delta * DATA["self_mask"]
    n_i = DATA["n_rest"].max(1)
    lf = lg + f_z * np.sqrt(1 / (n_i * g + 0.5) + 1 / (n_i * (1 - g) + 0.5))
    np.testing.assert_allclose(det["g"], g, rtol=1e-12)
    np.testing.assert_allclose(det["leniency"], mu_b + b, rtol=1e-12)
    np.testing.assert_allclose(det["f"], expit(lf), rtol=1e-12)
    # on annotated outputs the share valid is known: (pos + 1/2) / (pos + neg + 1)
    pos, neg = DATA["pos"], DATA["neg"]
    share = (pos + 0.5) / (pos + neg + 1)
    assert lp == pytest.approx(
        {
            "mu_leniency": normal(mu_b, 0.3, 1.1),
            "sigma_leniency": half_normal(sd_b, 0.8),
            "leniency_offset": zero_sum_normal(b, sd_b),
            "omega": half_normal(omega, 0.4),
            "g_logit_annotated": normal(lg_a, 1.5, 1.2),
            "shift_annotated": normal(shift_a, mu_b, omega),
            "generator_z": normal(u, 0, 1),
            "judged_logit": 0.0,  # flat: its prior is the potential on logit g
            "tau": half_normal(tau, 0.3),
            "cell_deviation": normal(e, 0, tau),
            "self_shift": normal(delta, 0, 0.7),
            "f_z": normal(f_z, 0, 1),
            "g_prior": normal(c - level_u, 1.5, 1.2),
            "human": binom(DATA["n_valid_human"], DATA["n_annotated"], g),
            "annotated_cells": binom(
                DATA["tp"] + neg - DATA["tn"], pos + neg, expit(logit(share) + shift)
            ),
            "cells": binom(DATA["k_rest"], DATA["n_rest"], expit(lf[:, None] + shift)),
        },
        **TOL,
    )
