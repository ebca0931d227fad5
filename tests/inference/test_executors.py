"""Sweeps on executors: serial, local processes, a real Dask LocalCluster.

The reference is the serial run of the same sweep: same seed, same numbers, wherever the
tasks ran (closed form and Laplace to the last bit: the engines are deterministic given
their seeds).
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pandas as pd
import pytest

from judgebayes import datasets
from judgebayes.errors import InputError
from judgebayes.inference.executors import (
    describe_executor,
    run_tasks,
    task_seeds,
    task_threads,
)
from judgebayes.simulate import simulate_panel
from judgebayes.studies.panel import ValidatorPanel
from judgebayes.workflows.split_protocol import split_protocol


def _square_plus_draw(task):
    x, seed = task
    return x * x + np.random.default_rng(seed).random()


def test_run_tasks_keeps_order_and_seeds_on_every_executor():
    seeds = task_seeds(7, 9)
    assert len(set(seeds)) == 9 and seeds == task_seeds(7, 9)
    tasks = list(zip(range(9), seeds, strict=True))
    ref = [_square_plus_draw(t) for t in tasks]
    assert run_tasks(_square_plus_draw, tasks) == ref
    assert run_tasks(_square_plus_draw, tasks, 2) == ref
    with ThreadPoolExecutor(3) as ex:
        assert run_tasks(_square_plus_draw, tasks, ex, n_chunks=4) == ref
    assert run_tasks(_square_plus_draw, [], 2) == []
    assert describe_executor(None) == describe_executor(1) == "serial"
    assert describe_executor(2) == "processes(2)"


def _threads(_):
    return task_threads()


def test_a_task_runs_its_chains_on_its_one_slot(client):
    # inside an executor's task a fit's chains run in sequence (the task has one worker
    # slot); serially, and after the sweep, the sampler's default (every core)
    assert task_threads() is None
    assert run_tasks(_threads, range(3)) == [None] * 3
    with ThreadPoolExecutor(2) as ex:
        assert run_tasks(_threads, range(4), ex) == [1] * 4
    assert run_tasks(_threads, range(4), 2) == run_tasks(_threads, range(4), client) == [1] * 4
    assert task_threads() is None


@pytest.mark.parametrize("bad", [0, -1, 1.5, "dask", True])
def test_a_bad_executor_is_one_typed_error(bad):
    with pytest.raises(InputError, match="executor") as e:
        run_tasks(_square_plus_draw, [(1, 1)], bad)
    assert e.value.field == "executor"


@pytest.fixture(scope="module")
def grouped():
    it = datasets.llmbar_accuracy_items("ChatGPT")
    keep = ["LLMBar_Natural", "LLMBar_Adversarial_GPTInst", "Processed_FairEval"]
    return it[it["subset"].isin(keep)].reset_index(drop=True)


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    """A real Dask LocalCluster of two worker processes, shared by this file's tests.

    The workers compile into their own empty PyTensor cache while this process reads
    the warm one: the same seed must give the same draws from a fresh compile and from a
    cached one (a fresh machine's first run is the one case the other runs do not see).
    """
    distributed = pytest.importorskip("distributed")
    cold = tmp_path_factory.mktemp("pytensor_cold")
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            env={"PYTENSOR_FLAGS": f"base_compiledir={cold}"},
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def test_panel_leave_s_out_is_the_same_on_every_executor(client):
    p = ValidatorPanel(simulate_panel(seed=3, n_outputs=200).panel())
    kw = dict(s=range(4), methods=("veto", "majority", "best_individual"), random_seed=2)
    ref = p.cross_validate(**kw)
    cols = [c for c in ref.columns if c != "seconds"]
    for ex in (2, client):
        pd.testing.assert_frame_equal(p.cross_validate(executor=ex, **kw)[cols], ref[cols])
    pd.testing.assert_frame_equal(p.cross_validate(n_jobs=2, **kw)[cols], ref[cols])


def test_split_protocol_gives_the_same_numbers_serial_in_processes_and_on_dask(grouped, client):
    kw = dict(
        group="subset",
        n_splits=8,
        calibration_fraction=0.3,
        seed=4,
        methods=("closed_form", "laplace"),
        laplace={"draws": 1000},
    )
    ref = split_protocol(grouped, **kw)
    assert ref.settings["executor"] == "serial"
    on_dask = split_protocol(grouped, executor=client, **kw)
    assert on_dask.settings["executor"].startswith("dask(")
    in_procs = split_protocol(grouped, executor=2, **kw)
    for other in (on_dask, in_procs):
        pd.testing.assert_frame_equal(other.splits, ref.splits)
        cols = [c for c in ref.groups.columns if not c.endswith("seconds")]
        pd.testing.assert_frame_equal(other.groups[cols], ref.groups[cols])
        assert other.fits.keys() == ref.fits.keys()
    # the comparison is not of NaNs: each group has Laplace replicates that were reported
    # (with 1000 draws the importance check refuses some small-calibration splits)
    lap = ref.splits[ref.splits["method"] == "laplace"]
    assert lap.groupby("group")["lower"].apply(lambda s: np.isfinite(s).sum()).min() >= 2
    # splits_per_fit: a group's 8 splits in fits of 3, 3 and 2 (more tasks than groups),
    # the same on the cluster as serially; the split draws and so the closed form and the
    # naive rate are those of one fit per group, to the bit
    batched = split_protocol(grouped, splits_per_fit=3, **kw)
    assert batched.settings["splits_per_fit"] == 3 and (batched.groups["fits"] == 3).all()
    assert sorted(k[2] for k in batched.fits if k[:2] == (ref.groups["group"][0], "laplace")) == [
        0,
        3,
        6,
    ]
    on_dask = split_protocol(grouped, splits_per_fit=3, executor=client, **kw)
    pd.testing.assert_frame_equal(on_dask.splits, batched.splits)
    keep = batched.splits["method"].isin(["naive", "closed_form"])
    pd.testing.assert_frame_equal(batched.splits[keep], ref.splits[keep])
    lap_b = batched.splits[batched.splits["method"] == "laplace"]
    assert np.isfinite(lap_b["lower"]).sum() >= 2 * batched.groups.shape[0]
    assert batched.groups["laplace_failed"].sum() == lap_b["failed"].sum()


def test_exact_coverage_and_sbc_ranks_are_the_same_on_every_executor(client):
    import xarray as xr

    from judgebayes.simulate.exact_studies import bayesian_coverage_study, sbc_ranks

    kw = dict(m0=60, m1=60, reps=100, nodes=8, random_seed=5)
    ref = bayesian_coverage_study([0.2, 0.5, 0.8], 0.8, 0.9, 300, **kw)
    for ex in (2, client):
        xr.testing.assert_identical(
            bayesian_coverage_study([0.2, 0.5, 0.8], 0.8, 0.9, 300, executor=ex, **kw), ref
        )
    # 600 datasets = blocks of 250, 250 and 100, each its own task and seed
    ranks = sbc_ranks(600, 200, m0=40, m1=40, nodes=12, random_seed=9)
    assert ranks.shape == (600,)
    for ex in (2, client):
        np.testing.assert_array_equal(
            sbc_ranks(600, 200, m0=40, m1=40, nodes=12, random_seed=9, executor=ex), ranks
        )


def test_budget_study_is_the_same_on_every_executor_and_equals_single_runs(client):
    from judgebayes.simulate import controlled_benchmark
    from judgebayes.workflows.active import budget_study, run_active

    pools = [controlled_benchmark(n_items=12, k=3, seed=s) for s in (1, 2)]
    kw = dict(
        strategies=[("bias", "topk"), ("naive", "random")],
        k=3,
        budgets=(16, 32),
        seeds=(0, 1),
        samples=200,
    )
    ref = budget_study(pools, **kw)
    assert len(ref) == 2 * 2 * 2 * 2 and ref["recall"].between(0, 1).all()
    for ex in (2, client):
        got = budget_study(pools, executor=ex, **kw)
        pd.testing.assert_frame_equal(got, ref)
    # the bookkeeping: a row is the recall of the run_active call it stands for
    one = run_active(
        pools[1].verdicts,
        k=3,
        budget=32,
        rule="random",
        model="naive",
        item_covariates=pools[1].x,
        truth=pools[1],
        record_at=(16, 32),
        seed=1,
        samples=200,
    )
    sel = ref[(ref["pool"] == 1) & (ref["seed"] == 1) & (ref["rule"] == "random")]
    assert sel.set_index("budget")["recall"].to_dict() == {16: one.recall[16], 32: one.recall[32]}
    with pytest.raises(InputError, match="budget_study takes no option"):
        budget_study(pools, refit=3, **kw)
    with pytest.raises(InputError, match="strategy"):
        budget_study(pools, **{**kw, "strategies": [("bias", "best")]})


@pytest.mark.slow  # an SBC sweep twice; the split protocol's test keeps Dask in the fast suite
def test_nuts_sbc_ranks_are_the_same_serially_and_on_dask(client):
    """NUTS is deterministic given its seed: the SBC sweep's ranks, gate verdicts and
    messages are identical whether the fits ran here or on the cluster's workers."""
    from judgebayes.simulate.sbc import sbc_study

    kw = dict(random_seed=3, sampler={"draws": 300, "tune": 300}, thin=3)
    ref = sbc_study("binary_random", 4, **kw)
    got = sbc_study("binary_random", 4, executor=client, **kw)
    assert ref.n_ranks == 4 * 100
    for v in ("theta", "q0", "q1"):
        np.testing.assert_array_equal(got.ranks[v], ref.ranks[v])
    assert got.messages == ref.messages
    assert got.settings["executor"].startswith("dask(")


@pytest.mark.slow
def test_the_leaderboard_sbc_sweep_is_the_same_serially_and_on_dask(client):
    """The Bayesian leaderboard's sweep (boards drawn from its prior, each fitted by NUTS)
    gives the same ranks here and on the cluster's workers (slow: each worker compiles the
    board model, about 25 s)."""
    from judgebayes.simulate.sbc import sbc_study

    kw = dict(random_seed=5, sampler={"draws": 200, "tune": 200, "chains": 2}, thin=2)
    ref = sbc_study("board", 1, **kw)
    got = sbc_study("board", 1, executor=client, **kw)
    assert set(got.ranks) == set(ref.ranks) and len(ref.ranks) >= 3
    for v in ref.ranks:
        np.testing.assert_array_equal(got.ranks[v], ref.ranks[v])
    assert got.messages == ref.messages
