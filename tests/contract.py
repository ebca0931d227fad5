"""The result contract every study class and method keeps, run in the test file of each
study's family: :class:`ContractTests`, which each family's test file subclasses with its
study keys, so that a study's contract cases run where its family's tests compile the same
models (xdist sends a file to one worker).

One small example study per registered class (:data:`EXAMPLES`); each is built on its
family tests' data, whose shapes and labels are the compiled model's key.  The fixtures
``studies``, ``all_fits`` and ``mock_fits`` (tests/conftest.py) build an example and fit
a method the first time a test asks.  The contract's cases take ``mock_fits``: its MCMC
methods draw the prior shaped as a posterior (:func:`tests.helpers.prior_as_posterior`),
since what is tested is what the code around the sampler makes of a trace; every model is
sampled for real where its numbers are tested (its family's tests, the slow tier's SBC).
"""

import dataclasses
import json
import warnings
from contextlib import nullcontext

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.errors import ConvergenceWarning, InputError
from judgebayes.simulate import controlled_benchmark, simulate_panel
from judgebayes.studies import STUDIES
from judgebayes.studies.leaderboard import ExchangeableBoard, GuessingBoard, TwoPLBoard
from judgebayes.studies.panel import LeniencyPanel, OverdispersedPanel, PooledPanel
from tests.helpers import prior_as_posterior
from tests.plots import check_forest, title
from tests.simulators import RATERS, lenient_on_long, simulate_raters, small_board, stream

SMALL = {"draws": 300, "tune": 300, "chains": 2}


def _weekly():
    return stream(np.random.default_rng(3), weeks=4, items=100, labels=20, drift_at=2)[0]


def _ranking_with_humans():
    """Simulated judges' verdicts on 800 pairs of 6 items, a fifth of them human-labelled:
    the study of the judge-error recovery test (tests/studies/ranking/test_channel.py), so
    that its model compiles once.
    """
    return jb.simulate.simulate_judged_pairs(6, 800, labelled=0.2, seed=3).ranking()


def _items():
    """Two systems whose judge is lenient on long answers (plain and with the covariate):
    the data of the covariate model's tests in tests/studies/items/test_covariate.py,
    which fit both models, so that the covariate model compiles once (the plain model's
    cases run in tests/studies/items/test_plain.py).
    """
    return jb.AccuracyStudy.from_items(lenient_on_long(4)[0], system="system", judge_rates="shared")


def _covariates():
    return jb.AccuracyStudy.from_items(lenient_on_long(4)[0], system="system", covariates="length")


def _judges():
    f = jb.simulate.simulate_items(
        300, sensitivity=(0.9, 0.85), specificity=(0.8, 0.75), seed=2
    ).frame
    return jb.AccuracyStudy.from_items(f, judge=["judge_1", "judge_2"])


def _raters():
    """Two systems, a judge on every item and three raters on 30% of them, the truth
    latent: the data of tests/studies/items/test_raters.py, beside which these cases run, so
    that the model compiles once.
    """
    frame, _ = simulate_raters(np.random.default_rng(5), n=300)
    return jb.AccuracyStudy.from_items(frame, judge="judge", human=RATERS, system="system")


def _strata():
    cal = jb.io.CalibrationCounts(
        tp=[90, 88], m1=[100, 100], tn=[90, 80], m0=[100, 100], strata=("short", "long")
    )
    test = jb.io.TestCounts(k=[[300, 500]], n=[[1000, 1000]], n_missing=[[0, 0]], strata=cal.strata)
    return jb.AccuracyStudy(test, cal)


def _repeats():
    # 40 prompts x 4 generations: the shape of the NUTS test in studies/repeats/test_base.py,
    # beside which these cases run, so that the model compiles once
    runs, _ = jb.simulate.simulate_repeats(40, generations=4, runs=2, seed=0)
    return jb.RepeatsStudy.from_frame(runs)


#: one small study of every registered study class (the contract runs every method of each)
EXAMPLES = {
    "accuracy.binary": lambda: jb.AccuracyStudy.from_counts(
        k=620, n=1000, tn=70, m0=100, tp=90, m1=100
    ),
    "accuracy.strata": _strata,
    # the classes of the K-class test in tests/studies/accuracy/test_multiclass.py: one compile
    "accuracy.multiclass": lambda: jb.AccuracyStudy.from_multiclass_counts(
        [[40, 5, 5], [4, 42, 4], [6, 6, 38]], [[120, 90, 90]], classes=["bad", "ok", "good"]
    ),
    "accuracy.replicates": lambda: jb.studies.accuracy.ReplicateStudy(
        k=[60, 55, 0], n=[100, 100, 0], tp=[9, 8, 9], m1=[10] * 3, tn=[7, 8, 7], m0=[10] * 3
    ),
    # the items design (one frame, blank human label = unlabelled): fits of the accuracy
    # family, a variant per kind of frame
    "items.plain": _items,
    "items.covariates": _covariates,
    "items.judges": _judges,
    "items.raters": _raters,
    "items.clustered": lambda: _clustered(),
    "items.over_time": lambda: jb.AccuracyStudy.from_items(
        _weekly(), judge="judge", human="human", time="week"
    ),
    "items.paired": lambda: jb.AccuracyStudy.from_items(
        jb.simulate.simulate_paired(400, seed=0)[0], system="system", item="prompt"
    ),
    # the door chooses the hierarchical cell model for this panel (3 annotated generators:
    # too few for the leniency model's check); the other models by their class, on the
    # data their family tests compile them on (their contract cases run in that file)
    "panel.hierarchical": lambda: jb.ValidatorPanel(_panel_data()),
    "panel.pooled": lambda: PooledPanel(_shifted_panel()),
    "panel.overdispersed": lambda: OverdispersedPanel(_panel_data()),
    "panel.leniency": lambda: _real_panel_held_out(),
    "ranking": lambda: controlled_benchmark(seed=0).ranking(),
    "ranking.channel": _ranking_with_humans,
    "repeats": _repeats,
    "scores": lambda: _scores(),
    # the board of tests/studies/leaderboard/ (its shape: one compile per model)
    "leaderboard.rasch": lambda: jb.LeaderboardStudy.from_items(small_board()[0]),
    "leaderboard.2pl": lambda: TwoPLBoard.from_items(small_board()[0]),
    "leaderboard.exchangeable": lambda: ExchangeableBoard.from_items(small_board()[0]),
    "leaderboard.guessing": lambda: GuessingBoard.from_items(small_board()[0]),
}


def _panel_data():
    return simulate_panel(5, 4, n_outputs=80, n_annotated=3, seed=2, rate_shift=0.0).panel()


def _shifted_panel():
    """The 10 x 8 panel of the Bayesian fits in tests/studies/panel/test_cells.py (its shape:
    one compile)."""
    sim = simulate_panel(10, 8, seed=5, rate_shift=0.6, n_outputs=600, n_annotated=5)
    return sim.panel()


def _real_panel_held_out():
    """Beyond Consensus with gpt-4-turbo's annotation held out: the leniency model of
    tests/studies/panel/test_leniency.py (the annotated set is part of its structure: one
    compile).
    """
    from judgebayes.datasets.beyond_consensus import beyond_consensus_panel

    cells, ann = beyond_consensus_panel()
    panel = jb.ValidatorPanel.from_frames(cells, ann[["generator", "n_annotated", "n_valid_human"]])
    h = panel.data.generators.index("gpt-4-turbo")
    keep = [a for a in panel.data.annotated if a != h]
    return LeniencyPanel(panel.data.calibrate_on(keep))


def _scores():
    """A 1-10 judge and Likert 1-5 labels on a third of 240 rows of two systems."""
    rng = np.random.default_rng(4)
    human = rng.integers(1, 6, 240).astype(float)
    score = np.clip(np.round(2 * human + rng.normal(0, 1.5, 240)), 1, 10)
    frame = pd.DataFrame(
        {
            "system": np.repeat(["A", "B"], 120),
            "score": score,
            "human": np.where(rng.random(240) < 1 / 3, human, np.nan),
        }
    )
    return jb.ScoreStudy.from_items(frame, score="score", human="human", system="system")


def _clustered():
    sim = jb.simulate.simulate_items(400, n_labelled=120, cluster_size=20, icc=0.1, seed=3)
    return jb.AccuracyStudy.from_items(sim.frame, cluster="cluster")


#: a panel model's class changes its Bayesian model alone: its cases are the method that
#: fits that model; every panel method runs on the default model's class
PANEL_DEFAULT = "panel.hierarchical"


def methods_of(key: str) -> list[str]:
    """The methods of ``key``'s contract cases."""
    if key.startswith("panel.") and key != PANEL_DEFAULT:
        return ["nuts"]
    return list(STUDIES[key].methods)


def _options(key, method):
    spec = STUDIES[key].methods[method]
    out = {}
    if "sampler" in spec.options:
        out["sampler"] = SMALL
    elif "draws" in spec.options and spec.engine != "laplace":
        out["draws"] = 300  # Laplace keeps its default: its importance check wants 200 effective
    if "log_likelihood" in spec.options:
        out["log_likelihood"] = True  # every model that has one stores it (for LOO)
    if (key, method) == ("accuracy.binary", "nuts"):
        out["prior_draws"] = 200  # one model's prior groups (each compiles a sampler)
        out["posterior_predictive"] = True
    return out


class Studies(dict):
    """The example study of each key, built when a test first asks for it."""

    def __missing__(self, key):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", jb.errors.FewClustersWarning)
            study = EXAMPLES[key]()
        self[key] = study
        return study


#: the models the prior cannot be drawn from (a flat variable whose prior is a potential):
#: their MCMC cases sample for real in ``mock_fits`` too
NO_PRIOR_DRAWS = {"panel.leniency"}


class Fits(dict):
    """Every (study, method) fit, made when a test first asks for it: a study's cases run
    in its family's test file (one worker), which compiles each model once.  With
    ``mock``, the MCMC methods draw the prior instead of sampling (:func:`prior_as_posterior`).
    """

    def __init__(self, studies, mock: bool = False):
        super().__init__()
        self.studies = studies
        self.mock = mock

    def __missing__(self, case):
        key, method = case
        drawn = self.mock and STUDIES[key].methods[method].mcmc and key not in NO_PRIOR_DRAWS
        with warnings.catch_warnings(), prior_as_posterior() if drawn else nullcontext():
            # small settings: the gate may fail; the contract, not convergence, is tested here
            warnings.simplefilter("ignore", ConvergenceWarning)
            fit = self.studies[key].fit(method, random_seed=1, **_options(key, method))
        self[case] = fit
        return fit

    def of(self, key):
        return [self[(key, m)] for m in methods_of(key)]


UNITS = {
    "accuracy": ("theta", "system"),
    "scores": ("mu_items", "system"),
    "panel": ("g", "generator"),
    "ranking": ("theta", "item"),
    "leaderboard": ("theta", "system"),
}
#: the variants whose quantity is not the family's usual one
QUANTITIES = {
    "accuracy.multiclass": ("prevalence", "system"),
    "accuracy.replicates": ("theta", "replicate"),
    "repeats": ("variance", "component"),
}
#: the scores design: the mean human label over the rows, or of the process
SCORES_PROCESS_ONLY = {"ppi", "ppi_plus_plus", "labels_only", "naive"}
#: the comparators of the items design estimate the process rate, and say so
PROCESS_ONLY = {"ppi", "ppi_plus_plus", "labels_only", "naive", "rogan_gladen"}


def _expected(key, method, fit):
    if key.startswith("items.") and method not in PROCESS_ONLY:
        return ("theta_items", "system")
    if key == "scores":
        return ("mu" if method in SCORES_PROCESS_ONLY else "mu_items", "system")
    if key.startswith("leaderboard.") and method in ("closed_form", "bootstrap"):
        return ("theta_process", "system")
    return QUANTITIES.get(key, UNITS[fit.family])


#: the marginalised latent-class likelihoods (a Potential): their data are in constant_data
POTENTIAL = {
    (PANEL_DEFAULT, "nuts_items"),
    ("ranking.channel", "judge_error"),
    ("items.covariates", "nuts"),
    ("items.judges", "nuts"),
    ("items.raters", "nuts"),
    ("items.paired", "nuts"),
}


#: the keys whose NUTS fit is also drawn with its posterior predictive
PREDICTIVE = {"accuracy.binary", "items.plain", PANEL_DEFAULT, "ranking", "repeats", "scores"}


def check_fit(fits, key, method):
    fit = fits[(key, method)]
    assert isinstance(fit, jb.Fit)
    assert (fit.method, fit.family) == (method, STUDIES[key].family)
    assert (fit.quantity, fit.unit) == _expected(key, method, fit)
    if key.startswith("items.") and method in PROCESS_ONLY:
        assert any("process rate" in n for n in fit.notes)
    # InferenceData with a posterior of the quantity over the unit, attrs recorded
    post = fit.idata.posterior
    assert fit.quantity in post and fit.unit in post[fit.quantity].dims
    attrs = fit.idata.attrs
    assert attrs["method"] == method and attrs["family"] == fit.family
    assert attrs["version"] == jb.__version__ and json.loads(attrs["random_seed"]) == 1
    for name in ("priors", "sampler"):
        json.loads(attrs[name])
    if STUDIES[key].methods[method].mcmc:
        assert json.loads(attrs["sampler"])["draws"] == SMALL["draws"]
    # the interval frame, indexed by the unit, for both kinds
    for kind in ("equal_tailed", "hdi"):
        iv = fit.interval(alpha=0.1, kind=kind)
        assert list(iv.columns) == ["estimate", "lower", "upper"]
        if iv.index.nlevels == 1:
            assert iv.index.name == fit.unit and list(iv.index) == list(fit.units)
        else:  # a quantity with more dims than the unit (a K-class judge's prevalences)
            assert iv.index.names[0] == fit.unit
            assert list(iv.index.levels[0]) == list(fit.units)
        ok = iv.dropna()
        assert np.all(ok["lower"] <= ok["upper"] + 1e-12)
        if iv[["lower", "upper"]].isna().all().all():
            assert fit.notes, "a NaN interval must be explained in notes"
    # draws: (sample, unit)
    d = fit.draws()
    assert d.dims[0] == "sample" and fit.unit in d.dims
    assert d.sizes["sample"] == (1 if fit.is_point else d.sizes["sample"])
    # diagnostics only for MCMC
    if STUDIES[key].methods[method].mcmc:
        dg = fit.diagnostics
        for name in ("r_hat_max", "ess_bulk_min", "ess_tail_min", "divergences", "passed"):
            assert hasattr(dg, name)
    else:
        assert fit.diagnostics is None
    # never mutated: the dataclass is frozen
    with pytest.raises(dataclasses.FrozenInstanceError):
        fit.method = "other"
    assert np.isfinite(fit.seconds) and fit.seconds >= 0


def check_compare_and_forest(contract_fits, key):
    import matplotlib.pyplot as plt

    fits = contract_fits.of(key)
    table = jb.compare(fits, alpha=0.1)
    assert list(table.columns) == list(jb.results.COMPARISON_COLUMNS)
    assert len(table) == sum(len(f.interval(0.1)) for f in fits)
    assert set(table["family"]) == {STUDIES[key].family}
    # R-hat exactly for the MCMC methods of the registry ("nuts/horseshoe" is nuts)
    mcmc_methods = {m for m in methods_of(key) if STUDIES[key].methods[m].mcmc}
    is_mcmc = table["method"].str.split("/").str[0].isin(mcmc_methods)
    assert is_mcmc.any() == bool(mcmc_methods)
    assert table[is_mcmc]["r_hat"].notna().all()
    assert table[~is_mcmc]["r_hat"].isna().all()
    if len({(f.quantity, f.unit) for f in fits}) == 1:
        pc = jb.plot_forest(fits)
        shown = title(pc).split(":")[0]
        assert all(shown in f.idata.posterior for f in fits)
        check_forest(pc, fits)
        plt.close("all")


def check_family_summaries(fits, key):
    for fit in fits.of(key):
        if fit.family == "leaderboard":  # every method has the table, points included
            table = fit.leaderboard()
            assert table["p_top_k"].sum() == pytest.approx(1)
            assert (table["rank_lower"] <= table["rank"]).all()
            assert (table["rank"] <= table["rank_upper"]).all()
            continue
        if fit.is_point or key in QUANTITIES:
            continue
        if fit.family == "accuracy":
            assert fit.prob_best().sum() == pytest.approx(1)
        elif fit.family == "scores":
            assert fit.prob_best().sum() == pytest.approx(1)
            ranks = fit.ranks()
            assert (ranks["lower"] <= ranks["upper"]).all()
        elif fit.family == "ranking":
            tk = fit.top_k(3)
            assert tk["p_top_k"].sum() == pytest.approx(3)
            ri = fit.rank_intervals()
            assert (ri["rank_lower"] <= ri["rank_upper"]).all()
        elif key == "panel.leniency":  # the leniency model has no sensitivity or specificity
            assert fit.tpr is None and fit.tnr is None
        else:
            validators = fits.studies[key].data.validators
            assert fit.tpr is not None and fit.tpr.shape == (len(validators),)


def check_saves_and_loads(fits, key, method, tmp_path):
    fit = fits[(key, method)]
    path = tmp_path / ("fit.zarr" if method == "nuts" else "fit.nc")
    fit.save(path)
    back = jb.load_fit(path)
    assert type(back) is type(fit)
    for name in ("method", "family", "quantity", "unit", "notes"):
        assert getattr(back, name) == getattr(fit, name), name
    assert back.seconds == pytest.approx(fit.seconds)
    for alpha in (0.05, 0.1):
        pd.testing.assert_frame_equal(back.interval(alpha), fit.interval(alpha))
    if fit.diagnostics is not None:
        assert back.diagnostics == fit.diagnostics
    assert json.loads(back.idata.attrs["random_seed"]) == 1
    assert set(back.idata.children) == set(fit.idata.children)
    if fit.interval_fn is not None:  # a closure does not save: its saved levels only
        with pytest.raises(InputError, match="loaded from a file"):
            back.interval(0.07)
    if fit.family == "ranking" and not fit.is_point:
        pd.testing.assert_frame_equal(back.top_k(2), fit.top_k(2))
        pd.testing.assert_frame_equal(back.bias_table(), fit.bias_table())


def check_mcmc_groups(fits, key, method):
    # observed variables give observed_data (and log_likelihood when asked for)
    groups = set(fits[(key, method)].idata.children)
    assert {"sample_stats", "constant_data"} <= groups
    if (key, method) not in POTENTIAL:
        assert "observed_data" in groups
        if "log_likelihood" in STUDIES[key].methods[method].options:
            assert "log_likelihood" in groups


def check_posterior_predictive(studies, key):
    """A NUTS fit asked for it carries the posterior_predictive group (one replicate of each
    observed variable per draw), which arviz-plots' plot_ppc_* read; a model whose
    likelihood is a Potential refuses it by name.  The trace is prior draws: the group's
    shape and its plot are tested, not the replicates' numbers.
    """
    import arviz as az
    import matplotlib.pyplot as plt

    with warnings.catch_warnings(), prior_as_posterior():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fit = studies[key].fit("nuts", random_seed=2, sampler=SMALL, posterior_predictive=True)
    pp = fit.idata.posterior_predictive
    obs = fit.idata.observed_data
    assert set(pp.data_vars) <= set(obs.data_vars) and len(pp.data_vars) >= 1
    name = next(iter(pp.data_vars))
    assert pp[name].sizes["draw"] == SMALL["draws"] and pp[name].sizes["chain"] == 2
    az.plot_ppc_dist(fit.idata, var_names=[name], backend="matplotlib")
    plt.close("all")


class ContractTests:
    """The contract's tests of the study keys ``keys``: a family's test file subclasses it,

    ``class TestContract(ContractTests): keys = ("items.plain",)``,

    so that the cases run in that file, where its tests compile the same models (xdist
    sends a file to one worker).  A test with no case among ``keys`` (no MCMC method, no
    posterior predictive drawn) is not collected.
    """

    keys: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not cls.mcmc_cases():
            cls.test_mcmc_groups = None  # type: ignore[assignment]
        if not cls.predictive_keys():
            cls.test_posterior_predictive = None  # type: ignore[assignment]

    @classmethod
    def cases(cls) -> list[tuple[str, str]]:
        return [(k, m) for k in cls.keys for m in methods_of(k)]

    @classmethod
    def mcmc_cases(cls) -> list[tuple[str, str]]:
        return [(k, m) for k, m in cls.cases() if STUDIES[k].methods[m].mcmc]

    @classmethod
    def predictive_keys(cls) -> list[str]:
        return [k for k in cls.keys if k in PREDICTIVE]

    def pytest_generate_tests(self, metafunc):
        ids = "-".join
        if "case" in metafunc.fixturenames:
            metafunc.parametrize("case", self.cases(), ids=ids)
        if "mcmc_case" in metafunc.fixturenames:
            metafunc.parametrize("mcmc_case", self.mcmc_cases(), ids=ids)
        if "key" in metafunc.fixturenames:
            metafunc.parametrize("key", self.keys)
        if "predictive_key" in metafunc.fixturenames:
            metafunc.parametrize("predictive_key", self.predictive_keys())

    def test_fit(self, mock_fits, case):
        check_fit(mock_fits, *case)

    def test_saves_and_loads(self, mock_fits, case, tmp_path):
        check_saves_and_loads(mock_fits, *case, tmp_path)

    def test_mcmc_groups(self, mock_fits, mcmc_case):
        check_mcmc_groups(mock_fits, *mcmc_case)

    def test_compare_and_forest(self, mock_fits, key):
        check_compare_and_forest(mock_fits, key)

    def test_family_summaries(self, mock_fits, key):
        check_family_summaries(mock_fits, key)

    def test_posterior_predictive(self, studies, predictive_key):
        check_posterior_predictive(studies, predictive_key)
