"""The scores design's methods beside NUTS (:mod:`~judgebayes.studies.scores.base`): the
closed form (cross-fitted monotone calibration, the augmented mean) and the comparators
(``ppi``, ``ppi_plus_plus``, ``labels_only``, ``naive``), with where each cannot answer the
data given.
"""

from __future__ import annotations

import warnings
from typing import Any

from judgebayes.data.scores import ScoreData
from judgebayes.errors import MethodRefused
from judgebayes.inference import scores as sc
from judgebayes.studies.base import FitParts
from judgebayes.studies.notes import point_interval_notes
from judgebayes.studies.scores.base import ScoreStudy, refuse_time

COMPARATORS = {
    "ppi": "PPI (lambda = 1) on the judge's raw score, ppi_py's interval",
    "ppi_plus_plus": "PPI++ (tuned lambda, clipped to [0, 1]) on the judge's raw score, "
    "ppi_py's interval",
    "labels_only": "the human-labelled rows' mean, t interval",
    "naive": "the judge's mean score mapped linearly to the human scale, uncorrected "
    "(biased unless the judge's scale is the humans')",
}


def _unequal(d: ScoreData) -> tuple[str, object]:
    """The keyword that says the labels were not a simple random sample, and its value."""
    key = "label_prob" if "label_prob" in d.columns else "labelled_by"
    return key, d.columns.get(key)


def refuse_comparator(name: str, d: ScoreData) -> None:
    """The comparators take one judge's raw score, one period, a simple random sample of
    labels and independent rows (``naive`` needs only the first two).
    """
    if name.startswith("ppi") and d.n_judges > 1:
        raise MethodRefused(
            f"method {name!r} takes one judge's raw score; {d.n_judges} judges were "
            "given: fit it on one judge's column, or use 'closed_form' for all of them",
            field="score",
            value=list(d.judges),
        )
    if d.period is not None:
        refuse_time(name, d)
    if d.weights is not None and name != "naive":
        key, value = _unequal(d)
        raise MethodRefused(
            f"method {name!r} takes the labels as a simple random sample; {key}={value!r} "
            "says they were not: use 'closed_form' (weighted) or 'nuts' (it conditions on "
            "the score and the system)",
            field=key,
            value=value,
        )
    if d.cluster is not None:
        raise MethodRefused(
            f"method {name!r} treats rows as independent and would ignore cluster="
            f"{d.columns.get('cluster')!r}; use 'closed_form' (cluster-robust)",
            field="cluster",
            value=d.columns.get("cluster"),
        )


@ScoreStudy.methods.register(
    "closed_form", engine="closed_form", summary="cross-fitted monotone calibration, AIPW"
)
def _closed_form(
    study: ScoreStudy,
    *,
    random_seed=None,
    calibration: str = "isotonic",
    power_tuning: bool = True,
) -> FitParts:
    r"""``calibration``: ``"isotonic"`` (default), ``"logistic"`` or ``"auto"`` (logistic
    unless isotonic predicts held-out labels better by over one standard error);
    ``power_tuning``: the calibration scaled by the variance-minimising :math:`\lambda \in
    [0, 1]` (default) or as fitted (:mod:`judgebayes.inference.scores`).
    """
    d = study.data
    # the folds are drawn from the seed (0 when none is given: the same data, the same fit)
    seed = 0 if random_seed is None else random_seed
    notes = []
    design = "rows labelled at random"
    if d.cluster is not None and study.estimand == "process":
        design = "cluster-robust over clusters"
    own: dict[str, Any] = {}  # what the calibration says of itself
    if d.period is None:
        cal, lam = sc.tuned_calibration(d, seed, study.folds, calibration, power_tuning)
        est = sc.augmented_means(d, cal, study.estimand)
        own = {"calibration": cal.kind, "calibration_oof_mse": cal.oof_mse, "power_tuning": lam}
        notes += [
            f"system {s!r}: every labelled row has the same label, so the residual variance "
            "is floored at a smoothed Bernoulli's (l m + 1)/(l + 2) (label more rows)"
            for s, a in zip(study.systems, est.info["labels_agree"], strict=True)
            if a
        ]
    else:
        est, per, rows = sc.period_means(
            d, study.estimand, seed, study.folds, calibration, power_tuning=power_tuning
        )
        design += " within each period, calibrated within each period, pooled by rows"
        own = {"calibration": calibration if calibration != "auto" else "chosen by period"}
    info: dict[str, Any] = {
        "estimator": f"cross-fitted monotone calibration ({own['calibration']}) of the human "
        f"label on the score{'s (least-squares index)' if d.n_judges > 1 else ''}, "
        f"augmented (AIPW) mean with its influence variance, {design}; Student-t interval "
        "clipped to the human scale",
        "folds": study.folds,
        **own,
    }
    if d.period is not None:
        info["periods"] = {
            "periods": list(d.periods),
            "systems": list(study.systems),
            "n_items": rows.tolist(),
            "n_labelled": [e.info["n_labelled"].tolist() for e in per],
            "estimate": [e.estimate.tolist() for e in per],
            "se": [e.se.tolist() for e in per],
            "df": [e.df.tolist() for e in per],
        }
    if len(study.systems) > 1:
        info["contrasts"] = table = sc.paired_contrasts(d, est, study.estimand)
        if d.item is not None:
            done = {(a, b) for a, b, *_ in table["paired"]}
            notes += [
                f"{study.systems[a]!r} - {study.systems[b]!r}: not the same items (or under "
                "2 labels on one), so their contrast is the independent one"
                for a in range(len(study.systems))
                for b in range(a + 1, len(study.systems))
                if (a, b) not in done
            ]
    return study._point(study.quantity, est, info, notes)


def _comparator(name: str, summary: str):
    def fit(study: ScoreStudy, *, random_seed=None) -> FitParts:
        d = study.data
        refuse_comparator(name, d)
        if name in ("ppi", "ppi_plus_plus"):
            est = sc.ppi_means(d, lam=1.0 if name == "ppi" else None)
            extra = {"lam": est.info["lam"].tolist()}
        elif name == "labels_only":
            est, extra = sc.labels_only_means(d), {}
        else:
            est, extra = sc.naive_means(d), {}
        info = {"estimator": COMPARATORS[name], "estimand": "process", **extra}
        notes = [f"{name} estimates the process mean (mu), not the N rows' mean"]
        notes += point_interval_notes(study.systems, est.se, name)
        if name == "naive":
            notes.append(
                "naive maps the judge's scale linearly onto the humans' and corrects nothing"
            )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            return study._point("mu", est, info, notes)

    fit.__name__ = fit.__qualname__ = f"_{name}"
    ScoreStudy.methods.register(name, engine="closed_form", summary=summary)(fit)


for _name, _summary in (
    ("ppi", "PPI (lambda = 1) on the raw score, as ppi_py"),
    ("ppi_plus_plus", "PPI++ on the raw score, as ppi_py"),
    ("labels_only", "the labelled rows' mean"),
    ("naive", "the judge's mean mapped to the human scale (uncorrected)"),
):
    _comparator(_name, _summary)
