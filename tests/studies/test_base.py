"""One result contract for every family: what no single family's file holds.

The contract's cases of each study class (every method it registers, checked member by
member) run in its family's test file (tests/contract.py); here: every registered class
has an example, is chosen by its factory and is claimed by one family file, and what the
studies share (typed errors, refusals as rows, priors and sampler settings recorded).
"""

import dataclasses
import json
import warnings

import numpy as np
import pandas as pd
import pytest

import judgebayes as jb
from judgebayes.errors import ConvergenceWarning, InputError, MethodRefused
from judgebayes.inference.nuts import interpreted
from judgebayes.inference.registry import SamplerConfig
from judgebayes.simulate import controlled_benchmark, simulate_panel
from judgebayes.studies import STUDIES
from judgebayes.studies.accuracy.base import TwoFrames
from judgebayes.studies.items import ItemStudy
from judgebayes.studies.panel import PooledPanel
from judgebayes.studies.ranking.base import RankingInputs
from tests.contract import EXAMPLES, PANEL_DEFAULT, SMALL


def _concrete() -> list[str]:
    return [k for k, c in STUDIES.items() if not c.__dict__.get("abstract", False)]


def test_every_registered_study_class_has_an_example():
    assert sorted(EXAMPLES) == sorted(_concrete())


def _claimed() -> list[tuple[str, str]]:
    """(study key, test file) of every ``ContractTests`` subclass in the tests."""
    import ast
    import pathlib

    tests = pathlib.Path(__file__).parents[1]
    out = []
    for path in tests.rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and any(
                getattr(b, "id", "") == "ContractTests" for b in node.bases
            ):
                for stmt in node.body:
                    if isinstance(stmt, ast.Assign) and ast.unparse(stmt.targets[0]) == "keys":
                        where = str(path.relative_to(tests))
                        out += [(k, where) for k in ast.literal_eval(stmt.value)]
    return out


def test_every_study_class_is_claimed_by_one_family_file():
    """A study's contract cases run in its family's test file, where its models compile."""
    keys = [k for k, _ in _claimed()]
    assert sorted(keys) == sorted(EXAMPLES), sorted(set(EXAMPLES) ^ set(keys))


def _door_data(study):
    """The family's door and the data its variants are matched on, read off ``study``."""
    if isinstance(study, ItemStudy):
        return ItemStudy, study.data
    if isinstance(study, jb.AccuracyStudy):
        return jb.AccuracyStudy, TwoFrames(study.test, study.calibration, study.multiclass)
    if isinstance(study, jb.PairwiseRanking):
        return jb.PairwiseRanking, RankingInputs(study.data, study.channel)
    if isinstance(study, jb.ValidatorPanel):
        return jb.ValidatorPanel, study.data
    return type(study), None


@pytest.mark.parametrize("key", sorted(EXAMPLES))
def test_every_variant_is_chosen_by_its_factory_from_data_of_its_kind(studies, key):
    """One protocol: each example is built by its family's factories, which returned its
    class; a class some data call for (``matches``) is the one the family's door picks
    from those data, and a class no data call for is reached by its own class."""
    study, cls = studies[key], STUDIES[key]
    assert type(study) is cls
    door, data = _door_data(study)
    if "matches" in cls.__dict__:
        assert door.variant_for(data) is cls
        assert cls in door.variants()
    else:
        assert cls.variant_for(data) is cls and cls not in door.variants()


def test_study_compare_on_all_three_studies(studies):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        acc = studies["accuracy.binary"].compare(methods=("closed_form", "laplace"))
        pan = studies[PANEL_DEFAULT].compare(methods=("validator_mean", "veto", "regression"))
        rk = studies["ranking"].compare(methods=("naive", "laplace"))
    assert list(acc["method"]) == ["closed_form", "laplace"]
    assert set(pan["method"]) == {"validator_mean", "veto", "regression"}
    assert set(rk["method"]) == {"naive", "laplace/normal"}
    for t in (acc, pan, rk):
        assert list(t.columns) == list(jb.results.COMPARISON_COLUMNS)


def test_studies_hold_no_fit_state(studies):
    for study in (studies[key] for key in EXAMPLES):
        assert not hasattr(study, "fits") and not hasattr(study, "last_fits")


@pytest.mark.parametrize("key", list(EXAMPLES))
def test_unknown_method_or_keyword_is_a_typed_error_listing_the_valid_ones(studies, key):
    study = studies[key]
    with pytest.raises(InputError, match="method must be one of") as e:
        study.fit("no_such_method")
    for m in STUDIES[key].methods:
        assert m in str(e.value)
    first = next(iter(STUDIES[key].methods))
    with pytest.raises(InputError, match="takes no keyword 'drawz'") as e:
        study.fit(first, drawz=10)
    assert "random_seed" in str(e.value)


@pytest.mark.parametrize("key", list(EXAMPLES))
def test_compare_never_raises_on_a_registered_refusal(studies, key):
    """Every method a study class refuses (its own or inherited) is a row with the reason,
    beside the rows of the methods that fit.
    """
    study = studies[key]
    refused = dict(STUDIES[key].methods.refused)
    cheap = [m for m, spec in STUDIES[key].methods.items() if spec.engine != "nuts"][:1]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        table = study.compare(methods=(*cheap, *refused))
    for name, reason in refused.items():
        row = table.set_index("method").loc[[name]].iloc[0]
        assert row["note"] == f"refused: {reason}" and np.isnan(row["estimate"])
        with pytest.raises(MethodRefused) as e:
            study.fit(name)
        assert e.value.method == name
        assert e.value.field == study.methods._lookup(name).field


def test_refusals_that_depend_on_the_data_are_rows_too():
    """Refusals raised by a method on the data it was given (not registered up front):
    the paired model beyond eight systems, the covariate model given item= as well,
    Laplace on pooled judge rates, exact on several systems of one calibration set.
    """
    rng = np.random.default_rng(0)
    n = 40
    wide = pd.DataFrame(
        {
            "prompt": np.tile(np.arange(n), 9),
            "system": np.repeat([f"s{i}" for i in range(9)], n),
            "judge": rng.integers(0, 2, 9 * n),
            "human": np.where(rng.random(9 * n) < 0.5, rng.integers(0, 2, 9 * n), np.nan),
        }
    )
    many = jb.AccuracyStudy.from_items(wide, item="prompt", system="system")
    covs = wide.assign(length=rng.normal(size=len(wide)))
    both = jb.AccuracyStudy.from_items(covs, item="prompt", system="system", covariates="length")
    two = jb.AccuracyStudy.from_counts(k=[6, 5], n=[10, 10], tn=7, m0=10, tp=9, m1=10)
    for study, method, field in (
        (many, "nuts", "system"),
        (both, "nuts", "item"),
        (jb.AccuracyStudy.from_items(wide, system="system"), "laplace", "judge_rates"),
        (two, "exact", "system"),
    ):
        with pytest.raises(MethodRefused) as e:
            study.fit(method)
        assert e.value.field == field and e.value.method == method
        table = study.compare(methods=("closed_form", method))
        assert table.set_index("method").loc[[method], "note"].str.startswith("refused").all()


def test_sampler_config_is_validated_and_recorded(mock_nuts):
    # the settings' way to the sampler and into the tree: the trace is prior draws
    with pytest.raises(InputError, match=r"sampler\.draws"):
        SamplerConfig(draws=0)
    with pytest.raises(InputError, match="target_accept"):
        SamplerConfig(target_accept=1.0)
    study = jb.AccuracyStudy.from_counts(k=620, n=1000, tn=70, m0=100, tp=90, m1=100)
    with pytest.raises(InputError, match="no setting 'draw'"):
        study.fit("nuts", sampler={"draw": 10})
    fit = study.fit("nuts", random_seed=3, sampler=SamplerConfig(draws=500, target_accept=0.95))
    rec = json.loads(fit.idata.attrs["sampler"])
    assert rec["draws"] == 500 and rec["target_accept"] == 0.95 and rec["chains"] == 4
    assert fit.idata.posterior.sizes["draw"] == 500


def test_a_fit_that_fails_the_convergence_gate_says_so_in_its_notes(tmp_path, mock_nuts):
    # 2 chains of 20 draws: too few effective draws for the gate; the warning passes, the
    # note stays with the fit (and its saved copy, and the tables made from it later).
    # The trace is prior draws, as short: the gate's report is tested, not the sampler
    study = jb.AccuracyStudy.from_counts(k=620, n=1000, tn=70, m0=100, tp=90, m1=100)
    with pytest.warns(ConvergenceWarning, match="Do not report these numbers"):
        fit = study.fit("nuts", random_seed=3, sampler=SamplerConfig(draws=20, tune=50, chains=2))
    assert not fit.diagnostics.passed
    assert fit.notes[0] == fit.diagnostics.message()
    fit.save(tmp_path / "fit.nc")
    assert jb.load_fit(tmp_path / "fit.nc").notes[0] == fit.diagnostics.message()


def test_priors_are_data_given_at_construction_and_recorded():
    # every fit of an engine that reads priors records them (Study.fit, for every family)
    acc = jb.AccuracyStudy.from_counts(
        k=620, n=1000, tn=70, m0=100, tp=90, m1=100, priors=jb.AccuracyPriors(q1=(2, 1))
    )
    assert json.loads(acc.fit("exact").idata.attrs["priors"])["q1"] == [2, 1]
    sim = simulate_panel(5, 4, n_outputs=80, n_annotated=3, seed=2, rate_shift=0.0)
    pr = jb.PanelPriors(mu_tnr=(1.0, 1.0))
    panel = jb.ValidatorPanel(sim.panel(), priors=pr)
    assert panel.priors is pr
    # the prior reaches the model: the PyMC graph's mu_tnr prior has the new mean
    spec = PooledPanel(panel.data, priors=pr).model_spec()
    model = spec.build()
    with interpreted() as kw:  # NumPy per node: nothing compiled
        assert model["mu_tnr"].owner.inputs[-2].eval(**kw) == pytest.approx(1.0)
    with pytest.raises(InputError, match="sigma_g") as e:
        jb.PanelPriors(sigma_g=0)
    assert (e.value.field, e.value.value) == ("priors.sigma_g", 0)
    with pytest.raises(InputError, match="priors must be PanelPriors"):
        jb.ValidatorPanel(sim.panel(), priors={"mu_g": (0, 1)})
    rp = jb.RankingPriors(lam_b=0.5)
    rk = controlled_benchmark(seed=0).ranking()
    rk = jb.PairwiseRanking(rk.data, priors=rp)
    f = rk.fit("laplace", random_seed=0, draws=100, warn=False)
    assert json.loads(f.idata.attrs["priors"])["lam_b"] == 0.5
    with pytest.raises(InputError, match="lam") as e:
        jb.RankingPriors(lam=-1)
    assert e.value.field == "priors.lam"


def test_point_panel_method_without_interval_says_why(studies):
    fit = studies[PANEL_DEFAULT].fit("majority")
    iv = fit.interval()
    assert iv[["lower", "upper"]].isna().all().all()
    assert any("no interval" in n for n in fit.notes)
    assert isinstance(iv, pd.DataFrame) and iv.index.name == "generator"


def test_a_fit_is_complete_when_made_and_never_changes(studies):
    # a closed form builds its tree on first use; reading it leaves the fit as it was
    fit = studies["items.plain"].fit("closed_form")
    before = dict(fit.__dict__)
    assert fit.idata.attrs["method"] == "closed_form"  # stamped before the fit was made
    assert fit.__dict__ == before
    with pytest.raises(AttributeError, match="never changed"):
        object.__setattr__(fit, "idata", None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fit.info = {}


def test_compare_shows_a_refused_method_as_a_row_and_fits_the_others():
    cal = jb.io.CalibrationCounts(
        tp=[90, 88], m1=[100, 100], tn=[90, 80], m0=[100, 100], strata=("short", "long")
    )
    test = jb.io.TestCounts(k=[[300, 500]], n=[[1000, 1000]], n_missing=[[0, 0]], strata=cal.strata)
    study = jb.AccuracyStudy(test, cal)
    table = study.compare(methods=("closed_form", "laplace"))
    assert list(table["method"]) == ["closed_form", "laplace"]
    refused = table.set_index("method").loc["laplace"]
    assert refused["note"].startswith("refused: Laplace is not offered for the pooled-strata")
    assert np.isnan(refused["estimate"]) and table.loc[0, "note"] == ""


def test_a_potential_likelihood_refuses_the_posterior_predictive_by_name(studies):
    with pytest.raises(MethodRefused, match="Potential") as e:
        studies["items.paired"].fit("nuts", sampler=SMALL, posterior_predictive=True)
    assert e.value.field == "posterior_predictive"
