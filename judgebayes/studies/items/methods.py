r"""The items design's methods, written once for every variant.

``closed_form`` (double sampling; cluster-robust with ``cluster``, Hajek-weighted with
``weights``, contrasts paired by ``item``), ``exact`` (the exact posterior of the stated
prior, by importance resampling; the paired variant has its own), ``laplace`` and ``nuts``
(the variant's model, :meth:`ItemStudy.model_spec`), and the comparators ``ppi``,
``ppi_plus_plus`` (as ``ppi_py``), ``labels_only``, ``naive`` and ``rogan_gladen``
(labelled items as a calibration set for the others, Lang-Reiczigel).  The comparators
estimate the process rate whatever the study's estimand, and say so in their notes.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from judgebayes.checks.items import labelling
from judgebayes.errors import LabellingWarning, MethodRefused
from judgebayes.inference import items as ie
from judgebayes.inference.accuracy import closed_form as cf
from judgebayes.results import tree
from judgebayes.studies.base import FitParts, register_bayes
from judgebayes.studies.items.base import QUANTITY, ItemStudy
from judgebayes.studies.notes import point_interval_notes

__all__ = ["COMPARATORS"]

#: the comparators: what each is, as its fits' info says
COMPARATORS = {
    "ppi": "PPI (lambda = 1), ppi_py's interval",
    "ppi_plus_plus": "PPI++ (tuned lambda, clipped to [0, 1]), ppi_py's interval",
    "labels_only": "the human-labelled items' mean, Agresti-Coull interval",
    "naive": "the judge's positive rate, uncorrected (biased unless the judge is perfect)",
    "rogan_gladen": "labelled items as a calibration set for the unlabelled ones: "
    "Rogan-Gladen with the Lang-Reiczigel interval (ignores what the labels say about "
    "the rate itself)",
}


@ItemStudy.methods.register(
    "closed_form", engine="closed_form", summary="double sampling, influence variance"
)
def _closed_form(study: ItemStudy, *, random_seed=None) -> FitParts:
    d = study.data
    chosen = ie.double_sampling_items(d, study.estimand)
    other = next(e for e in ie.ESTIMANDS if e != study.estimand)
    notes = []
    for s, t, c in zip(*np.nonzero(chosen.info["undefined_cells"]), strict=True):
        what = (
            f"the judge's {'positives' if c else 'negatives'}"
            if d.n_judges == 1
            else f"the items with {c} of {d.n_judges} positive votes"
        )
        notes.append(
            f"system {study.systems[s]!r}, stratum {d.strata[t]!r}: no labelled item "
            f"among {what}: its human rate is known only to lie in [0, 1], and the "
            "interval spans every value it could take (label some of them to narrow it)"
        )
    design = "iid items"
    if d.cluster is not None:
        design = (
            "cluster-robust (CR2) over clusters, t critical value at Bell-McCaffrey's "
            "degrees of freedom"
        )
        notes += [
            f"system {s!r} has {g} cluster: a cluster-robust variance needs two (NaN)"
            for s, g in zip(study.systems, ie.clusters_per_system(d), strict=True)
            if g < 2
        ]
    if d.weights is not None:
        design += ", Hajek-weighted by the design weights"
    info: dict[str, Any] = {
        "estimator": "double sampling (Tenenbein 1970) over all judged items, "
        f"influence-function variance, {design}; Wald interval clipped to the "
        "estimand's known range"
    }
    if len(study.systems) > 1 and d.cluster is None:
        info["contrasts"] = table = ie.contrasts_items(d, chosen, study.estimand)
        notes += [
            f"{study.systems[a]!r} - {study.systems[b]!r}: {why}; its contrast is the "
            "independent one"
            for a, b, why in table.get("independent", [])
        ]
    parts = study._point({study.quantity: chosen.estimate}, chosen.interval, info, notes)
    # the other estimand's point, when the tree is built
    name = QUANTITY[other]
    parts.idata = parts.idata.then(
        lambda t: _with_var(t, name, ie.double_sampling_items(d, other).estimate)
    )
    return parts


def _with_var(t, name: str, values) -> Any:
    post = t["posterior"]
    post[name] = post[next(iter(post.data_vars))].copy(
        data=np.asarray(values, float).reshape(1, 1, -1)
    )
    return t


#: comparators that take the labels as a simple random sample within each stratum
RANDOM_LABELS = ("ppi", "ppi_plus_plus", "labels_only")
#: below this p-value of the labelled x verdict test they warn (labels depend on it) ...
VERDICT_ALPHA = 1e-3
#: ... and below this one they refuse where the labels' mix of verdicts biases them by more
#: than half their interval's width (a random labelling reaches 1e-3 by chance in 1 of
#: 1,000 data sets, and its chance imbalance moves the estimate as much as that)
REFUSE_ALPHA = 1e-6


def _comparator(name: str, summary: str):
    """Register the comparator ``name`` (a process-rate estimator of one judge)."""

    def fit(study: ItemStudy, *, random_seed=None) -> FitParts:
        study._one_judge(name)
        d = study.data
        if d.cluster is not None:
            raise MethodRefused(
                f"method {name!r} treats items as independent and would ignore cluster="
                f"{d.columns.get('cluster')!r}; use 'closed_form' (cluster-robust) or 'nuts' "
                "(hierarchical), or leave cluster out to compare it",
                field="cluster",
                value=d.columns.get("cluster"),
            )
        follows = None
        if name in RANDOM_LABELS and d.weights is None:
            p, where = labelling.by_verdict(d)
            follows = (p, where) if p < VERDICT_ALPHA else None
        extra = {}
        notes = [f"{name} estimates the process rate (theta), not the N items' rate"]
        if name in ("ppi", "ppi_plus_plus"):
            est = ie.ppi_items(d, lam=1.0 if name == "ppi" else None)
            point, ifn = est.estimate, est.interval
            extra = {"lam": est.info["lam"].tolist()}
            notes += point_interval_notes(study.systems, est.se, "PPI")
        elif name == "labels_only":
            est = ie.labels_only_items(d)
            point, ifn = est.estimate, est.interval
            if len(d.systems) > 1:
                extra = {"contrasts": ie.labels_only_contrasts(d, est)}
        elif name == "naive":
            est = ie.naive_items(d)
            point, ifn = est.estimate, est.interval
        else:
            point, ifn = _rogan_gladen_items(study)
        if follows is not None:
            lam = np.asarray(extra.get("lam", 1.0 if name == "ppi" else 0.0), float)
            notes.append(_verdict_mix(d, name, lam, ifn, *follows))
        return study._point(
            {"theta": point},
            ifn,
            {"estimator": COMPARATORS[name], "estimand": "process", **extra},
            notes,
        )

    fit.__name__ = fit.__qualname__ = f"_{name}"
    ItemStudy.methods.register(name, engine="closed_form", summary=summary)(fit)


def _verdict_mix(data, name: str, lam, ifn, p: float, where: str) -> str:
    r"""Labels that follow the verdict: the estimator's bias from the labelled items' mix of
    verdicts, :math:`\sum_v (w^{lab}_v - w_v)(\bar h_v - \lambda v)` per system (the labels'
    mean: :math:`\lambda = 0`), estimated from the labels.  Refused where it exceeds half
    the interval's width in some system and the test's p-value is below
    :data:`REFUSE_ALPHA`; else a :class:`LabellingWarning` and a note.
    """
    c = data.cells()
    lam = np.asarray(lam, float)
    if lam.ndim:  # per system and stratum: its mean over the strata
        lam = lam.reshape(len(data.systems), -1).mean(1)
    n1, n0, l1, l0 = (c[k].sum(1).astype(float) for k in ("N1", "N0", "L1", "L0"))
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = l1 / (l1 + l0) - n1 / (n1 + n0)  # labelled share of verdict 1, minus all
        mu1, mu0 = c["H1"].sum(1) / l1, c["H0"].sum(1) / l0
    bias = gap * ((np.nan_to_num(mu1, nan=0.5) - lam) - np.nan_to_num(mu0, nan=0.5))
    lo, hi = ifn(0.05)
    half = (np.asarray(hi) - np.asarray(lo)) / 2
    said = (
        f"the labels depend on the judge's verdict (labelled {where}; Fisher's exact test, "
        f"Holm over the cells: p = {p:.2g}); method {name!r} takes them as a simple random "
        f"sample within each stratum, which biases it by about "
        f"{', '.join(f'{b:+.3f}' for b in np.atleast_1d(bias))} (the labelled items' mix of "
        "verdicts)"
    )
    remedy = (
        "use 'closed_form' or 'exact' (they condition on the verdict), or give the verdict "
        "as stratum= or weights="
    )
    if p < REFUSE_ALPHA and np.any(np.abs(bias) > half):
        raise MethodRefused(
            f"{said}, more than half its interval's width ({np.max(half):.3f}); {remedy}",
            field="human",
            value=data.columns.get("human"),
        )
    warnings.warn(f"{said}; {remedy}", LabellingWarning, stacklevel=4)
    return f"{said}; {remedy}"


def _rogan_gladen_items(study: ItemStudy):
    """Per system: the labelled items as a calibration set for the unlabelled ones (NaN
    where a class or the unlabelled set is empty, or the judge is no better than chance).
    """
    c = study.data.cells()
    tp, m1 = c["H1"].sum(1), (c["H1"] + c["H0"]).sum(1)
    lab = (c["L1"] + c["L0"]).sum(1)
    tn, m0 = (c["L0"] - c["H0"]).sum(1), lab - m1
    k = (c["N1"] - c["L1"]).sum(1)
    n = (c["N1"] + c["N0"]).sum(1) - lab

    def ifn(alpha):
        ci = cf.lang_reiczigel_from_counts(k, n, tp, m1, tn, m0, alpha)
        return np.atleast_1d(ci.lower), np.atleast_1d(ci.upper)

    return np.atleast_1d(cf.lang_reiczigel_from_counts(k, n, tp, m1, tn, m0).estimate), ifn


for _name, _summary in (
    ("ppi", "PPI (lambda = 1), as ppi_py"),
    ("ppi_plus_plus", "PPI++, as ppi_py"),
    ("labels_only", "mean of the human labels"),
    ("naive", "judge's rate, uncorrected"),
    ("rogan_gladen", "labelled items as calibration"),
):
    _comparator(_name, _summary)


@ItemStudy.methods.register("exact", engine="exact", summary="exact posterior draws")
def _exact(study: ItemStudy, *, random_seed=None, draws: int = 4000) -> FitParts:
    """``draws`` draws of the exact posterior (the study's prior on each stratum's rate,
    Jeffreys's by default, and uniform on the verdict categories given the human label;
    :func:`~judgebayes.inference.items.exact_items_draws`).
    """
    study._refuse_unpaired("exact")
    d = study.data
    if d.weights is not None or d.cluster is not None:
        field = "weights" if d.weights is not None else "cluster"
        raise MethodRefused(
            f"method='exact' is the posterior of simple random or stratified labelling of "
            f"independent items; with {field} use 'closed_form' (design-based)",
            field=field,
            value=d.columns.get(field),
        )
    rng = np.random.default_rng(random_seed)
    dr = ie.exact_items_draws(d, draws, rng, theta_prior=study.priors.theta)
    cell_dims = ["system", "stratum", "category"]
    idata = tree(
        {"posterior": {k: dr[k][None] for k in ("theta", "theta_items", "human_rate", "share")}},
        coords={
            "system": list(study.systems),
            "stratum": list(d.strata),
            "category": ie.category_names(d),
        },
        dims={
            "theta": ["system"],
            "theta_items": ["system"],
            "human_rate": cell_dims,
            "share": cell_dims,
        },
    )
    return FitParts(
        idata,
        quantity=study.quantity,
        info={
            "draws": draws,
            "prior": f"Beta{tuple(study.priors.theta)} on each stratum's rate theta (as in "
            "Laplace and NUTS), uniform on P(verdict category | human label) for each label "
            "and system (one judge: q0, q1 uniform); nothing assumed about how several "
            "judges' errors relate",
            "ess": dr["ess"].tolist(),
        },
    )


register_bayes(ItemStudy)
