"""What a closed form of the scores design returns (judgebayes/inference/scores/estimate.py):
t intervals against scipy clipped to the scale, and the calibration's delete-a-fold
jackknife worked by hand."""

import numpy as np
import pandas as pd
from scipy import stats

from judgebayes.data.scores import scores_from_frame
from judgebayes.inference.scores import Calibration
from judgebayes.inference.scores.estimate import ScoreEstimate, fold_jackknife


def test_the_interval_is_a_t_interval_clipped_to_the_scale():
    e = ScoreEstimate(np.array([3.0, 1.2]), np.array([0.2, 0.5]), np.array([9.0, 4.0]), (1, 5))
    lo, hi = e.interval(0.05)
    t9, t4 = stats.t.ppf(0.975, 9), stats.t.ppf(0.975, 4)
    np.testing.assert_allclose(lo, [3.0 - 0.2 * t9, 1.0])  # clipped at the scale's floor
    np.testing.assert_allclose(hi, [3.0 + 0.2 * t9, 1.2 + 0.5 * t4])


def test_the_fold_jackknife_by_hand():
    # one system of 4 rows, rows 0 and 2 labelled; two folds' calibrations m1, m2.  What
    # the estimate reads off a calibration m: mean(m) - mean(m[labelled]); the jackknife
    # of two values g1, g2 is (1/2) ((g1 - g)^2 + (g2 - g)^2) with g their mean
    frame = pd.DataFrame({"score": [1.0, 2.0, 3.0, 4.0], "human": [1.0, None, 0.0, None]})
    data = scores_from_frame(frame, score="score", human="human")
    m1, m2 = np.array([0.2, 0.4, 0.6, 0.8]), np.array([0.1, 0.1, 0.1, 0.9])
    cal = Calibration(pred=m1, fold=np.zeros(4, int), models=np.stack([m1, m2]))
    g1 = m1.mean() - m1[[0, 2]].mean()  # 0.5 - 0.4 = 0.1
    g2 = m2.mean() - m2[[0, 2]].mean()  # 0.3 - 0.1 = 0.2
    want = 0.5 * ((g1 - 0.15) ** 2 + (g2 - 0.15) ** 2)
    got = fold_jackknife(data, cal, np.array([4.0]), np.array([2.0]))
    np.testing.assert_allclose(got, [want])
    one = Calibration(pred=m1, fold=np.zeros(4, int), models=m1[None, :])
    assert fold_jackknife(data, one, np.array([4.0]), np.array([2.0])).tolist() == [0.0]
