"""The leniency panel model: validators shift the share valid on the logit scale.

The real Beyond Consensus panel (../shared/data) is where the cell model's mixture reads a
held-out generator's precision worst (largest error 0.061 against the validator mean's
0.027): there the validators' judged rates follow the human share one to one.
"""

import warnings

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.datasets.beyond_consensus import beyond_consensus_panel
from judgebayes.errors import ConvergenceWarning, InputError, MethodRefused
from judgebayes.inference.nuts import clear_compile_cache
from judgebayes.studies.panel import HierarchicalPanel, LeniencyPanel, ValidatorPanel
from tests.contract import ContractTests
from tests.simulators import leniency_panel, mixture_panel


@pytest.fixture(scope="module")
def real():
    cells, ann = beyond_consensus_panel()
    panel = ValidatorPanel.from_frames(cells, ann[["generator", "n_annotated", "n_valid_human"]])
    gens = panel.data.generators
    # the truth: each annotated generator's human valid share
    truth = dict(zip(ann["generator"], ann["human_precision"], strict=True))
    return panel, gens, truth


def _held_out(panel, gens, name):
    h = gens.index(name)
    keep = [a for a in panel.data.annotated if a != h]
    return panel.with_data(panel.data.calibrate_on(keep)), h


def test_real_panel_hardest_generator_read_off_its_verdicts(real):
    """gpt-4-turbo, the panel's least precise annotated generator (human share 0.871),
    held out: the default model is the leniency model (its check passes on the 5 other
    annotated generators), it passes the gate and its 90% interval covers the human
    share, the estimate within 0.026 (the target; the cell model is 0.061 off on the
    panel's worst generator, the validator mean 0.027 on its worst)."""
    panel, gens, truth = real
    p, h = _held_out(panel, gens, "gpt-4-turbo")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        fit = p.fit("nuts", random_seed=0)
    assert fit.info["variant"] == "leniency" and fit.diagnostics.passed
    assert fit.info["variant_chosen"].startswith("the leniency model: its check passes")
    assert isinstance(p, LeniencyPanel) and p.chosen == fit.info["variant_chosen"]
    assert f"model chosen from the data: {fit.info['variant_chosen']}" in fit.notes
    iv = fit.interval(alpha=0.1).to_numpy()[h]
    t = truth["gpt-4-turbo"]
    assert iv[1] <= t <= iv[2], (iv, t)
    assert abs(iv[0] - t) <= 0.026, (iv, t)
    # the validators are lenient (they pass more than the share valid) and differ
    len_ = fit.estimate("leniency")
    assert len_.mean() > 0 and len_.max() - len_.min() > 0.5, len_
    # the model has no sensitivity or specificity: the fit says so by having none
    assert fit.tpr is None and fit.tnr is None
    # its own check runs on it and passes; the cells check reads the cell model's rates,
    # so it does not run on this fit, and its replicates are refused by name
    report = p.check(fit)
    assert {r.check for r in report} == {"leniency"} and report.passed
    assert report["leniency"].relevant
    with pytest.raises(InputError, match="cell model") as e:
        p.predictive(fit)
    assert e.value.field == "fit"


def test_which_generators_are_annotated_is_part_of_the_models_key(real):
    """The annotated set decides the parametrisation: two annotated sets are two models
    (a compile-cache hit across them would put one set's data in the other's model)."""
    panel, gens, _ = real
    a, _ = _held_out(panel, gens, "gpt-4o")
    b, _ = _held_out(panel, gens, "claude_3_opus")
    ka, kb = LeniencyPanel(a.data).model_spec().key(), LeniencyPanel(b.data).model_spec().key()
    assert ka != kb
    hier_a, hier_b = HierarchicalPanel(a.data), HierarchicalPanel(b.data)
    assert hier_a.model_spec().key() == hier_b.model_spec().key()
    with pytest.raises(MethodRefused) as e:
        LeniencyPanel(a.data).fit("nuts", prior_draws=10)
    assert e.value.field == "prior_draws"
    # a model is a class: the method takes no model name
    with pytest.raises(InputError) as e:
        a.fit("nuts", variant="leniency")
    assert e.value.field == "variant"


@pytest.mark.slow
def test_real_panel_leave_one_annotated_generator_out(real):
    """Each of the 6 annotated generators held out in turn: largest error at most 0.026,
    90% intervals covering at least 5 of 6, every fit through the gate."""
    clear_compile_cache()
    panel, gens, truth_of = real
    truth = np.array([truth_of.get(g, np.nan) for g in gens])
    # the default model: the leniency model's check passes in every fold
    for name in truth_of:
        assert isinstance(_held_out(panel, gens, name)[0], LeniencyPanel)
    cv = panel.cross_validate(s=[5], methods=("nuts",), alpha=0.1, truth=truth)
    row = cv.iloc[0]
    assert row["n_failed"] == 0, row
    assert row["worst_maxae"] <= 0.026, row
    assert row["coverage"] >= 5 / 6, row


def test_slope_check_against_weighted_least_squares_of_the_published_counts(real):
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
    r = leniency_slope(real[0].data)
    np.testing.assert_allclose(
        [r.slope, r.se, r.p_value, r.tau2], [ref.params[1], ref.bse[1], p_ref, tau2]
    )
    assert (r.df, r.n_annotated) == (4, 6) and r.tau2 > 0


def test_default_model_is_the_cell_model_where_the_leniency_check_fires(real):
    """On a panel simulated from the cell model's mixture (agreeable validators that keep a
    sensitivity and a specificity: slope 0.36 against 1) the check flags and the default
    is the cell model, saying why; with 3 annotated generators the check cannot choose
    (1 degree of freedom) and the default is the cell model; on the real panel the slope
    (0.80, se 0.27) is consistent with 1 and the default is the leniency model."""
    mix = ValidatorPanel(jb.simulate.simulate_panel(14, 14, seed=0).panel())
    res = mix.check(mix.fit("validator_mean"))["leniency"]
    assert not res.passed and res.table.loc[0, "observed"] < 0.5
    assert isinstance(mix, HierarchicalPanel) and "check rejects the slope 1" in mix.chosen
    few = ValidatorPanel(jb.simulate.simulate_panel(8, 5, n_annotated=4, seed=0).panel())
    assert isinstance(few, HierarchicalPanel) and "fewer than the 5" in few.chosen
    assert isinstance(real[0], LeniencyPanel)
    assert real[0].check(real[0].fit("validator_mean"))["leniency"].passed


def test_the_command_line_offers_every_panel_model():
    """``judgebayes panel --variant`` takes each registered Bayesian panel model."""
    import argparse

    from judgebayes.cli import build_parser

    sub = next(
        a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)
    ).choices["panel"]
    (variant,) = [a for a in sub._actions if a.dest == "variant"]
    assert tuple(variant.choices) == tuple(c.model_name for c in ValidatorPanel.models())
    assert set(variant.choices) == {"pooled", "hierarchical", "overdispersed", "leniency"}


@pytest.mark.slow
def test_held_out_coverage_where_the_model_holds():
    """90% intervals of the unannotated generators' realised share on panels that follow
    the leniency story (8 panels x 7 generators, simulated above).  Rule: coverage at
    least 0.9 - 2.5 Monte-Carlo sd (0.80 for 56 intervals), over every fit (measured 0.857).
    The gate is not held here: on these small panels (8 validators, 400 outputs, cells
    near a rate of 1) most fits miss it on the cell deviations' scale, which the fit says
    to the user.  On panels simulated from the cell model's mixture it covers less than
    nominal; there its check fires on most panels and the default is the cell model
    (the tests below)."""
    rng = np.random.default_rng(7)
    covered = []
    for i in range(8):
        panel, truth, held = leniency_panel(rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fit = LeniencyPanel(panel.data).fit("nuts", random_seed=i)
        iv = fit.interval(alpha=0.1, var="precision_judged").to_numpy()[held]
        covered += list((iv[:, 1] <= truth[held]) & (truth[held] <= iv[:, 2]))
    rule = 0.9 - 2.5 * np.sqrt(0.09 / len(covered))
    assert np.mean(covered) >= rule, (np.mean(covered), len(covered))


@pytest.mark.slow
def test_default_model_covers_on_the_mixture_or_its_check_chose_the_cell_model():
    """The default panel model on panels from the cell model's story (8 panels x 7
    held-out generators, simulated above): the check sends most to the cell model, and
    the 90% intervals of whichever model it chose cover the realised share at least
    0.9 - 2.5 Monte-Carlo sd (0.80 for 56 intervals), over every fit.  Measured 0.821:
    the check missed 2 of 8 panels (p 0.075 and 0.081), whose leniency fits covered 8 of
    14; the cell model's 6 covered 37 of 42 (5 of them missed the gate and say so)."""
    rng = np.random.default_rng(11)
    covered, chosen = [], []
    for i in range(8):
        panel, truth, held = mixture_panel(rng)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            fit = panel.fit("nuts", random_seed=i)
        chosen.append(fit.info["variant"])
        iv = fit.interval(alpha=0.1, var="precision_judged").to_numpy()[held]
        covered += list((iv[:, 1] <= truth[held]) & (truth[held] <= iv[:, 2]))
    rule = 0.9 - 2.5 * np.sqrt(0.09 / len(covered))
    assert chosen.count("hierarchical") >= 4, chosen
    assert np.mean(covered) >= rule, (np.mean(covered), len(covered), chosen)


# ------------------------------------------------------------------ the contract
class TestContract(ContractTests):
    keys = ("panel.leniency",)
