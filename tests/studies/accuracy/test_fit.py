"""The accuracy family's fit (judgebayes/studies/accuracy/fit.py): several systems recovered by
NUTS, their contrasts and the probability each is best.
"""

import pytest

import judgebayes as jb
from judgebayes.errors import InputError
from tests.helpers import NUTS


@pytest.fixture(scope="session")
def three_systems():
    # counts at their expected values: recovery without sampling noise (a noisy shared
    # calibration set shifts every system the same way, which is the model, not a failure)
    truth = {"A": 0.5, "B": 0.6, "C": 0.8}
    q0, q1, n = 0.8, 0.9, 4000
    k = [round(n * (t * q1 + (1 - t) * (1 - q0))) for t in truth.values()]
    study = jb.AccuracyStudy.from_counts(
        k=k,
        n=[n] * 3,
        tn=round(400 * q0),
        m0=400,
        tp=round(400 * q1),
        m1=400,
        systems=list(truth),
    )
    return truth, study, study.fit("nuts", random_seed=3, sampler=NUTS)


def test_several_systems_recovery_and_contrasts(three_systems):
    truth, study, fit = three_systems
    iv = fit.interval(0.01)
    for s, t in truth.items():
        assert iv.loc[s, "lower"] <= t <= iv.loc[s, "upper"]
    con = fit.contrasts()
    ca = con[(con["a"] == "C") & (con["b"] == "A")].iloc[0]
    assert ca["p_a_greater"] > 0.99
    best = fit.prob_best()
    assert best.idxmax() == "C" and best.sum() == pytest.approx(1.0)
    with pytest.raises(InputError):
        study.fit("closed_form").contrasts()
