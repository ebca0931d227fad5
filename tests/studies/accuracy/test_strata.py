"""The stratified accuracy variant (judgebayes/studies/accuracy/strata.py): recovery where
pooling mis-corrects (slow), Laplace refused by name on the pooled strata model, and the
contract's cases.
"""

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.errors import MethodRefused
from tests.contract import ContractTests
from tests.helpers import NUTS


# slow tier: a recovery study (DESIGN: recovery and coverage studies are `slow`);
# the fast suite still samples these models elsewhere. Moved for the 15-min budget.
@pytest.mark.slow
def test_strata_recovery():
    rng = np.random.default_rng(8)
    strata = ("short", "long")
    q0 = {"short": 0.9, "long": 0.6}  # the judge is lenient on long answers
    q1 = {"short": 0.9, "long": 0.95}
    theta = {"short": 0.3, "long": 0.7}
    n = {"short": 3000, "long": 1000}
    k = [[rng.binomial(n[s], theta[s] * q1[s] + (1 - theta[s]) * (1 - q0[s])) for s in strata]]
    cal = jb.io.CalibrationCounts(
        tp=[rng.binomial(150, q1[s]) for s in strata],
        m1=[150, 150],
        tn=[rng.binomial(150, q0[s]) for s in strata],
        m0=[150, 150],
        strata=strata,
    )
    test = jb.io.TestCounts(k=k, n=[[n[s] for s in strata]], n_missing=[[0, 0]], strata=strata)
    study = jb.AccuracyStudy(test, cal)
    assert study.kind == "strata"
    fit = study.fit("nuts", random_seed=2, sampler={**NUTS, "target_accept": 0.95})
    true_overall = (3000 * 0.3 + 1000 * 0.7) / 4000
    iv = fit.interval(0.01).iloc[0]
    assert iv["lower"] <= true_overall <= iv["upper"]
    assert fit.diagnostics.divergences == 0
    # the gate ran on every free variable: non-centred offsets and per-stratum rates too
    assert {"z_q0", "z_q1", "theta_stratum", "sigma_q0"} <= set(fit.diagnostics.var_names)
    cf = study.fit("closed_form").interval(0.01).iloc[0]
    assert cf["lower"] <= true_overall <= cf["upper"]
    # pooling everything into one confusion matrix mis-corrects (the invariance failure)
    pooled = (
        jb.AccuracyStudy(jb.io.TestCounts.from_arrays(int(np.sum(k)), 4000), cal.pooled())
        .fit("closed_form")
        .interval()
        .iloc[0]
    )
    assert abs(pooled["estimate"] - true_overall) > abs(iv["estimate"] - true_overall)


def test_the_pooled_strata_model_refuses_laplace_by_name():
    strata = ("a", "b")
    cal = jb.io.CalibrationCounts(
        tp=[90, 80], m1=[100, 100], tn=[80, 60], m0=[100, 100], strata=strata
    )
    test = jb.io.TestCounts(k=[[500, 300]], n=[[1000, 500]], n_missing=[[0, 0]], strata=strata)
    with pytest.raises(MethodRefused, match="method='nuts'") as e:
        jb.AccuracyStudy(test, cal).fit("laplace")
    assert (e.value.field, e.value.value) == ("method", "laplace")


class TestContract(ContractTests):
    keys = ("accuracy.strata",)
