"""The repeats methods (judgebayes/studies/repeats/methods.py): the closed form's fit is the
result contract, side by side in compare, and the workflow's table.
"""

import numpy as np

import judgebayes as jb


def _sim(seed, runs=3):
    return jb.simulate.simulate_repeats(150, 4, runs, seed=seed)[0]


def test_repeats_fits_are_the_result_contract_and_compare_side_by_side():
    study = jb.RepeatsStudy.from_frame(_sim(3))
    fit = study.fit("closed_form", random_seed=3)
    assert (fit.quantity, fit.unit, fit.family) == ("variance", "component", "accuracy")
    iv = fit.interval()
    assert list(iv.index) == ["prompt", "generation", "judge run"]
    table = jb.compare([fit])
    assert set(table["unit"]) == {"prompt", "generation", "judge run"}
    # the table the workflow returns is this fit's interval
    split = jb.variance_split(_sim(3), random_seed=3)
    np.testing.assert_array_equal(split["variance"].to_numpy(), iv["estimate"].to_numpy())
