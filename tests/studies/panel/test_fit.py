"""The panel family's fit (judgebayes/studies/panel/fit.py): a generator's precision over
the generators, and the validators' rates only where the method estimates them."""

import numpy as np

from judgebayes.inference.panel.regression import fit_regression
from judgebayes.studies.panel import ValidatorPanel


def test_a_fit_names_its_generators_and_carries_rates_only_where_estimated(panel_sim):
    d = panel_sim.panel()
    panel = ValidatorPanel(d)
    mean = panel.fit("validator_mean")
    assert mean.generators == d.generators and (mean.quantity, mean.unit) == ("g", "generator")
    # the validator mean, by numpy: each generator's share judged valid, averaged over cells
    np.testing.assert_allclose(mean.estimate(), np.nanmean(d.n_valid / d.n_judged, axis=1))
    assert mean.tpr is None and mean.tnr is None  # votes estimate no validator rates
    reg = panel.fit("regression", random_seed=4, restarts=3)
    ref = fit_regression(d, restarts=3, seed=4)  # the engine, run on its own
    np.testing.assert_allclose(reg.tpr, ref.tpr)
    np.testing.assert_allclose(reg.tnr, ref.tnr)
    assert reg.tpr.shape == (len(d.validators),)
