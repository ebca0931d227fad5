"""Clustered items (judgebayes/studies/items/clustered.py): the Bayesian model's coverage where
the iid model's fails, the comparators that take items as independent refused, and the
contract's cases of the study class (tests/contract.py).
"""

import warnings

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.errors import MethodRefused
from tests.contract import ContractTests


class TestContract(ContractTests):
    keys = ("items.clustered",)


@pytest.mark.slow
def test_clustered_bayesian_model_covers_where_the_iid_model_does_not():
    # 100 prompts x 10 responses, ICC 0.3, 200 random labels; 40 replicates (MC sd of a
    # 0.95 coverage: 0.034).  The iid items model ignores the prompts and under-covers the
    # process rate (the closed form's iid interval covers ~0.86 here).
    hits = {"clustered": [], "iid": []}
    for r in range(40):
        sim = jb.simulate.simulate_items(
            1000, n_labelled=200, cluster_size=10, icc=0.3, seed=700 + r
        )
        for name, cl in (("clustered", "cluster"), ("iid", None)):
            study = jb.AccuracyStudy.from_items(sim.frame, cluster=cl, estimand="process")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                fit = study.fit("nuts", random_seed=r, sampler={"draws": 500})
            iv = fit.interval().iloc[0]
            hits[name].append(iv["lower"] <= sim.theta <= iv["upper"])
    assert np.mean(hits["clustered"]) >= 0.87
    assert np.mean(hits["iid"]) < np.mean(hits["clustered"])


def test_few_clusters_warn_and_iid_comparators_refuse_clusters():
    sim = jb.simulate.simulate_items(200, n_labelled=60, cluster_size=50, icc=0.1, seed=1)
    with pytest.warns(jb.errors.FewClustersWarning, match="4 clusters"):
        study = jb.AccuracyStudy.from_items(sim.frame, cluster="cluster", estimand="process")
    fit = study.fit("closed_form")
    assert "Bell-McCaffrey" in fit.info["estimator"]
    for method in ("ppi", "ppi_plus_plus", "labels_only", "naive", "rogan_gladen"):
        with pytest.raises(MethodRefused, match="treats items as independent") as e:
            study.fit(method)
        assert e.value.field == "cluster"
    # compare() shows the refusals as rows and still fits the others
    table = study.compare(methods=("closed_form", "ppi_plus_plus"))
    refused = table.set_index("method").loc["ppi_plus_plus"]
    assert np.isnan(refused["estimate"]) and "independent" in refused["note"]
    assert np.isfinite(table.set_index("method").loc["closed_form", "estimate"])
