"""The panel's item-level model (judgebayes/models/panel/items.py): its variables and dims,
and its log density at a fixed point against the module docstring's (Dawid-Skene, the true
label summed out where no human gave it), output by output in numpy.
"""

import numpy as np
import pytest

from judgebayes.models.panel import PanelPriors, panel_item_model
from tests.models.logp import TOL, coords, dims, evaluate, expit, half_normal, normal

PRIORS = PanelPriors(mu_g=(1.5, 1.2), self_shift=0.7, sigma_difficulty=0.6)
OUT_GEN = np.array([0, 0, 1, 1, 1])
# (output, validator, verdict) of each verdict given
VERDICTS = np.array(
    [[0, 0, 1], [0, 1, 1], [1, 0, 0], [1, 1, 1], [2, 0, 1], [3, 1, 0], [3, 0, 0], [4, 1, 1]]
)
HUMAN = np.array([1, -1, 0, -1, -1])  # -1: no human label
SELF = np.array([[0, 1], [0, 0]], dtype=bool)


def test_each_outputs_true_label_is_summed_out_unless_a_human_gave_it():
    model = panel_item_model(
        OUT_GEN, *VERDICTS.T, HUMAN, SELF,
        generators=("g1", "g2"), validators=("v1", "v2"), n_outputs=5,
        rate_shift=False, self_shift=True, difficulty=True, priors=PRIORS,
    )  # fmt: skip
    assert coords(model) == {
        "generator": ["g1", "g2"],
        "validator": ["v1", "v2"],
        "output": [0, 1, 2, 3, 4],
    }
    v = ("validator",)
    assert dims(model, "free_RVs") == {
        "mu_g": (), "sigma_g": (), "g_z": ("generator",), "mu_tpr": (), "mu_tnr": (),
        "sigma_tpr": (), "sigma_tnr": (), "tpr_z": v, "tnr_z": v, "self_tpr_shift": (),
        "self_tnr_shift": (), "sigma_difficulty": (), "difficulty_z": ("output",),
    }  # fmt: skip
    assert [p.name for p in model.potentials] == ["items"] and not model.observed_RVs

    g_z, tpr_z, tnr_z = np.array([0.4, -0.7]), np.array([0.3, -0.2]), np.array([-0.5, 1.0])
    dz = np.array([0.2, -1.1, 0.6, 0.0, 1.4])
    point = {"mu_g": 1.2, "sigma_g": 0.5, "g_z": g_z, "mu_tpr": 2.0, "mu_tnr": 0.4}
    point |= {"sigma_tpr": 0.6, "sigma_tnr": 0.8, "tpr_z": tpr_z, "tnr_z": tnr_z}
    point |= {"self_tpr_shift": 0.3, "self_tnr_shift": -0.5, "sigma_difficulty": 0.9}
    lp, det = evaluate(model, point | {"difficulty_z": dz})

    g = expit(1.2 + 0.5 * g_z)
    lp_cell = (2.0 + 0.6 * tpr_z)[None, :] + 0.3 * SELF  # logit TPR per (generator, validator)
    ln_cell = (0.4 + 0.8 * tnr_z)[None, :] - 0.5 * SELF
    np.testing.assert_allclose(det["tpr_cell"], expit(lp_cell), rtol=1e-12)
    items = 0.0
    for o in range(5):
        l1 = np.log(g[OUT_GEN[o]])  # log P(c = 1) + log P(verdicts | c = 1)
        l0 = np.log1p(-g[OUT_GEN[o]])
        for _, j, y in VERDICTS[VERDICTS[:, 0] == o]:
            tpr = expit(lp_cell[OUT_GEN[o], j])
            # the difficulty lowers every validator's TNR on that output
            tnr = expit(ln_cell[OUT_GEN[o], j] - 0.9 * dz[o])
            l1 += np.log(tpr if y else 1 - tpr)
            l0 += np.log(1 - tnr if y else tnr)
        items += {1: l1, 0: l0}.get(HUMAN[o], np.logaddexp(l1, l0))
    assert lp == pytest.approx(
        {
            "mu_g": normal(1.2, 1.5, 1.2),
            "sigma_g": half_normal(0.5, 1.0),
            "g_z": normal(g_z, 0, 1),
            "mu_tpr": normal(2.0, 2.0, 1.5),
            "mu_tnr": normal(0.4, 0.0, 1.5),
            "sigma_tpr": half_normal(0.6, 1.0),
            "sigma_tnr": half_normal(0.8, 1.0),
            "tpr_z": normal(tpr_z, 0, 1),
            "tnr_z": normal(tnr_z, 0, 1),
            "self_tpr_shift": normal(0.3, 0, 0.7),
            "self_tnr_shift": normal(-0.5, 0, 0.7),
            "sigma_difficulty": half_normal(0.9, 0.6),
            "difficulty_z": normal(dz, 0, 1),
            "items": items,
        },
        **TOL,
    )
