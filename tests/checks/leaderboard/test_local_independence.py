"""The ``local_independence`` check (judgebayes/checks/leaderboard/local_independence.py), on fits
built from known draws.

Boards simulated here with numpy: the one-parameter model, and the same with testlets
(groups of 5 items whose outcomes share a system-by-group effect of sd 1 logit, which
the model leaves out).  The fit's draws are the true abilities and difficulties with a
little spread (an oracle posterior), so the check's replicates come from the truth.
"""

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.checks.leaderboard.local_independence import q3_statistics
from judgebayes.results.trees import tree
from judgebayes.studies.leaderboard import BoardFit

S, N_ITEMS, GROUP = 12, 120, 5


def _board(seed, testlet_sd):
    rng = np.random.default_rng(seed)
    ability, b = rng.normal(0, 1, S), rng.normal(0, 1.3, N_ITEMS)
    group = np.arange(N_ITEMS) // GROUP
    u = rng.normal(0, testlet_sd, (S, N_ITEMS // GROUP))[:, group]
    p = 1 / (1 + np.exp(-(ability[:, None] - b[None, :] + u)))
    y = (rng.random(p.shape) < p).astype(float)
    frame = pd.DataFrame(
        {
            "system": np.repeat([f"s{k:02d}" for k in range(S)], N_ITEMS),
            "item": np.tile([f"i{k:03d}" for k in range(N_ITEMS)], S),
            "group": np.tile(group, S),
            "score": y.ravel(),
        }
    )
    return frame, ability, b


def _oracle(study, ability, b, rng, draws=400):
    a = ability[None] + rng.normal(0, 0.05, (draws, S))
    d = b[None] + rng.normal(0, 0.05, (draws, N_ITEMS))
    idata = tree(
        {"posterior": {"ability": a.reshape(2, -1, S), "difficulty": d.reshape(2, -1, N_ITEMS)}},
        coords={"system": list(study.systems), "item": list(study.data.items)},
        dims={"ability": ["system"], "difficulty": ["item"]},
    )
    return BoardFit("nuts", idata)


@pytest.mark.parametrize("cluster", [None, "group"])
def test_independent_items_pass_and_testlets_are_flagged(cluster):
    flagged = {}
    for sd in (0.0, 1.0):
        hits = 0
        for seed in range(4):
            frame, ability, b = _board(seed, sd)
            study = jb.LeaderboardStudy.from_items(frame, cluster=cluster)
            fit = _oracle(study, ability, b, np.random.default_rng(seed))
            result = study.check(fit)["local_independence"]
            assert len(result.table) == (1 if cluster is None else 2)
            hits += not result.passed
        flagged[sd] = hits
    # 4 boards each: no false alarm at Holm's 0.01; with the groups named, testlets of sd 1
    # are flagged on every board.  Without them the all-pairs row has little power against
    # dependence within small groups (the check's docstring): only no false alarm is held
    assert flagged[0.0] == 0, flagged
    if cluster is not None:
        assert flagged[1.0] == 4, flagged


def test_q3_by_hand():
    rng = np.random.default_rng(0)
    q = rng.uniform(0.2, 0.8, (6, 4))
    k = (rng.random((6, 4)) < q).astype(float)
    n = np.ones_like(k)
    spread, within = q3_statistics(k, n, q, cluster=np.array([0, 0, 1, 1]))
    r = (k - q) / np.sqrt(q * (1 - q))
    c = np.corrcoef(r.T)
    pairs = [(0, 1), (0, 2), (0, 3), (1, 2), (1, 3), (2, 3)]
    q3 = np.array([c[i, j] for i, j in pairs])
    assert spread == pytest.approx(np.mean(q3**2))
    assert within == pytest.approx(np.mean(q3[[0, 5]]) - q3.mean())


def test_the_check_is_not_run_on_a_point_fit():
    frame, _, _ = _board(0, 0.0)
    study = jb.LeaderboardStudy.from_items(frame)
    assert "local_independence" not in {r.check for r in study.check(study.fit("closed_form"))}
