"""Leave-s-out cross-validation of a panel (judgebayes/studies/panel/crossval.py): its
bookkeeping, and the paper's ordering of the point methods (slow).
"""

from math import comb

import numpy as np
import pytest

from judgebayes.errors import InputError
from judgebayes.inference.panel import ensembles as ens
from judgebayes.simulate.panel import simulate_panel
from judgebayes.studies.panel import ValidatorPanel


def test_cross_validate_bookkeeping(panel_sim):
    p = ValidatorPanel(panel_sim.panel())
    cv = p.cross_validate(s=range(6), methods=("validator_mean", "veto"))
    assert list(cv["n_subsets"][cv.method == "veto"]) == [comb(6, k) for k in range(6)]
    # the validator mean ignores annotations: the same MaxAE for every subset size's mean
    vm = cv[cv.method == "validator_mean"]
    A = p.data.annotated
    full = np.max(np.abs(ens.validator_mean(p.data)[A] - p.data.human_precision[A]))
    assert vm["worst_maxae"].max() == pytest.approx(full)
    sub = p.data.calibrate_on(A[:2])
    assert np.array_equal(sub.annotated, A[:2])
    assert sub.tp[A[2:]].sum() == 0 and sub.n_judged.sum() == p.data.n_judged.sum()
    with pytest.raises(InputError, match="s must be"):
        p.cross_validate(s=[6], methods=("veto",))
    # point methods have no gate: the failure columns are empty, not zero
    assert cv[["n_failed", "coverage_passed", "mean_maxae_passed"]].isna().all().all()


# slow tier: a recovery study (DESIGN: recovery and coverage studies are `slow`);
# the fast suite still samples these models elsewhere. Moved for the 15-min budget.
@pytest.mark.slow
def test_paper_ordering_individual_majority_veto_regression():
    # constant-rate panel (the regression's assumption) at the paper's scale
    s = simulate_panel(seed=11, rate_shift=0.0, n_outputs=700, difficulty_sd=0.5)
    p = ValidatorPanel(s.panel())
    cv = p.cross_validate(
        s=[2, 3], methods=("best_individual", "majority", "veto", "regression", "validator_mean")
    ).set_index(["method", "s"])["mean_maxae"]
    for k in (2, 3):
        assert cv[("regression", k)] < cv[("veto", k)] <= cv[("majority", k)] + 1e-9
        assert cv[("veto", k)] < cv[("best_individual", k)]
