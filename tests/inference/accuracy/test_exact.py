"""The exact posterior of the two-frame design (judgebayes/inference/accuracy/exact.py): the
mirror probability against Monte-Carlo.
"""

import numpy as np
import pytest


def test_mirror_probability_against_monte_carlo():
    # independent reference: (q0, q1) from their calibration Beta posteriors, theta
    # uniform, weighted by the test likelihood; 400,000 draws give Monte-Carlo sd < 0.002
    from scipy import stats

    from judgebayes.inference.accuracy.exact import mirror_probability

    rng = np.random.default_rng(0)
    N = 400_000
    for k, n, tp, m1, tn, m0 in ((96, 120, 4, 6, 3, 6), (30, 90, 5, 6, 2, 3), (0, 0, 2, 4, 1, 4)):
        q0 = rng.beta(1 + tn, 1 + m0 - tn, N)
        q1 = rng.beta(1 + tp, 1 + m1 - tp, N)
        th = rng.random(N)
        w = stats.binom.pmf(k, n, th * q1 + (1 - th) * (1 - q0))
        ref = np.sum(w * (q0 + q1 < 1)) / np.sum(w)
        assert mirror_probability(k, n, tp, m1, tn, m0) == pytest.approx(ref, abs=0.01)
