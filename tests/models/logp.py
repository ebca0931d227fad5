"""What the models' tests share: a built model's log density term by term at a point of the
constrained space, and its variables' dims.

The models' tests compare these terms with the density of the module's docstring written
again in numpy and scipy.stats (nothing of the package): each free and observed variable
and each potential is one term, so a failure names the term that differs.
"""

import numpy as np
import pytensor
import pytensor.tensor as pt
from pymc.model.transform.conditioning import remove_value_transforms
from scipy import stats

from judgebayes.inference.nuts import interpreted

#: how close a term must be to the reference: PyTensor types a Python float that float32 holds
#: exactly (2.0, 0.5) as float32, so a prior's normalising constant (log B(2, 3) of a
#: Beta(2, 3)) is computed in single precision, ~1e-7 off; a wrong parameter or a term
#: dropped moves the density by far more
TOL = dict(rel=1e-9, abs=1e-6)


def evaluate(model, point: dict) -> tuple[dict[str, float], dict[str, np.ndarray]]:
    """Each free and observed variable's log density and each potential, summed over its
    elements, at ``point``: every free variable's value in its own space (a rate in (0, 1),
    a simplex on the simplex, a zero-sum vector summing to zero); and every deterministic's
    value there.  The value transforms are removed, so no Jacobian enters.  One function,
    interpreted (nothing compiled in C).

    The point's shapes are checked against the variables' (a value broadcast into a
    variable of another shape would give another density), and every term is finite.
    """
    starts = dict(model.rvs_to_initial_values)  # the rewrite refuses start values
    model.rvs_to_initial_values.update(dict.fromkeys(starts))
    try:
        m = remove_value_transforms(model)
    finally:
        model.rvs_to_initial_values.update(starts)
    free = [rv.name for rv in m.free_RVs]
    assert set(point) == set(free), f"point {sorted(point)} and free variables {sorted(free)}"
    names = [*free, *(v.name for v in (*m.observed_RVs, *m.potentials))]
    logps = [pt.sum(t) for t in m.logp(vars=[m[n] for n in names], sum=False)]
    det = [d.name for d in m.deterministics]
    values = [m.rvs_to_values[rv] for rv in m.free_RVs]
    shapes = [rv.shape for rv in m.free_RVs]
    outputs = [*logps, *m.replace_rvs_by_values(m.deterministics), *shapes]
    with interpreted() as kw:
        fn = pytensor.function(values, outputs, on_unused_input="ignore", **kw)
    args = [np.asarray(point[n], dtype=v.dtype) for n, v in zip(free, values, strict=True)]
    out = fn(*args)
    got = {n: tuple(int(s) for s in sh) for n, sh in zip(free, out[-len(free) :], strict=True)}
    given = {n: np.shape(point[n]) for n in free}
    assert got == given, f"variables' shapes {got}, the point's {given}"
    lp = {n: float(v) for n, v in zip(names, out, strict=False)}
    # a point outside the support gives -inf on both sides, which would compare equal
    assert all(np.isfinite(list(lp.values()))), lp
    return lp, dict(zip(det, out[len(names) : len(names) + len(det)], strict=True))


def terms(model, point: dict) -> dict[str, float]:
    """The log density's terms of :func:`evaluate`."""
    return evaluate(model, point)[0]


def dims(model, kind: str) -> dict[str, tuple[str, ...]]:
    """The dims of the model's variables of ``kind`` (``free_RVs``, ``observed_RVs``,
    ``deterministics``, ``potentials``), by name.
    """
    return {v.name: tuple(model.named_vars_to_dims.get(v.name, ())) for v in getattr(model, kind)}


def coords(model) -> dict[str, list]:
    """The model's coordinates as lists."""
    return {k: list(v) for k, v in model.coords.items()}


# ---------------------------------------------------------------- reference densities
def binom(k, n, p) -> float:
    """Binomial log pmf, summed."""
    return float(np.sum(stats.binom.logpmf(k, n, p)))


def beta(x, a, b) -> float:
    """Beta log density, summed."""
    return float(np.sum(stats.beta.logpdf(x, a, b)))


def normal(x, mu, sd) -> float:
    """Normal log density, summed."""
    return float(np.sum(stats.norm.logpdf(x, mu, sd)))


def half_normal(x, sd) -> float:
    """Half-normal log density, summed."""
    return float(np.sum(stats.halfnorm.logpdf(x, scale=sd)))


def zero_sum_normal(x, sd) -> float:
    r"""Log density of a vector of ``n`` that sums to zero, normal with sd ``sd`` on the
    ``n - 1`` dimensions of that subspace (orthonormal coordinates :math:`z`, :math:`|z| =
    |x|`): :math:`-|x|^2 / (2 s^2) - (n - 1) \log(s \sqrt{2\pi})`.
    """
    x = np.asarray(x, dtype=float)
    assert abs(x.sum()) < 1e-12
    return float(-0.5 * np.sum((x / sd) ** 2) - (x.size - 1) * np.log(sd * np.sqrt(2 * np.pi)))


def dirichlet_rows(x, a) -> float:
    """Dirichlet log density of each row of ``x`` (last axis), summed."""
    x, a = np.asarray(x, float), np.broadcast_to(np.asarray(a, float), np.shape(x))
    return float(
        sum(
            stats.dirichlet.logpdf(r, c)
            for r, c in zip(x.reshape(-1, x.shape[-1]), a.reshape(-1, x.shape[-1]), strict=True)
        )
    )


def logit(p):
    """Logit in numpy."""
    p = np.asarray(p, dtype=float)
    return np.log(p) - np.log1p(-p)


def expit(x):
    """Logistic in numpy."""
    return 1.0 / (1.0 + np.exp(-np.asarray(x, dtype=float)))


def items_terms(c: dict, th, q0, q1) -> dict[str, float]:
    """The items design's four likelihood terms (the unlabelled items' verdicts, the
    labelled items' classes and confusion counts) of counts ``c`` (``k, n, tp, m1, tn,
    m0``) at rates ``th`` and the judge's ``q0``, ``q1`` (broadcast to the cells).
    """
    c = {k: np.asarray(v) for k, v in c.items()}
    th = np.asarray(th, dtype=float)
    return {
        "k_obs": binom(c["k"], c["n"], th * q1 + (1 - th) * (1 - q0)),
        "m1_obs": binom(c["m1"], c["m0"] + c["m1"], th),
        "tp_obs": binom(c["tp"], c["m1"], q1),
        "tn_obs": binom(c["tn"], c["m0"], q0),
    }


def refused_setting(cls, prefix: str, field: str, value) -> None:
    """``cls(field=value)`` is one :class:`InputError` naming ``<prefix>.<field>``."""
    import pytest

    from judgebayes.errors import InputError

    with pytest.raises(InputError) as e:
        cls(**{field: value})
    assert e.value.field == f"{prefix}.{field}"
    assert field in str(e.value)
