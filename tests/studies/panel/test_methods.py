"""The panel's methods (judgebayes/studies/panel/methods.py): the point methods on missing
cells and their thresholds, Laplace refused by name, and the item-level Dawid-Skene model
sampled and (slow) against Dawid-Skene's EM.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

from judgebayes.errors import ConvergenceWarning, MethodRefused
from judgebayes.inference.panel import ensembles as ens
from judgebayes.simulate.panel import simulate_panel
from judgebayes.studies.panel import ValidatorPanel


def test_missing_cells_need_no_imputation(panel_sim):
    d = panel_sim.panel()
    nj = d.n_judged.copy()
    nv = d.n_valid.copy()
    nj[0, :5] = 0
    nv[0, :5] = 0
    p = ValidatorPanel.from_arrays(
        nj, nv, generators=d.generators, validators=d.validators,
        n_annotated=d.n_annotated, n_valid_human=d.n_valid_human,
    )  # fmt: skip
    r = p.fit("regression", random_seed=0)
    assert np.all(np.isfinite(r.estimate()))
    vm = p.fit("validator_mean")
    np.testing.assert_allclose(vm.estimate()[0], np.mean(nv[0, 5:] / nj[0, 5:]))


def test_baseline_methods_and_thresholds(panel_sim):
    p = ValidatorPanel(panel_sim.panel())
    for m in ("validator_mean", "best_individual", "majority", "super_majority", "veto", "plug_in"):
        f = p.fit(m)
        est = f.estimate()
        assert est.shape == (14,) and np.all((est >= 0) & (est <= 1))
    A = p.data.annotated
    t = p.fit("veto").info["threshold"]
    errs = {
        tt: np.max(np.abs(ens.vote(p.data, "veto", tt)[A] - p.data.human_precision[A]))
        for tt in range(1, 15)
    }
    assert errs[t] == min(errs.values())


def test_laplace_is_refused_by_name_with_the_method_to_use(panel_sim):
    p = ValidatorPanel(panel_sim.panel())
    with pytest.raises(MethodRefused, match="nuts") as e:
        p.fit("laplace")
    assert (e.value.field, e.value.value) == ("method", "laplace")
    assert "hierarchical" in str(e.value)


def test_item_level_dawid_skene_model_samples():
    # small panel: 5 generators x 4 validators x 80 outputs, 3 annotated
    s = simulate_panel(5, 4, n_outputs=80, n_annotated=3, seed=2, rate_shift=0.0)
    p = ValidatorPanel(s.panel())
    spec = p.item_model_spec()
    assert spec.data["y"].size == p.data.n_judged.sum()  # missing verdicts left out
    # 4 chains x 500 draws.  The gate now checks the hyperparameters too, and the item
    # model's rate-deviation scales (tau) mix slowly here (R-hat ~1.01-1.02): recorded,
    # not hidden; making this model pass quickly is open
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        f = p.fit("nuts_items", random_seed=1, sampler={"draws": 500, "chains": 4, "tune": 500})
    assert f.diagnostics.divergences == 0
    assert {"tau_tpr", "sigma_g"} <= set(f.diagnostics.var_names)
    ann = p.data.annotated
    # annotated generators: the human labels observe every latent label, so the posterior
    # of g is Beta(1 + valid, 1 + invalid)-like around the human share (sd ~0.03 at n = 80)
    np.testing.assert_allclose(f.estimate()[ann], p.data.human_precision[ann], atol=0.06)
    iv = f.interval(0.1)
    assert np.all(iv.lower <= iv.estimate) and np.all(iv.estimate <= iv.upper)


def _crowd_items(seed, n=200, judges=8, gold=30):
    """The Dawid-Skene setting: one generator, 8 judges (TPR U(0.65, 0.95), TNR U(0.5, 0.9)),
    outputs valid with probability 0.7, 30 with a human label (same as
    benchmarks/dawid_skene.py)."""
    rng = np.random.default_rng(seed)
    tpr = rng.uniform(0.65, 0.95, judges)
    tnr = rng.uniform(0.50, 0.90, judges)
    valid = rng.random(n) < 0.7
    verdict = rng.random((n, judges)) < np.where(valid[:, None], tpr, 1 - tnr)
    human = np.full(n, np.nan)
    lab = rng.choice(n, gold, replace=False)
    human[lab] = valid[lab]
    rows = pd.DataFrame(
        {
            "output": np.repeat(np.arange(n), judges),
            "generator": "gen",
            "validator": np.tile([f"j{j}" for j in range(judges)], n),
            "verdict": verdict.ravel().astype(float),
            "human": np.repeat(human, judges),
        }
    )
    return rows, verdict.astype(float), human, tpr, tnr


# slow tier: a recovery study against Dawid-Skene (DESIGN: recovery and coverage studies are
# `slow`); the fast suite samples the item model in test_item_level_dawid_skene_model_samples
# and in the contract's nuts_items case
@pytest.mark.slow
def test_single_generator_item_model_is_as_accurate_as_dawid_skene_em():
    """The item model of one generator (no generator hierarchy, no rate shifts) passes the
    gate with its default sampler and estimates the judges' rates as well as Dawid-Skene's
    EM (the reference in tests/reference.py, which reproduces crowd-kit's DawidSkene errors
    to 1e-4 on these data; benchmarks/dawid_skene.py runs crowd-kit itself).  Tolerance:
    0.005 on the summed mean absolute errors, a tenth of their spread over seeds.
    """
    from tests.reference import dawid_skene_binary

    ours, em = 0.0, 0.0
    for seed in (1, 2):
        rows, Y, human, tpr, tnr = _crowd_items(seed)
        panel = ValidatorPanel.from_items(rows)
        fit = panel.fit("nuts_items", random_seed=seed)
        assert fit.diagnostics.passed, fit.diagnostics.message()
        assert fit.info["sampler"].target_accept == 0.9  # the single-generator default
        order = np.argsort([int(v[1:]) for v in panel.data.validators])
        ours += np.abs(fit.tpr[order] - tpr).mean() + np.abs(fit.tnr[order] - tnr).mean()
        _, p, n = dawid_skene_binary(Y, human)
        em += np.abs(p - tpr).mean() + np.abs(n - tnr).mean()
    assert ours <= em + 0.005, (ours, em)
