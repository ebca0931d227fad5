"""The compile cache (judgebayes/inference/nuts/compile.py): the packed model is the model, a
refit through packed data samples what a fresh compile samples, data of another shape or
baked in compile again, and a warm refit's data equal PyMC's.
"""

import numpy as np
import pymc as pm
import pytest

import judgebayes as jb
from judgebayes.inference.nuts import ModelSpec, clear_compile_cache, interpreted, sample_nuts
from judgebayes.inference.nuts.compile import _packed
from judgebayes.inference.registry import SamplerConfig
from judgebayes.models.accuracy import binary_accuracy_model
from judgebayes.models.panel import panel_leniency_model


def test_warm_refit_data_equal_pymcs():
    """A warm refit of a model whose data are the spec's own arrays swaps them in without
    building the model: they equal what the built model holds (dtype included)."""
    from judgebayes.inference.nuts.compile import _facts, data_values

    counts = dict(tn=70, m0=100, tp=90, m1=100)
    two = jb.AccuracyStudy.from_counts(k=[620, 300], n=[1000, 900], systems=["a", "b"], **counts)
    spec = two.model_spec()
    facts = _facts(spec.build(), spec, set(spec.data))
    assert facts.data is not None and facts.free == ("theta", "u0", "u1")
    for name, value in data_values(spec.build()).items():
        np.testing.assert_array_equal(np.asarray(spec.data[name], facts.data[name]), value)
        assert np.asarray(spec.data[name], facts.data[name]).dtype == value.dtype


SMALL = SamplerConfig(draws=500, tune=500, chains=4)


def _observed_mean(y, scale):
    """Data whose packed shape depends on the values, not the inputs' shapes: the labelled
    entries of ``y`` (NaN: unlabelled) and a weight per labelled entry.
    """
    obs = y[~np.isnan(y)]
    with pm.Model() as model:
        o = pm.Data("obs", obs)
        w = pm.Data("w", np.full(obs.size, 1.0 / scale))
        mu = pm.Normal("mu", 0.0, 10.0)
        pm.Normal("y", mu=mu, sigma=1.0 / w, observed=o)
    return model


def _binary():
    """Int vectors and int scalars."""
    return binary_accuracy_model([60, 30], [100, 50], 40, 50, 45, 50, systems=("a", "b"))


def _leniency():
    """Int and float data, and a start value set in the model."""
    rng = np.random.default_rng(0)
    g, v = 4, 3
    n = rng.integers(20, 40, (g, v))
    return panel_leniency_model(
        n_rest=n,
        k_rest=rng.binomial(n, 0.6),
        tp=np.full((g, v), 8),
        pos=np.full((g, v), 10),
        tn=np.full((g, v), 7),
        neg=np.full((g, v), 10),
        n_annotated=np.array([20, 20, 0, 0]),
        n_valid_human=np.array([12, 9, 0, 0]),
        self_mask=np.zeros((g, v)),
        n_outputs_rest=np.array([30, 30, 40, 40]),
        generators=tuple("abcd"),
        validators=tuple("xyz"),
        annotated=(True, True, False, False),
    )


@pytest.mark.parametrize("i, build", list(enumerate([_binary, _leniency])))
def test_the_packed_model_is_the_model(i, build):
    model = build()
    packed, packs = _packed(model)
    # every dtype with two or more variables is one vector holding them in order
    dtypes = {}
    for d in model.data_vars:
        dtypes.setdefault(str(d.dtype), []).append(d.name)
    want = {f"_data_{k}": v for k, v in dtypes.items() if len(v) > 1}
    assert {k: [n for n, _ in v] for k, v in packs.items()} == want and want
    for kind in ("value_vars", "observed_RVs", "potentials", "deterministics"):
        # in the model's order: nutpie's parameter vector and the start values follow it
        assert [v.name for v in getattr(packed, kind)] == [v.name for v in getattr(model, kind)]
    start = model.initial_point()
    for k, v in packed.initial_point().items():
        np.testing.assert_array_equal(v, start[k])  # a start value set in the model kept
    rng = np.random.default_rng(i)
    with interpreted() as kw:
        fns = [(m.compile_logp(**kw), m.compile_dlogp(**kw)) for m in (model, packed)]
    for _ in range(5):
        x = {k: v + rng.normal(0, 0.5, np.shape(v)) for k, v in start.items()}
        # the same graph reading the same numbers: equal to rounding
        np.testing.assert_allclose(fns[1][0](x), fns[0][0](x), rtol=1e-13)
        np.testing.assert_allclose(fns[1][1](x), fns[0][1](x), rtol=1e-12, atol=1e-13)


def _spec(builder, data, name, **structure):
    return ModelSpec(builder, data, structure, var_names=(name,))


def _theta(spec, seed=3):
    idata, _, info = sample_nuts(spec, random_seed=seed, sampler=SMALL)
    post = idata.posterior
    return post[next(iter(post.data_vars))].values, info


def test_a_refit_through_the_packed_data_samples_what_a_fresh_compile_samples():
    base = {"k": [60, 30], "n": [100, 50], "tp": 40, "m1": 50, "tn": 45, "m0": 50}
    other = {"k": [20, 45], "n": [90, 60], "tp": 35, "m1": 40, "tn": 30, "m0": 45}
    structure = {"systems": ("a", "b")}
    clear_compile_cache()
    _theta(_spec(binary_accuracy_model, base, "theta", **structure))
    swapped, info = _theta(_spec(binary_accuracy_model, other, "theta", **structure))
    assert info["cache_hit"] is True
    clear_compile_cache()
    fresh, info = _theta(_spec(binary_accuracy_model, other, "theta", **structure))
    assert info["cache_hit"] is False
    np.testing.assert_array_equal(swapped, fresh)


def test_data_whose_packed_shape_changes_under_the_same_key_compile_again():
    y1 = np.array([0.5, np.nan, 1.5, 2.0, np.nan, 1.0])
    y2 = np.array([0.5, 0.7, 1.5, 2.0, np.nan, 1.0])  # same shape, one more label
    clear_compile_cache()
    _theta(_spec(_observed_mean, {"y": y1}, "mu", scale=2.0))
    again, info = _theta(_spec(_observed_mean, {"y": y2}, "mu", scale=2.0))
    assert info["cache_hit"] is False  # the packed vector's layout differs: compiled again
    clear_compile_cache()
    fresh, _ = _theta(_spec(_observed_mean, {"y": y2}, "mu", scale=2.0))
    np.testing.assert_array_equal(again, fresh)
    # and the posterior is the conjugate one: mean of 5 labels with sigma 0.5, prior N(0, 10)
    prec = 5 / 0.25 + 1 / 100
    mean = (np.nansum(y2) / 0.25) / prec
    # Monte-Carlo error: the gate holds the ESS >= 400; 4 standard errors of sd / sqrt(400)
    assert abs(again.mean() - mean) < 4 * (prec**-0.5) / np.sqrt(400)


def _baked_mean(y):
    """A model that compiles its data in as a constant (no data variable)."""
    with pm.Model() as model:
        mu = pm.Normal("mu", 0.0, 10.0)
        pm.Normal("y", mu=mu, sigma=1.0, observed=np.asarray(y, float))
    return model


def test_a_model_that_bakes_its_data_in_is_not_reused_for_other_data():
    # two specs of the same shapes and structure: a cache keyed by shapes alone would
    # sample the first data's posterior for the second
    clear_compile_cache()
    means = []
    for centre in (0.0, 5.0):
        y = centre + np.linspace(-1, 1, 20)
        spec = ModelSpec(_baked_mean, {"y": y}, {}, ("mu",))
        idata, _, _ = sample_nuts(spec, random_seed=0, sampler=SMALL)
        means.append(float(idata.posterior["mu"].mean()))
    # posterior mean of mu: the data's mean, to within 4 Monte-Carlo sds (sd 1/sqrt(20)
    # over about 2000 effective draws)
    assert means[0] == pytest.approx(0.0, abs=4 * 0.224 / np.sqrt(2000) + 0.01)
    assert means[1] == pytest.approx(5.0, abs=4 * 0.224 / np.sqrt(2000) + 0.01)
