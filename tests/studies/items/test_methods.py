"""The methods every items variant shares (judgebayes/studies/items/methods.py): a point fit
builds its InferenceData on first use, with both estimands.
"""

import json
import warnings

import numpy as np
import pandas as pd

import judgebayes as jb
from judgebayes.data.items import items_from_frame
from judgebayes.inference import items as ie
from tests.helpers import systems_frame


def test_a_point_fit_builds_its_inferencedata_on_first_use_with_both_estimands():
    import pickle

    f = systems_frame(n=400, labelled=80)
    # labels at random; system c's row order falls in the labelling check's 1% (p 0.003)
    warnings.simplefilter("ignore", jb.errors.LabellingWarning)
    study = jb.AccuracyStudy.from_items(f, system="system", estimand="process")
    fit = study.fit("closed_form")
    assert "idata" not in fit.__dict__  # deferred: interval() needs no xarray object
    iv = fit.interval()
    assert "idata" not in fit.__dict__
    assert list(iv.index) == ["a", "b", "c"] and fit.units == ("a", "b", "c")
    d = items_from_frame(f, system="system")
    ref = {e: ie.double_sampling_items(d, e) for e in ("process", "items")}
    lo, hi = ref["process"].interval(0.05)
    np.testing.assert_array_equal(iv["lower"], lo)
    np.testing.assert_array_equal(iv["upper"], hi)
    post = fit.tree.posterior  # built now, once, with the other estimand and the stamp
    np.testing.assert_array_equal(post["theta"].values.ravel(), ref["process"].estimate)
    np.testing.assert_array_equal(post["theta_items"].values.ravel(), ref["items"].estimate)
    assert fit.tree is fit.tree and fit.tree.attrs["method"] == "closed_form"
    # what ArviZ reads: the confidence draws of theta, built once, the estimates beside
    assert fit.idata is fit.idata and fit.idata.attrs["method"] == "closed_form"
    np.testing.assert_array_equal(
        fit.idata["point"]["theta"].values.ravel(), ref["process"].estimate
    )
    assert json.loads(fit.idata.attrs["estimand"]) == "process"
    again = pickle.loads(pickle.dumps(study.fit("closed_form")))
    assert again.idata.attrs["method"] == "closed_form"
    pd.testing.assert_frame_equal(again.interval(), iv)
