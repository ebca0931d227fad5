"""The leniency panel model (judgebayes/studies/panel/leniency.py): validators shift the share
valid on the logit scale.

The real Beyond Consensus panel (../shared/data) is where the cell model's mixture reads a
held-out generator's precision worst (largest error 0.061 against the validator mean's
0.027): there the validators' judged rates follow the human share one to one.
"""

import warnings

import numpy as np
import pytest

import judgebayes as jb
from judgebayes.errors import ConvergenceWarning, InputError, MethodRefused
from judgebayes.inference.nuts import clear_compile_cache
from judgebayes.studies.panel import HierarchicalPanel, LeniencyPanel, ValidatorPanel
from tests.contract import ContractTests
from tests.simulators import leniency_panel, mixture_panel


def _held_out(panel, gens, name):
    h = gens.index(name)
    keep = [a for a in panel.data.annotated if a != h]
    return panel.with_data(panel.data.calibrate_on(keep)), h


def test_real_panel_hardest_generator_read_off_its_verdicts(beyond_consensus):
    """gpt-4-turbo, the panel's least precise annotated generator (human share 0.871),
    held out: the default model is the leniency model (its check passes on the 5 other
    annotated generators), it passes the gate and its 90% interval covers the human
    share, the estimate within 0.026 (the target; the cell model is 0.061 off on the
    panel's worst generator, the validator mean 0.027 on its worst)."""
    panel, gens, truth = beyond_consensus
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


def test_which_generators_are_annotated_is_part_of_the_models_key(beyond_consensus):
    """The annotated set decides the parametrisation: two annotated sets are two models
    (a compile-cache hit across them would put one set's data in the other's model)."""
    panel, gens, _ = beyond_consensus
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
def test_real_panel_leave_one_annotated_generator_out(beyond_consensus):
    """Each of the 6 annotated generators held out in turn: largest error at most 0.026,
    90% intervals covering at least 5 of 6, every fit through the gate."""
    clear_compile_cache()
    panel, gens, truth_of = beyond_consensus
    truth = np.array([truth_of.get(g, np.nan) for g in gens])
    # the default model: the leniency model's check passes in every fold
    for name in truth_of:
        assert isinstance(_held_out(panel, gens, name)[0], LeniencyPanel)
    cv = panel.cross_validate(s=[5], methods=("nuts",), alpha=0.1, truth=truth)
    row = cv.iloc[0]
    assert row["n_failed"] == 0, row
    assert row["worst_maxae"] <= 0.026, row
    assert row["coverage"] >= 5 / 6, row


def test_default_model_is_the_cell_model_where_the_leniency_check_fires(beyond_consensus):
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
    assert isinstance(beyond_consensus[0], LeniencyPanel)
    assert beyond_consensus[0].check(beyond_consensus[0].fit("validator_mean"))["leniency"].passed


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
