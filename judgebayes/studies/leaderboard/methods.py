"""The leaderboard's methods beside NUTS: the paired closed form, HELM's item bootstrap,
and a Laplace approximation that integrates the model's spreads (for boards too large
for NUTS).  Every one takes a judged board: the closed form and the bootstrap correct the
judge's scores by the labels first (:mod:`judgebayes.inference.leaderboard.judged`), the
Laplace fit learns the judge's rates as NUTS does.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from judgebayes.errors import InputError, MethodRefused
from judgebayes.inference.leaderboard import paired
from judgebayes.inference.leaderboard.adjusted import covariate_adjusted
from judgebayes.inference.leaderboard.field import BoardCells
from judgebayes.inference.leaderboard.judged import FEW_LABELS, JudgeCorrection, judge_corrected
from judgebayes.inference.leaderboard.laplace import fit_board_laplace
from judgebayes.inference.leaderboard.paired import resampled_means
from judgebayes.inference.registry import check_count
from judgebayes.results import point_tree
from judgebayes.results.trees import tree
from judgebayes.studies.base import FitParts
from judgebayes.studies.leaderboard.base import LeaderboardStudy
from judgebayes.studies.leaderboard.variants import GuessingBoard, TwoPLBoard

__all__ = ["ONE_SLOPE_ALPHA", "PairedScores", "paired_scores"]

#: the fewest clusters (or items) the bootstrap resamples: at 10 clusters its 95%
#: intervals covered 0.90-0.92 of 600 simulated boards, at 12 0.91-0.95
BOOTSTRAP_UNITS = 20
#: CPU seconds a judged board's Laplace fit may take by default before it is refused
JUDGED_BUDGET = 10.0
#: the level of the check that one slope fits every system's pull (``adjust=``)
ONE_SLOPE_ALPHA = 0.01


@dataclass(frozen=True)
class PairedScores:
    """What the closed form and the bootstrap resample: the (S, I) scores of the items
    every system answered (a judge's corrected, or a pull taken out), each item's cluster,
    the notes, and the judge's correction when there is one.
    """

    x: np.ndarray
    g: np.ndarray | None
    notes: tuple[str, ...]
    correction: JudgeCorrection | None
    slopes: dict


def paired_scores(study: LeaderboardStudy, method: str) -> PairedScores:
    """The scores the closed form and the bootstrap read (:class:`PairedScores`)."""
    d = study.data
    full = d.complete_items()
    if full.sum() < 2:
        raise MethodRefused(
            f"{int(full.sum())} item(s) answered by every system; method {method!r} pairs "
            "them and needs 2: use method='nuts'",
            method=method,
        )
    notes = []
    if not full.all():
        notes.append(
            f"{int((~full).sum())} item(s) not answered by every system left out (the "
            "closed forms compare the systems on the same items)"
        )
    g = None
    if d.clusters:
        g = d.cluster[full]
        if np.unique(g).size < 2:
            raise MethodRefused(
                f"the items every system answered are all in one cluster of "
                f"{d.column('cluster')!r}: no variance between clusters can be estimated; "
                "use method='nuts', or leave cluster= out (a board about that cluster's items)",
                method=method,
            )
    x = d.scores[:, full]
    correction, slopes = None, {}
    if d.covariates is not None:
        if d.judged:
            raise MethodRefused(
                "adjust= and human= together are not built: correct the judge by the labels, "
                "or adjust its scores for the covariates, not both",
                method=method,
            )
        x, slopes, note = _adjusted(x, d.covariates[:, full], d.covariate_names)
        notes.append(note)
    elif d.judged:
        correction, more = _corrected(study, x, d.labels[:, full], method)
        x = correction.phi
        notes += more
    return PairedScores(x, g, tuple(notes), correction, slopes)


def _corrected(study, x, h, method) -> tuple[JudgeCorrection, list[str]]:
    """The judge's scores corrected by the labels, with the notes on how and on the labels."""
    d = study.data
    if (d.rows[:, d.complete_items()] > 1).any():
        raise MethodRefused(
            f"method {method!r} corrects one verdict per system and item; some cells hold "
            "several rows: use method='nuts' (it counts them)",
            method=method,
        )
    lab = ~np.isnan(h)
    n_s = lab.sum(axis=1)
    few = np.flatnonzero(n_s < 2)
    if few.size:
        raise MethodRefused(
            f"system {d.systems[few[0]]!r} has {int(n_s[few[0]])} labelled row(s) among the "
            f"items every system answered; method {method!r} corrects each system by its "
            "own labels and needs 2: label more of its rows, or use method='nuts' (it pools "
            "the judge's rates over systems)",
            method=method,
        )
    c = judge_corrected(x, h)
    notes = [
        f"judge-corrected by {int(n_s.sum())} human label(s) in {d.column('human')!r} "
        f"({c.how}; {int(n_s.min())}-{int(n_s.max())} labels a system)"
    ]
    if c.merged:
        notes.append(
            f"{len(c.merged)} system(s) have fewer than 2 labels on some score value of the "
            "judge: their residuals are averaged over all their labels, which must then be a "
            "random choice of their rows"
        )
    return c, notes


def _adjusted(x, c, covariates):
    """The pseudo-scores at covariates 0 (:func:`covariate_adjusted`), the slopes with
    their standard errors, and the note that says so.
    """
    within = c - c.mean(axis=0, keepdims=True)  # across the systems on each item
    for k, col in enumerate(covariates):
        if np.abs(within[..., k]).max() < 1e-12:
            raise InputError(
                f"adjust={col!r} is the same for every system on each item: it moves no rank, "
                "and the items' own effects absorb it; leave it out",
                field="adjust",
                value=col,
            )
    flat = (within - within.mean(axis=1, keepdims=True)).reshape(-1, len(covariates))
    for k, col in enumerate(covariates):
        if np.abs(flat[:, k]).max() < 1e-12:
            raise InputError(
                f"adjust={col!r} is one value per system (the same on every item): the "
                "systems' own effects absorb it, so no slope can be told from quality",
                field="adjust",
                value=col,
            )
    if len(covariates) > 1 and np.linalg.matrix_rank(flat) < len(covariates):
        raise InputError(
            f"adjust={list(covariates)!r}: the covariates are collinear once each system's "
            "and each item's own level is taken out; leave one out",
            field="adjust",
            value=list(covariates),
        )
    phi, beta, se, p = covariate_adjusted(x, c)
    slopes = {
        col: (float(b), float(e), float(q))
        for col, b, e, q in zip(covariates, beta, se, p, strict=True)
    }
    said = ", ".join(f"{col} {b:+.4g} (se {e:.2g})" for col, (b, e, _) in slopes.items())
    note = (
        f"adjusted to {' = '.join(covariates)} = 0: the score's slope on {said}, one for "
        "every system, fitted with an effect per system and item; its uncertainty is in "
        "every interval"
    )
    apart = [f"{col} (p = {q:.2g})" for col, (_, _, q) in slopes.items() if q < ONE_SLOPE_ALPHA]
    if apart:
        note += (
            f"; check failed: the systems are pulled by {', '.join(apart)} with different "
            "slopes, so one slope biases the adjusted means: do not report them"
        )
    return phi, slopes, note


def _flat_notes(study, pm: paired.PairedMeans) -> list[str]:
    """A note naming the systems whose scores did not vary over the items (or clusters)."""
    flat = np.flatnonzero(np.diag(pm.cov) <= 0)
    if not flat.size:
        return []
    names = ", ".join(repr(study.systems[s]) for s in flat[:5])
    bounded = np.isfinite(study.data.scale[1] - study.data.scale[0])
    return [
        f"{flat.size} system(s) scored the same on every item or cluster ({names}): the "
        "sample says nothing of their spread, so "
        + (
            "their intervals are the scale's worst case at that many units"
            if bounded
            else "their intervals are points (give scale= bounds for a worst case)"
        )
    ]


def _sampling_info(study, ps: PairedScores, pm: paired.PairedMeans) -> dict:
    """What a closed form's or a bootstrap's table needs beside its draws."""
    info = {
        "scale": list(study.data.scale),
        "n_clusters": pm.n_clusters,
        "n_paired_items": int(ps.x.shape[1]),
        "slopes": ps.slopes,
    }
    if ps.correction is not None:
        info["labels"] = ps.correction.labelled.tolist()
    return info


@LeaderboardStudy.methods.register(
    "closed_form", engine="closed_form", summary="paired cluster-robust means, bounded intervals"
)
def _closed_form(study: LeaderboardStudy, *, random_seed=None) -> FitParts:
    """Each system's mean over the paired items, their CR2 covariance
    (:func:`~judgebayes.inference.leaderboard.paired.paired_means`), Wilson intervals.
    """
    d = study.data
    ps = paired_scores(study, "closed_form")
    pm = paired.paired_means(ps.x, ps.g, d.scale)
    c = ps.correction
    n = len(d.systems)
    df = np.full(n, pm.df) if c is None else np.minimum(c.df, pm.df)
    if c is None:
        rows = d.rows[:, d.complete_items()]
        v_items = paired.items_variance(d.scores[:, d.complete_items()], rows, d.trials)
        df_items = np.full(n, pm.df)
    else:
        v_items, df_items = c.items_var, c.df_items
    units = pm.n_clusters

    def interval(alpha):
        return paired.bounded_interval(pm.mean, np.diag(pm.cov), units, df, alpha, d.scale)

    idata = point_tree(
        {
            "theta_process": pm.mean,
            "se": pm.se,
            "cov_process": pm.cov,
            "cov_items": np.diag(v_items),
        },
        "system",
        study.systems,
        dims={"cov_process": ["system", "system_"], "cov_items": ["system", "system_"]},
        coords={"system_": list(study.systems)},
    )
    info = {
        **_sampling_info(study, ps, pm),
        "df": df.tolist(),
        "df_items": np.asarray(df_items, float).tolist(),
        # these items' scores are the answer itself: one 0/1 outcome a cell, no judge
        "items_exact": bool(c is None and not d.trials),
    }
    point = np.clip(pm.mean, *d.scale)
    outside = np.flatnonzero(point != pm.mean)
    clipped = (
        [
            f"{outside.size} corrected mean(s) fell outside the scale and are reported at its "
            f"end ({', '.join(f'{study.systems[s]!r}: {pm.mean[s]:.3g}' for s in outside[:5])})"
        ]
        if outside.size
        else []
    )
    return FitParts(
        idata,
        quantity="theta_process",
        info=info,
        notes=(*ps.notes, *_flat_notes(study, pm), *clipped),
        interval_fn=interval,
        point=point,
    )


@LeaderboardStudy.methods.register(
    "bootstrap", engine="closed_form", summary="resampled items (HELM's), percentile intervals"
)
def _bootstrap(study: LeaderboardStudy, *, random_seed=None, reps: int = 2000) -> FitParts:
    """Each system's mean in ``reps`` resamples of the items (clusters): percentiles."""
    reps = check_count(reps, "reps", minimum=100)
    ps = paired_scores(study, "bootstrap")
    g = paired.cluster_codes(ps.g, ps.x.shape[1])
    units = int(g.max()) + 1
    if units < BOOTSTRAP_UNITS:
        what = "clusters" if ps.g is not None else "items"
        raise MethodRefused(
            f"the bootstrap resamples {units} {what}, fewer than {BOOTSTRAP_UNITS}: its "
            "percentiles then under-cover (0.90-0.92 at 10 clusters where the closed form "
            "held 0.94-0.96); use method='closed_form' (CR2 with Student's t at their "
            "degrees of freedom)",
            method="bootstrap",
        )
    if ps.correction is not None and (ps.correction.labelled < FEW_LABELS).any():
        s = int(np.argmin(ps.correction.labelled))
        raise MethodRefused(
            f"system {study.systems[s]!r} has {int(ps.correction.labelled[s])} labels: a "
            f"bootstrap of so few labels' residuals under-covers (0.79 at 2% labels where "
            f"the closed form held 0.94); use method='closed_form' (its degrees of freedom "
            f"are the labels'), or label {FEW_LABELS} or more of each system's rows",
            method="bootstrap",
        )
    means = resampled_means(ps.x, g, reps, random_seed)
    idata = tree({"posterior": {"theta_process": means[None]}}, dims={"theta_process": ["system"]},
                 coords={"system": list(study.systems)})  # fmt: skip
    pm = paired.paired_means(ps.x, ps.g, study.data.scale)
    return FitParts(
        idata,
        quantity="theta_process",
        info={**_sampling_info(study, ps, pm), "reps": reps},
        notes=(*ps.notes, *_flat_notes(study, pm)),
        point=pm.mean,
    )


@LeaderboardStudy.methods.register(
    "laplace", engine="laplace", summary="Laplace, the spreads integrated (large boards)"
)
def _laplace(
    study: LeaderboardStudy,
    *,
    random_seed=None,
    draws: int = 2000,
    points: int = 16,
    budget: float | None = None,
):
    """``draws`` draws of the one-parameter (or exchangeable) board from
    :func:`~judgebayes.inference.leaderboard.laplace.fit_board_laplace`, its spreads
    integrated over ``points`` points; a fit whose CPU time would pass ``budget`` seconds
    is refused as soon as that is known (default: :data:`JUDGED_BUDGET` for a judged
    board, whose items are integrated one by one; none otherwise).
    """
    d = study.data
    if d.clusters:
        raise MethodRefused(
            "the leaderboard's Laplace fit does not cover item clusters; use method='nuts'",
            method="laplace",
        )
    draws = check_count(draws, "draws", minimum=100)
    points = check_count(points, "points", minimum=4)
    if budget is None:
        budget = JUDGED_BUDGET if d.judged else np.inf
    if isinstance(budget, bool) or not isinstance(budget, numbers.Real) or not budget > 0:
        raise InputError(
            f"budget must be a positive number of CPU seconds; got {budget!r}",
            field="budget",
            value=budget,
        )
    c = BoardCells.of(d, items=study.item_effects, overdispersed=study.overdispersed)
    rng = np.random.default_rng(random_seed)
    out, info = fit_board_laplace(
        c, study.priors, draws=draws, points=points, rng=rng, budget=float(budget)
    )
    dims = {"ability": ["system"], "difficulty": ["item"]}
    dims |= {"sensitivity": ["system"], "specificity": ["system"]}
    idata = tree(
        {"posterior": {k: v[None] for k, v in out.items()}},
        dims={k: v for k, v in dims.items() if k in out},
        coords={"system": list(d.systems), "item": list(d.items)},
    )
    what = "the field's Gaussian"
    if d.judged:
        what = "the systems' Gaussian, each item integrated out,"
    note = (
        f"Laplace: {what} at each of {info['points']} points of the spreads "
        f"({info['psi_ess']} effective)"
    )
    parts = FitParts(idata, info=info, notes=(note,) if c.n_psi else ())
    return study._bayes_done(parts, random_seed)


GuessingBoard.methods.refuse(
    "laplace",
    "the Laplace fit covers the one-parameter and exchangeable boards: a floor under the "
    "success probabilities makes the abilities' likelihood not log-concave; use method='nuts'",
)
TwoPLBoard.methods.refuse(
    "laplace",
    "the Laplace fit covers the one-parameter and exchangeable boards: the discriminations "
    "multiply the abilities, so their block is not Gaussian; use method='nuts'",
)
