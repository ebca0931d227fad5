"""The panel models' priors (judgebayes/models/panel/priors.py): a bad setting is an
InputError naming its field, the gate's variables, and a builder's density moving with the
setting it reads.
"""

import math

import numpy as np
import pytest

from judgebayes.models.panel import PanelPriors, panel_cell_model, panel_var_names
from tests.models.logp import TOL, normal, refused_setting, terms

PAIRS = ("mu_g", "mu_tpr", "mu_tnr", "log_phi", "mu_leniency")
SCALES = (
    "sigma_g", "sigma_tpr", "sigma_tnr", "tau_generator", "tau_cell", "self_shift",
    "sigma_difficulty", "sigma_leniency",
)  # fmt: skip
BAD = [
    *((f, (0.0, 0.0)) for f in PAIRS),
    ("mu_g", (1.0, math.nan)),
    ("mu_tpr", (1.0, 1.0, 1.0)),
    *((f, 0.0) for f in SCALES),
    ("tau_cell", -1.0),
    ("sigma_g", math.nan),
]


@pytest.mark.parametrize(("field", "value"), BAD, ids=[f"{f}={v}" for f, v in BAD])
def test_a_bad_setting_is_an_input_error_naming_its_field(field, value):
    refused_setting(PanelPriors, "priors", field, value)


def test_the_gate_checks_the_reported_rates():
    assert panel_var_names() == ("g", "tpr", "tnr", "precision_judged")


def _one_generator(data, priors):
    return panel_cell_model(
        **data, generators=("g",), validators=("a", "b"), rate_shift=False, priors=priors
    )


def test_a_builder_reads_the_generators_prior():
    """Move mu_g's prior: its term follows the normal densities, nothing else moves."""
    data = dict(
        n_rest=[[30, 28]], k_rest=[[20, 18]], tp=[[4, 5]], pos=[[5, 6]], tn=[[3, 2]],
        neg=[[5, 4]], n_annotated=[10], n_valid_human=[5], self_mask=[[False, False]],
    )  # fmt: skip
    point = {"mu_g": 1.1, "mu_tpr": 2.0, "mu_tnr": 0.3, "sigma_tpr": 0.5, "sigma_tnr": 0.6}
    point |= {"tpr_z": np.array([0.2, -0.3]), "tnr_z": np.array([0.4, 0.1]), "f_z": [0.5]}
    base, moved = (
        terms(_one_generator(data, pr), point)
        for pr in (PanelPriors(), PanelPriors(mu_g=(0.5, 0.8)))
    )
    assert base["mu_g"] == pytest.approx(normal(1.1, 2.0, 1.5), **TOL)
    assert moved["mu_g"] == pytest.approx(normal(1.1, 0.5, 0.8), **TOL)
    rest = [k for k in base if k != "mu_g"]
    assert [moved[k] for k in rest] == pytest.approx([base[k] for k in rest], **TOL)
