"""The items family's door (judgebayes/studies/items/base.py): the judge's rates it offers per
method, and the few-clusters warning by the clusters' effective number.
"""

import pytest

import judgebayes as jb
from tests.simulators import lenient_on_long, unequal_clusters


def test_laplace_refuses_pooled_judge_rates_up_front_and_compare_shows_the_row():
    # the importance check refused Laplace on the pooled rates in 40 of 40 simulated
    # two-system sets; the refusal now comes before any work, names the remedies, and a
    # side-by-side comparison keeps the other methods with a refused row
    from judgebayes.errors import LaplaceError

    f, _ = lenient_on_long(7, follows=False, n=150, n_lab=40)
    study = jb.AccuracyStudy.from_items(f, system="system")
    assert study.judge_rates == "pooled"
    with pytest.raises(LaplaceError, match=r"pooled.*per_system"):
        study.fit("laplace")
    table = study.compare(methods=("closed_form", "laplace"))
    refused = table[table["method"] == "laplace"]
    assert len(refused) >= 1 and refused["lower"].isna().all()
    assert table[table["method"] == "closed_form"]["lower"].notna().all()
    jb.AccuracyStudy.from_items(f, system="system", judge_rates="per_system").fit("laplace")


def test_one_big_cluster_among_twenty_warns_by_its_effective_number():
    frame, _ = unequal_clusters(0, 20, "big")
    with pytest.warns(jb.errors.FewClustersWarning, match="20 clusters worth 4.6"):
        jb.AccuracyStudy.from_items(frame, cluster="prompt")
