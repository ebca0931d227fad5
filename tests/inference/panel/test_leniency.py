"""The leniency check's statistic (judgebayes/inference/panel/leniency.py) on the real Beyond
Consensus panel, recomputed from the published frames with statsmodels' WLS and scipy.
"""

import numpy as np

from judgebayes.datasets.beyond_consensus import beyond_consensus_panel


def test_slope_check_against_weighted_least_squares_of_the_published_counts(beyond_consensus):
    """The leniency check's statistic on the real panel, recomputed from the published
    frames: validator cells averaged by pandas (own models' cells left out) with their
    delta-method noise, the generator deviations' variance by the method of moments
    written here, and the slope and its Knapp-Hartung standard error from statsmodels'
    WLS (whose scale is the weighted residual variance); the t test's p-value by scipy."""
    import importlib

    from scipy import stats

    from judgebayes.inference.panel.leniency import leniency_slope

    sm = importlib.import_module("statsmodels.api")  # a test-time reference
    cells, ann = beyond_consensus_panel()
    c = cells[cells["generator"].isin(ann["generator"]) & ~cells["self"].astype(bool)]
    k = c["tp"] + c["fp"] + 0.5
    rest = c["tp"] + c["fp"] + c["tn"] + c["fn"] + 1 - k
    c = c.assign(y=np.log(k / rest), v=1 / k + 1 / rest)
    g = c.groupby("generator")
    y, v = g["y"].mean().to_numpy(), (g["v"].sum() / g.size() ** 2).to_numpy()
    a = ann.set_index("generator").loc[g["y"].mean().index]
    s = a["n_valid_human"].to_numpy() + 0.5
    X = sm.add_constant(np.log(s / (a["n_annotated"].to_numpy() + 1 - s)))
    fixed = sm.WLS(y, X, weights=1 / v).fit()
    W = np.diag(1 / v)
    P = W - W @ X @ np.linalg.inv(X.T @ W @ X) @ X.T @ W
    tau2 = max(0.0, (np.sum(fixed.resid**2 / v) - (len(y) - 2)) / np.trace(P))
    ref = sm.WLS(y, X, weights=1 / (v + tau2)).fit()
    p_ref = 2 * stats.t.sf(abs((ref.params[1] - 1) / ref.bse[1]), len(y) - 2)
    r = leniency_slope(beyond_consensus[0].data)
    np.testing.assert_allclose(
        [r.slope, r.se, r.p_value, r.tau2], [ref.params[1], ref.bse[1], p_ref, tau2]
    )
    assert (r.df, r.n_annotated) == (4, 6) and r.tau2 > 0
