r"""Repeated calibration/test splits of a fully labelled item set (Lee et al.'s protocol).

When every item carries both a judge verdict and a gold label, the gold rate of any test
part is known, so an estimator can be checked on real data: draw a calibration part
(``calibration_fraction`` of the items), use only its gold labels to estimate the judge's
specificity :math:`q_0` and sensitivity :math:`q_1`, correct the judge's rate on the rest,
and compare with the rest's gold rate.  Over ``n_splits`` seeded splits this gives

* the mean bias of the naive rate :math:`\hat p - \theta_{test}` and of each corrected
  estimate,
* the coverage and mean width of each interval: Lang-Reiczigel (closed form), the Laplace
  interval and the NUTS credible interval of the binary model (uniform priors).

All splits of one group are fitted at once: the Bayesian model is the binary model
repeated along a ``split`` dim with nothing shared
(:func:`judgebayes.models.accuracy.batched_accuracy_model`), whose posterior is the product
of the per-split posteriors, so one NUTS run or one Laplace fit covers every split.  With
``splits_per_fit`` a group's splits go to several such fits of that many splits each: more,
smaller tasks for an executor (the unit of parallel work is one fit), one compile per worker
when the fits have the same size.

The truth of a split is the gold rate of its test items that have a judge verdict (the
quantity the corrected estimate targets); items without a verdict take part in no split
and are counted per group.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np
import pandas as pd

from judgebayes.data.accuracy import calibration_mask
from judgebayes.data.accuracy.frames import split_labels
from judgebayes.errors import InputError
from judgebayes.inference.executors import describe_executor, run_tasks
from judgebayes.inference.nuts import quiet_engine_warnings
from judgebayes.inference.progress import Progress
from judgebayes.inference.registry import check_count, resolve_sampler
from judgebayes.results import interval_summary
from judgebayes.studies.accuracy import ReplicateStudy

__all__ = ["SPLIT_METHODS", "SplitProtocolResult", "split_masks", "split_protocol"]

SPLIT_METHODS = ("closed_form", "laplace", "nuts")


_LABELS = {
    "naive": "naive rate",
    "closed_form": "Rogan-Gladen + Lang-Reiczigel",
    "laplace": "Laplace",
    "nuts": "NUTS",
}


def split_masks(
    human: np.ndarray,
    n_splits: int,
    calibration_fraction: float,
    seed: int = 0,
    *,
    stratify: bool = True,
    start: int = 0,
) -> np.ndarray:
    """Calibration membership of splits ``start, ..., start + n_splits - 1``, shape
    ``(n_splits, n_items)``.

    Split ``s`` is drawn with ``numpy.random.default_rng([seed, s])``, so any one split can
    be reproduced alone.  With ``stratify=True`` each gold class gives
    ``round(calibration_fraction * size)`` items, at least 1 and at most ``size - 1``.
    """
    h = np.asarray(human)
    return np.stack(
        [
            calibration_mask(
                h, calibration_fraction, np.random.default_rng([seed, s]), stratify=stratify
            )
            for s in range(start, start + n_splits)
        ]
    )


@dataclass(frozen=True)
class SplitProtocolResult:
    r"""Per-split estimates (``splits``, long format) and the settings that made them.

    ``splits`` has one row per group x split x method (``naive`` included) with
    ``estimate, lower, upper, truth, n, m0, m1, defined`` (False where the closed form is
    undefined: calibration :math:`\hat q_0 + \hat q_1 \le 1`), ``passed`` (the split's fit
    passed its convergence gate or Laplace importance check) and ``failed`` (a defined
    split whose fit did not: counted, and summarised apart); ``groups`` one row per
    group with item counts, missing verdicts and the NUTS/Laplace run records; ``fits``
    the :class:`~judgebayes.studies.accuracy.AccuracyFit` of every (group, method), over
    the ``replicate`` dim (replicate ``s`` = split ``s``); with ``splits_per_fit``, of
    every (group, method, first split), replicate ``r`` being split ``first + r``, and
    ``groups`` adds the number of ``fits`` (its times, failures and divergences summed,
    the worst R-hat and smallest ESS over them).
    """

    splits: pd.DataFrame
    groups: pd.DataFrame
    settings: dict[str, Any] = field(default_factory=dict)
    fits: dict[tuple[str, str], Any] = field(default_factory=dict, repr=False)

    def summary(self) -> pd.DataFrame:
        """Per group x method: mean bias, mean absolute error, coverage, mean width.

        ``coverage`` and ``width`` are over the splits where the method gives an interval
        (``n_defined``); the naive rate has no interval.  ``n_passed``,
        ``coverage_passed``, ``width_passed`` and ``mae_passed`` are the same over the
        splits whose fit passed its gate.
        """
        return interval_summary(self.splits, ["group", "method"])

    def table(self) -> pd.DataFrame:
        """One row per group: naive bias, then bias / coverage / width per method."""
        s = self.summary()
        g = self.groups.set_index("group")
        rows = []
        for grp, part in s.groupby("group", sort=False):
            r: dict[str, Any] = {"group": grp, "items": int(g.loc[grp, "n_items"])}
            r["missing"] = int(g.loc[grp, "n_missing"])
            for rec in part.to_dict("records"):
                m = rec["method"]
                r[f"{m}_bias"] = rec["bias"]
                if m != "naive":
                    r[f"{m}_coverage"] = rec["coverage"]
                    r[f"{m}_width"] = rec["width"]
                if m in ("laplace", "nuts"):
                    # fits that failed their gate / importance check, and the coverage
                    # over the fits that passed, beside the numbers over all fits
                    sel = (self.splits["group"] == grp) & (self.splits["method"] == m)
                    r[f"{m}_failed"] = int(self.splits.loc[sel, "failed"].sum())
                    r[f"{m}_coverage_passed"] = rec["coverage_passed"]
                if m == "closed_form":
                    r["closed_form_undefined"] = int(rec["n_splits"] - rec["n_defined"])
            if "nuts_r_hat" in g.columns:
                r["nuts_r_hat"] = g.loc[grp, "nuts_r_hat"]
                r["nuts_divergences"] = int(g.loc[grp, "nuts_divergences"])
            rows.append(r)

        return pd.DataFrame(rows)


def split_counts(h: np.ndarray, j: np.ndarray, masks: np.ndarray) -> dict[str, np.ndarray]:
    """Each split's calibration counts (masks: the calibration rows) and its test counts
    and true rate (the other rows).
    """
    cal, test = masks, ~masks
    pos, neg, jp = h == 1, h == 0, j == 1
    return {
        "m0": (cal & neg).sum(1),
        "tn": (cal & neg & ~jp).sum(1),
        "m1": (cal & pos).sum(1),
        "tp": (cal & pos & jp).sum(1),
        "n": test.sum(1),
        "k": (test & jp).sum(1),
        "truth": (test & pos).sum(1) / test.sum(1),
    }


def checked_splits(fraction, n_splits) -> int:
    """The number of splits, after the checks of the calibration fraction and of it."""
    if not 0 < float(fraction) < 1:
        raise InputError(
            f"calibration_fraction must lie in (0, 1); got {fraction!r}",
            field="calibration_fraction",
            value=fraction,
        )
    return check_count(n_splits, "n_splits")


# ------------------------------------------------------------------ the sweep
def split_protocol(
    items: pd.DataFrame,
    *,
    judge: str = "judge",
    human: str = "human",
    group: str | None = None,
    n_splits: int = 100,
    calibration_fraction: float = 0.1,
    seed: int = 0,
    methods: tuple[str, ...] = SPLIT_METHODS,
    alpha: float = 0.05,
    stratify: bool = True,
    priors: Any = None,
    sampler: Any = None,
    laplace: dict[str, Any] | None = None,
    progress: IO[str] | bool | None = None,
    executor: Any = None,
    splits_per_fit: int | None = None,
) -> SplitProtocolResult:
    r"""Run the repeated-split protocol on an item-level frame of judge and gold labels.

    Parameters
    ----------
    items : DataFrame
        One row per item: ``judge`` (0/1, missing allowed) and ``human`` (gold 0/1)
        columns, optionally a ``group`` column (each group gets its own splits).
    judge, human, group : str
        Column names.
    n_splits : int
        Number of random splits per group.
    calibration_fraction : float
        Share of the (judged) items in each calibration part, per gold class when
        ``stratify`` (at least one item of each class).
    seed : int
        Split ``s`` of group number ``g`` uses ``default_rng([seed, s])`` on that group's
        judged items; the engines are seeded with ``seed + g`` (one fit per group), or
        from ``SeedSequence([seed, g, s0])`` for the fit whose first split is ``s0``
        (``splits_per_fit`` below ``n_splits``).
    methods : tuple of str
        Any of "closed_form" (Rogan-Gladen, Lang-Reiczigel interval), "laplace", "nuts".
    alpha : float
        Intervals are ``1 - alpha`` (equal-tailed for the Bayesian ones).
    stratify : bool
        Stratify the calibration draw by gold class (default) or draw a simple random
        sample as Lee et al. did (then a split may lack a class: such splits are undefined
        for every method and counted).
    priors : AccuracyPriors, optional
        Beta priors of the Bayesian model (default uniform).
    sampler : SamplerConfig or mapping, optional
        NUTS settings (default ``ReplicateStudy.sampler``).
    laplace : dict, optional
        Laplace settings (``draws``, default 4000; ``importance``).
    progress : file or bool, optional
        A file: where to print one line per group.  True / False: show / hide a bar over
        the groups; None: the package's switch (:mod:`judgebayes.inference.progress`).
    executor : None, int, concurrent.futures.Executor or dask.distributed.Client
        Where the fits run (:mod:`judgebayes.inference.executors`): serially (default),
        in that many local processes, or on a Dask cluster.  Each fit's seeds are fixed
        by ``seed`` and its position, so the numbers do not depend on the executor.
    splits_per_fit : int, optional
        Fit a group's splits in batches of this many (the last may be smaller); default
        all of a group's splits in one fit.  The unit of parallel work is one fit, so on
        an executor with more workers than groups a smaller batch keeps them busy.  The
        split draws do not change; the engine seeds do (above), so the Bayesian numbers
        are those of another seed, not the same draws.

    Returns
    -------
    SplitProtocolResult
    """
    n_splits = checked_splits(calibration_fraction, n_splits)
    h_items, j_items, group_col = split_labels(items, judge, human, group)
    unknown = [m for m in methods if m not in SPLIT_METHODS]
    if unknown:
        raise InputError(
            f"unknown method {unknown[0]!r}; choose from {list(SPLIT_METHODS)}",
            field="methods",
            value=unknown[0],
        )
    sampler = resolve_sampler(ReplicateStudy.sampler, sampler)
    size = (
        n_splits
        if splits_per_fit is None
        else min(check_count(splits_per_fit, "splits_per_fit"), n_splits)
    )
    starts = list(range(0, n_splits, size))
    groups = list(pd.unique(group_col)) if group else ["all"]
    opts = dict(  # the same for every group
        n_splits=n_splits,
        calibration_fraction=calibration_fraction,
        seed=seed,
        stratify=stratify,
        methods=tuple(methods),
        alpha=alpha,
        priors=priors,
        sampler=sampler,
        laplace=dict(laplace or {}),
    )
    tasks = []
    for gi, g in enumerate(groups):
        in_group = (group_col == g).to_numpy() if group else np.ones(len(h_items), bool)
        h_all, j_all = h_items[in_group], j_items[in_group]
        ok = ~np.isnan(j_all) & ~np.isnan(h_all)
        h = h_all[ok].astype(int)
        if stratify and min((h == 0).sum(), (h == 1).sum()) < 2:
            raise InputError(
                f"group {g!r}: a stratified split needs at least 2 judged items of each gold "
                f"class; got {(h == 0).sum()} and {(h == 1).sum()}",
                field=group or human,
                value=g,
            )
        for s0 in starts:
            tasks.append((gi, g, h_all, j_all, opts, s0, min(s0 + size, n_splits)))

    done = _run(tasks, executor, progress, n_splits, len(starts) == 1, len(groups))
    rows, grows, fits = _gathered(tasks, done, len(groups))
    splits = pd.concat(rows, ignore_index=True)
    bad = ~splits["defined"]
    splits.loc[bad, ["estimate", "lower", "upper"]] = np.nan
    settings = {
        "n_splits": int(n_splits),
        "calibration_fraction": float(calibration_fraction),
        "seed": int(seed),
        "alpha": float(alpha),
        "stratify": bool(stratify),
        "methods": list(methods),
        "sampler": sampler,
        "executor": describe_executor(executor),
        "splits_per_fit": None if splits_per_fit is None else size,
    }
    return SplitProtocolResult(splits, pd.DataFrame(grows), settings, fits)


def _run(tasks, executor, progress, n_splits: int, one_per_group: bool, n_groups: int):
    """Every task's result, fitted where ``executor`` says; ``progress`` a bar switch, or a
    file that gets one line per fit as it ends.
    """
    lines = progress if hasattr(progress, "write") else None  # a file: one line per group
    bar = False if lines is not None else progress

    def report(task, grec):
        if lines is not None:
            gi, g, s0, s1 = task[0], task[1], task[5], task[6]
            which = f"{n_splits} splits" if one_per_group else f"splits {s0}-{s1 - 1}"
            print(
                f"  [{gi + 1}/{n_groups}] {g}: {which}, {grec['seconds']:.1f} s",
                file=lines,
                flush=True,
            )

    unit = "group" if one_per_group else "fit"
    if executor is None:  # one fit at a time, each reported as it ends
        done = []
        with Progress(len(tasks), "split protocol", bar, unit=unit) as pb:
            for t in tasks:
                done.append(_split_group(t))
                report(t, done[-1][1])
                pb.update()
    else:
        done = run_tasks(_split_group, tasks, executor, progress=bar, desc="split protocol")
        for t, d in zip(tasks, done, strict=True):
            report(t, d[1])
    return done


def _gathered(tasks, done, n_groups: int):
    """The split rows (a group's fits in split order, its rows by method), one record per
    group, and every fit kept.
    """
    rows, grows, fits = [], [], {}
    for gi in range(n_groups):  # a group's fits in split order, its rows by method
        part = [d for t, d in zip(tasks, done, strict=True) if t[0] == gi]
        for k in range(len(part[0][0])):
            rows += [d[0][k] for d in part]
        grows.append(_merge_records([d[1] for d in part]))
        for d in part:
            fits.update(d[2])
    return rows, grows, fits


def _merge_records(recs: list[dict[str, Any]]) -> dict[str, Any]:
    """One group's run record from its fits' (``splits_per_fit``): times, failures and
    divergences add up; the worst R-hat and the smallest ESS; passed if every fit did.
    """
    if len(recs) == 1:
        return recs[0]
    out = dict(recs[0])
    for key in out:
        vals = [r[key] for r in recs]
        if key.endswith(("seconds", "_failed", "_divergences")):
            out[key] = type(vals[0])(sum(vals))
        elif key.endswith("_r_hat"):
            out[key] = max(vals)
        elif key.endswith("_ess_bulk"):
            out[key] = min(vals)
        elif key.endswith("_passed"):
            out[key] = all(vals)
    out["fits"] = len(recs)
    return out


def _split_group(task):
    """One fit's splits of a group (a task of :func:`split_protocol`; runs in a worker):
    splits ``s0, ..., s1 - 1``, all of the group's unless ``splits_per_fit``.
    """
    gi, g, h_all, j_all, o, s0, s1 = task
    seed, methods = o["seed"], o["methods"]
    n_splits = s1 - s0
    whole = n_splits == o["n_splits"]
    # one fit per group keeps the documented seed + g; a batch gets its own stream
    engine_seed = (
        seed + gi if whole else int(np.random.SeedSequence([seed, gi, s0]).generate_state(1)[0])
    )
    ok = ~np.isnan(j_all) & ~np.isnan(h_all)
    h, j = h_all[ok].astype(int), j_all[ok].astype(int)
    t0 = time.perf_counter()
    masks = split_masks(
        h, n_splits, o["calibration_fraction"], seed, stratify=o["stratify"], start=s0
    )
    c = split_counts(h, j, masks)
    defined = (c["m0"] > 0) & (c["m1"] > 0) & (c["n"] > 0)
    base = {
        "group": g,
        "split": np.arange(s0, s1),
        "truth": c["truth"],
        "n": c["n"],
        "m0": c["m0"],
        "m1": c["m1"],
    }
    p_hat = c["k"] / np.maximum(c["n"], 1)
    rows = [
        pd.DataFrame(
            {
                **base,
                "method": "naive",
                "estimate": p_hat,
                "lower": np.nan,
                "upper": np.nan,
                "defined": True,
                "passed": True,
                "failed": False,
            }
        )
    ]
    grec: dict[str, Any] = {
        "group": g,
        "n_items": len(h_all),
        "n_missing": int((~ok).sum()),
        "n_judged": int(ok.sum()),
    }
    fits = {}
    study = ReplicateStudy(c["k"], c["n"], c["tp"], c["m1"], c["tn"], c["m0"], priors=o["priors"])
    for m in methods:
        opts = {"sampler": o["sampler"]} if m == "nuts" else dict(o["laplace"])
        if m == "closed_form":
            opts = {}
        with quiet_engine_warnings():  # the gate's verdict is recorded per group
            fit = study.fit(m, random_seed=engine_seed, **opts)
        fits[(g, m) if whole else (g, m, s0)] = fit
        iv = fit.interval(o["alpha"])
        # passed: the replicate's own gate (NUTS) or importance check (Laplace: a
        # refused or flat replicate is NaN); the closed form has no gate
        passed = np.asarray(fit.info.get("passed", np.ones(n_splits, bool)), bool)
        passed = passed & np.isfinite(iv["estimate"].to_numpy(float))
        rows.append(
            pd.DataFrame(
                {
                    **base,
                    "method": m,
                    "estimate": iv["estimate"].to_numpy(),
                    "lower": iv["lower"].to_numpy(),
                    "upper": iv["upper"].to_numpy(),
                    "defined": defined & np.isfinite(iv["lower"].to_numpy()),
                    "passed": passed | (m == "closed_form"),
                    "failed": defined & ~passed & (m != "closed_form"),
                }
            )
        )
        grec.update({f"{m}_{k}": v for k, v in _run_record(fit).items()})
    grec["seconds"] = time.perf_counter() - t0
    return rows, grec, fits


def _run_record(fit) -> dict[str, Any]:
    """Per group and method: time, and the gate's numbers or the failed Laplace blocks."""
    rec: dict[str, Any] = {"seconds": fit.seconds}
    if fit.method == "laplace":
        rec["failed"] = len(fit.info.get("failed_blocks", ())) + len(
            fit.info.get("refused_blocks", ())
        )
    if "passed" in fit.info:
        rec["failed"] = int(np.sum(~np.asarray(fit.info["passed"], bool)))
    d = fit.diagnostics
    if d is not None:
        rec.update(
            r_hat=d.r_hat_max, ess_bulk=d.ess_bulk_min, divergences=d.divergences, passed=d.passed
        )
    return rec
