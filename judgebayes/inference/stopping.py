r"""When to stop an evaluation: an anytime-valid, judge-corrected interval for the pass rate
of a fixed set of samples judged one at a time in random order, and the rule that stops on it.

**Setting.**  An eval's dataset has :math:`N` samples.  They are run in random order; sample
:math:`i` gets the judge's verdict :math:`f_i \in [0, 1]` (0/1, or a score) and, with a
known probability :math:`\pi_i`, a human label :math:`y_i \in [0, 1]` (:math:`R_i = 1`).
The target is the true pass rate of the set, :math:`\theta = \tfrac1N \sum_{i=1}^N y_i`.

**Why not bet on the pseudo-outcome directly.**  :math:`z_i = f_i + (R_i / \pi_i)(y_i -
f_i)` is unbiased for :math:`y_i`, and a betting sequence on :math:`z` mapped to [0, 1]
is exact for the mean of the realised :math:`z` population; but that mean is
:math:`\theta` plus the Horvitz-Thompson error of the labels, so the sequence shrinks
onto the wrong point as :math:`t \to N` (with the coins fixed, the last look is a point).
Conditioning on what was seen, the next :math:`z` has mean
:math:`(N\theta - \sum_{j<t} y_j) / (N - t + 1)`, which needs the labels of the samples
seen without one.

**The exact sequence used here.**  Two exact sequences, each at level :math:`\alpha / 2`,
intersected.  When every sample has the same chance :math:`\pi` of a label, independently
of the order, the labelled samples are themselves a uniform random sample drawn without
replacement, in random order: given the first :math:`m` labels, the next labelled sample is
equally likely to be any of the :math:`N - m` others.

- *The labels alone.*  The hedged betting sequence of Waudby-Smith and Ramdas (2020; the
  capital :math:`\max(\tfrac12 \prod (1 + \lambda^+_j (x_j - \mu_j)), \tfrac12 \prod (1 -
  \lambda^-_j (x_j - \mu_j)))`, :math:`\mu_j = (N m - \sum_{k<j} x_k) / (N - j + 1)`, with
  the predictable-mixture bets of Waudby-Smith and Ramdas 2024, *JRSSB* 86, eq. 26;
  :func:`~judgebayes.inference.sequences.betting_sequence`) on the labelled :math:`y`.
- *The judge's rate plus its error.*  :math:`\theta = \varphi + \delta`, with
  :math:`\varphi = \tfrac1N \sum f_i` the judge's pass rate over the set and
  :math:`\delta = \tfrac1N \sum (y_i - f_i)` its error.  Every sample run is judged, in
  random order without replacement, so the same sequence on :math:`f` bounds
  :math:`\varphi`; on :math:`(y - f + 1) / 2` over the labelled samples it bounds
  :math:`\delta` (on the lattice :math:`k / 2N` when verdicts and labels are 0/1, so it is
  exact); each at :math:`\alpha / 4`, and their sum bounds :math:`\theta`.

By a union bound the intersection misses :math:`\theta` at some look with probability at
most :math:`\alpha`.  The judge's part is the narrower early, before many labels are in
(every sample is judged); later, at 10-30% labelled, the labels' part usually is, even
beside an accurate judge, since the judge's part adds two widths (BENCHMARKS.md, "Stopping
an eval early").  The intersection costs :math:`\alpha / 2` on each against the better one
alone.  It is also intersected with the logically possible range
(:math:`\sum_{lab} y / N \le \theta \le 1 - \sum_{lab} (1 - y) / N`) and over time (the
target does not move).

Because it holds at every look at once, stopping the first time it is narrow enough, or
lies wholly on one side of a claim, keeps the miscoverage at most :math:`\alpha` whatever
the stopping time.  The estimate is :math:`\bar f_t + \overline{(y - f)}_{lab}`.

With per-sample probabilities :math:`\pi_i \ge \pi_0` (the design's floor
``label_prob``), a label is kept with chance :math:`\pi_0 / \pi_i` (a seeded coin), which
makes the kept labels a uniform :math:`\pi_0` sample: the labels beyond it are the price of
exactness.  With :math:`\pi = 1` every sample is labelled and the sequence is the betting
sequence on the labels at level :math:`\alpha`.  Without labels (:math:`\pi = 0`) it is the
betting sequence on the verdicts: an interval for the **judge's** pass rate, not the truth.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from judgebayes.errors import InputError
from judgebayes.inference.registry import check_count
from judgebayes.inference.sequences import betting_sequence
from judgebayes.results import check_alpha

__all__ = ["StopDecision", "StoppingRule", "early_stop", "stopping_sequence"]

HUMAN = "human pass rate"
JUDGE = "judge pass rate"
JUDGE_NOTE = (
    "no human labels: the interval is for the judge's pass rate, not the true pass rate "
    "(the judge's errors are not corrected)"
)


@dataclass(frozen=True)
class StopDecision:
    """The rule's answer at one look.

    ``stop`` says whether the run may stop (and stays true once it has); ``reason`` is
    ``"width"``, ``"above claim"``, ``"below claim"``, ``"all samples"`` or ``""`` (go
    on).  ``estimate``, ``lower`` and ``upper`` are for ``target``: the human pass rate of
    the whole set, or the judge's when there are no labels (``note`` says so).  ``looks``
    holds one row per look (from :func:`early_stop`; empty from :class:`StoppingRule`).
    """

    stop: bool
    reason: str
    estimate: float
    lower: float
    upper: float
    n: int
    n_labelled: int
    population: int
    alpha: float
    target: str = HUMAN
    looks: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False, compare=False)
    label_prob: float = 0.0

    @property
    def saved(self) -> int:
        """Samples not run: ``population - n``."""
        return self.population - self.n

    @property
    def width(self) -> float:
        """``upper - lower``."""
        return self.upper - self.lower

    @property
    def note(self) -> str:
        """What the interval is for, when it is not the true pass rate; or that no label
        came where several were due.
        """
        if self.target == JUDGE:
            return JUDGE_NOTE
        due = self.n * self.label_prob
        if self.n_labelled == 0 and due >= 5:  # chance of none at most exp(-5)
            return (
                f"no label among the {self.n} samples run at label_prob {self.label_prob:g} "
                f"(about {due:.0f} due): are the labels passed? without them the interval "
                "is the range the judge's errors allow"
            )
        return ""

    def as_dict(self) -> dict[str, Any]:
        """The decision as plain JSON values (the Inspect manager's metadata)."""
        out = {
            "stop": self.stop,
            "reason": self.reason,
            "target": self.target,
            "estimate": self.estimate,
            "lower": self.lower,
            "upper": self.upper,
            "n": self.n,
            "n_labelled": self.n_labelled,
            "population": self.population,
            "saved": self.saved,
            "alpha": self.alpha,
        }
        if self.note:
            out["note"] = self.note
        return out

    def __str__(self) -> str:
        head = f"stop ({self.reason})" if self.stop else "continue"
        text = (
            f"{head}: {self.target} {self.estimate:.3f} [{self.lower:.3f}, {self.upper:.3f}] "
            f"({1 - self.alpha:.0%}, valid at every look); {self.n} of {self.population} "
            f"samples run, {self.n_labelled} labelled"
        )
        text += f", {self.saved} saved" if self.stop else ""
        return f"{text}; {self.note}" if self.note else text


# ------------------------------------------------------------------ checks of the inputs
def _unit_array(values, name: str, *, missing: bool) -> np.ndarray:
    """``values`` as floats in [0, 1] (NaN allowed where ``missing``), else an InputError."""
    try:
        x = np.asarray(values, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raw = np.asarray(values, dtype=object).reshape(-1)
        shown = next((v for v in raw if not isinstance(v, int | float)), raw[:1])
        raise InputError(
            f"{name} must be numbers in [0, 1]; got {type(shown).__name__} {str(shown)!r} "
            f"among its {raw.size} value(s)",
            field=name,
            value=str(shown),
        ) from None
    bad = ~np.isnan(x) if missing else np.ones(x.size, dtype=bool)
    bad &= ~((x >= 0.0) & (x <= 1.0))
    if not missing:
        bad |= np.isnan(x)
    if bad.any():
        first = float(x[np.flatnonzero(bad)[0]])
        raise InputError(
            f"{name} must lie in [0, 1]{' (NaN = none)' if missing else ''}; got {first} "
            f"({int(bad.sum())} of {x.size} value(s))",
            field=name,
            value=first,
        )
    return x


def _fraction(value, name: str, *, low_open: bool, high_open: bool) -> float:
    """A number in [0, 1] with the ends open as asked, else an InputError naming it."""
    ok = isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)
    v = float(value) if ok else math.nan
    if not ok or not (v > 0.0 if low_open else v >= 0.0) or not (v < 1 if high_open else v <= 1):
        span = f"{'(' if low_open else '['}0, 1{')' if high_open else ']'}"
        raise InputError(
            f"{name} must be a number in {span}; got {value!r}", field=name, value=value
        )
    return v


def check_settings(population, label_prob, width, claim, alpha, min_samples, every=1) -> dict:
    """The rule's settings checked, each bad value one InputError naming its field
    (``population`` None: not known yet, as when a task has not started).
    """
    out: dict[str, Any] = {
        "population": None if population is None else check_count(population, "population"),
        "alpha": check_alpha(alpha),
    }
    out["label_prob"] = _fraction(label_prob, "label_prob", low_open=False, high_open=False)
    if width is None and claim is None:
        raise InputError(
            "give width= (stop once the interval is this narrow) or claim= (stop once the "
            "interval is wholly above or below it), or both",
            field="width",
            value=None,
        )
    out["width"] = (
        None if width is None else _fraction(width, "width", low_open=True, high_open=False)
    )
    out["claim"] = (
        None if claim is None else _fraction(claim, "claim", low_open=True, high_open=True)
    )
    out["min_samples"] = check_count(min_samples, "min_samples")
    if out["population"] is not None and out["min_samples"] > out["population"]:
        raise InputError(
            f"min_samples {out['min_samples']} is more than the population "
            f"{out['population']}: the rule could never look",
            field="min_samples",
            value=out["min_samples"],
        )
    out["every"] = check_count(every, "every")
    return out


# ------------------------------------------------------------------ the sequence
def _stream(x: np.ndarray, N: int, alpha: float, binary: bool, half: bool):
    """The betting sequence on ``x`` in [0, 1], safe for any mean: on the lattice the mean
    takes (``k / N``, or ``k / 2N`` for ``half``) when ``binary``, else on a grid of step
    at most 1/1000 and widened by one step (the true mean may lie between grid points).
    """
    if binary:
        return betting_sequence(x, N, alpha, resolution=2 if half else 1)
    res = max(1, math.ceil(1000 / N))
    lo, hi = betting_sequence(x, N, alpha, resolution=res)
    step = 1.0 / (N * res)
    return np.maximum(lo - step, 0.0), np.minimum(hi + step, 1.0)


def _labelled(x, n_lab, N, alpha, binary, half):
    """The sequence on the labelled stream ``x``, read after each sample: after sample t
    the labels so far are the first ``n_lab[t]`` of the stream ([0, 1] before any).
    """
    if x.size == 0:
        return np.zeros(n_lab.size), np.ones(n_lab.size)
    lo, hi = _stream(x, N, alpha, binary, half)
    at = np.maximum(n_lab - 1, 0)
    return np.where(n_lab > 0, lo[at], 0.0), np.where(n_lab > 0, hi[at], 1.0)


def stopping_sequence(
    f: np.ndarray, y: np.ndarray, kept: np.ndarray, population: int, alpha: float, mode: str
) -> dict[str, np.ndarray]:
    r"""The sequence of the module docstring after every sample, from checked arrays.

    ``f`` the verdicts in arrival order, ``y`` the labels (NaN = none), ``kept`` which
    labels the sequence uses, ``mode`` ``"judge"`` (no labels), ``"labels"`` (every sample
    labelled) or ``"corrected"``.  Returns ``n``, ``n_labelled``, ``estimate``, ``lower``,
    ``upper`` (arrays, one entry per sample).
    """
    N, t = int(population), np.arange(1, f.size + 1)
    n_lab = np.cumsum(kept)
    binary_f = bool(np.all((f == 0) | (f == 1)))
    if mode == "judge":
        lower, upper = _stream(f, N, alpha, binary_f, half=False)
        est = np.cumsum(f) / t
    elif mode == "labels":
        lower, upper = _stream(y, N, alpha, bool(np.all((y == 0) | (y == 1))), half=False)
        est = np.cumsum(y) / t
    else:
        lo_f, hi_f = _stream(f, N, alpha / 4.0, binary_f, half=False)
        binary_y = bool(np.all((y[kept] == 0) | (y[kept] == 1)))
        lo_d, hi_d = _labelled(
            (y[kept] - f[kept] + 1.0) / 2.0, n_lab, N, alpha / 4.0, binary_f and binary_y, True
        )
        lo_y, hi_y = _labelled(y[kept], n_lab, N, alpha / 2.0, binary_y, False)
        yk = np.where(kept, y, 0.0)
        lower = np.maximum(lo_f + 2.0 * lo_d - 1.0, lo_y)
        upper = np.minimum(hi_f + 2.0 * hi_d - 1.0, hi_y)
        lower = np.maximum(lower, np.cumsum(yk) / N)
        upper = np.minimum(upper, 1.0 - np.cumsum(np.where(kept, 1.0 - yk, 0.0)) / N)
        lower = np.maximum.accumulate(np.clip(lower, 0.0, 1.0))
        upper = np.minimum.accumulate(np.clip(upper, 0.0, 1.0))
        sum_d = np.cumsum(np.where(kept, y - f, 0.0))
        with np.errstate(invalid="ignore", divide="ignore"):
            bias = np.where(n_lab > 0, sum_d / n_lab, 0.0)
        est = np.cumsum(f) / t + bias
    est = np.clip(est, lower, upper)
    return {"n": t, "n_labelled": n_lab, "estimate": est, "lower": lower, "upper": upper}


def _reasons(seq: dict, settings: dict) -> np.ndarray:
    """The stopping reason at each look ('' = go on): claim first, then width, then the end."""
    lo, hi, n = seq["lower"], seq["upper"], seq["n"]
    reason = np.full(n.size, "", dtype=object)
    if settings["claim"] is not None:
        reason[lo > settings["claim"]] = "above claim"
        reason[hi < settings["claim"]] = "below claim"
    if settings["width"] is not None:
        reason[(reason == "") & (hi - lo <= settings["width"])] = "width"
    reason[(reason == "") & (n == settings["population"])] = "all samples"
    reason[n < min(settings["min_samples"], settings["population"])] = ""
    reason[(n % settings["every"] != 0) & (n != settings["population"])] = ""  # not looked at
    return reason


def _mode(label_prob: float) -> str:
    return "judge" if label_prob == 0.0 else "labels" if label_prob == 1.0 else "corrected"


def _checked_labels(f, labels, label_prob, probs, kept_draws) -> tuple[np.ndarray, np.ndarray]:
    """The labels as an array aligned with ``f`` and which of them the sequence uses."""
    if labels is None:
        y = np.full(f.size, np.nan)
    else:
        y = _unit_array(labels, "labels", missing=True)
        if y.size != f.size:
            raise InputError(
                f"labels has {y.size} values for {f.size} verdicts; give one per verdict "
                "(NaN = not labelled)",
                field="labels",
                value=y.size,
            )
    has = ~np.isnan(y)
    if label_prob == 0.0 and has.any():
        raise InputError(
            "labels given with label_prob=0: give the chance each sample had of a label",
            field="label_prob",
            value=0.0,
        )
    if label_prob == 1.0 and not has.all():
        raise InputError(
            f"label_prob=1 but {int((~has).sum())} sample(s) have no label",
            field="labels",
            value=int((~has).sum()),
        )
    return y, has & (kept_draws < label_prob / probs)


def _sample_probs(label_prob_each, floor: float, n: int, name="label_probs") -> np.ndarray:
    """Each sample's labelling probability (``floor`` when not given)."""
    if label_prob_each is None:
        return np.full(n, floor if floor > 0 else 1.0)
    p = _unit_array(label_prob_each, name, missing=False)
    if p.size != n or (p < floor).any() or (p == 0).any():
        raise InputError(
            f"{name} must give each of the {n} sample(s) a probability >= the rule's "
            f"label_prob ({floor:g}) and > 0",
            field=name,
            value=p.size if p.size != n else float(p.min()),
        )
    return p


def early_stop(
    verdicts,
    labels=None,
    *,
    population: int,
    label_prob: float = 0.0,
    width: float | None = None,
    claim: float | None = None,
    alpha: float = 0.05,
    min_samples: int = 10,
    every: int = 1,
    label_probs=None,
    seed: int = 0,
) -> StopDecision:
    r"""Where a run judged in random order could have stopped, with an interval for the true
    pass rate that holds at every look (module docstring).

    Parameters
    ----------
    verdicts : array
        The judge's verdicts (0/1, or scores in [0, 1]) in the order the samples ran.
    labels : array, optional
        Human labels aligned with ``verdicts`` (NaN = not labelled).
    population : int
        Samples in the eval's dataset (:math:`N`).
    label_prob : float
        The chance each sample had of a label (the design's smallest, with
        ``label_probs``); 0 = no labels (the interval is then the judge's), 1 = all.
    width : float, optional
        Stop once ``upper - lower <= width``.
    claim : float, optional
        Stop once the interval lies wholly above or wholly below this pass rate.
    alpha : float
        Miscoverage over all looks at once.
    min_samples : int
        No stop before this many samples.
    every : int
        Look every this many samples (and at the last): fewer looks cost less to compute
        and keep the guarantee (the sequence holds at every look, so at any of them).
    label_probs : array, optional
        Each sample's own labelling probability (each >= ``label_prob``).
    seed : int
        The coins that thin labels from samples with ``label_probs`` above the floor.

    Returns
    -------
    StopDecision
        At the first look the rule stops (or the last look given); ``looks`` has one row
        per look up to it (``n``, ``n_labelled``, ``estimate``, ``lower``, ``upper``,
        ``reason``).

    Examples
    --------
    >>> import numpy as np
    >>> import judgebayes as jb
    >>> rng = np.random.default_rng(0)
    >>> y = rng.binomial(1, 0.8, 1000).astype(float)
    >>> f = np.where(rng.random(1000) < 0.9, y, 1 - y)
    >>> lab = np.where(rng.random(1000) < 0.3, y, np.nan)
    >>> d = jb.plan.early_stop(f, lab, population=1000, label_prob=0.3, claim=0.6)
    >>> d.stop, d.reason, d.lower > 0.6
    (True, 'above claim', True)
    """
    s = check_settings(population, label_prob, width, claim, alpha, min_samples, every)
    f = _unit_array(verdicts, "verdicts", missing=False)
    if not 1 <= f.size <= s["population"]:
        raise InputError(
            f"verdicts: {f.size} given for a population of {s['population']}; give between 1 "
            "and population",
            field="verdicts",
            value=f.size,
        )
    probs = _sample_probs(label_probs, s["label_prob"], f.size)
    draws = np.random.default_rng(seed).random(f.size)
    y, kept = _checked_labels(f, labels, s["label_prob"], probs, draws)
    seq = stopping_sequence(f, y, kept, s["population"], s["alpha"], _mode(s["label_prob"]))
    return _decide(seq, s, s["label_prob"])


def _decide(seq: dict, s: dict, label_prob: float, *, table: bool = True) -> StopDecision:
    """The decision at the first stopping look (else the last), with the looks up to it."""
    reason = _reasons(seq, s)
    stops = np.flatnonzero(reason != "")
    at = int(stops[0]) if stops.size else seq["n"].size - 1
    looks = pd.DataFrame({k: v[: at + 1] for k, v in seq.items()}) if table else pd.DataFrame()
    if table:
        looks["reason"] = reason[: at + 1]
    return StopDecision(
        stop=bool(stops.size),
        reason=str(reason[at]),
        estimate=float(seq["estimate"][at]),
        lower=float(seq["lower"][at]),
        upper=float(seq["upper"][at]),
        n=int(seq["n"][at]),
        n_labelled=int(seq["n_labelled"][at]),
        population=s["population"],
        alpha=s["alpha"],
        target=JUDGE if label_prob == 0.0 else HUMAN,
        looks=looks,
        label_prob=label_prob,
    )


class StoppingRule:
    """The rule, fed one sample at a time (an eval runner's hook): ``update(verdict,
    label)`` after each sample, read ``decision``; the settings are :func:`early_stop`'s.

    Once the rule has stopped, ``decision`` keeps the first stop; later samples (those
    already running) are not added.

    Examples
    --------
    >>> import judgebayes as jb
    >>> rule = jb.plan.StoppingRule(200, label_prob=1.0, claim=0.5, min_samples=5)
    >>> for _ in range(60):
    ...     decision = rule.update(1.0, label=1.0)
    >>> decision.stop, decision.reason
    (True, 'above claim')
    """

    def __init__(
        self,
        population: int,
        *,
        label_prob: float = 0.0,
        width: float | None = None,
        claim: float | None = None,
        alpha: float = 0.05,
        min_samples: int = 10,
        every: int = 1,
        seed: int = 0,
    ):
        self.settings = check_settings(
            population, label_prob, width, claim, alpha, min_samples, every
        )
        self._rng = np.random.default_rng(seed)
        self._f: list[float] = []
        self._y: list[float] = []
        self._p: list[float] = []
        self._draws: list[float] = []
        self._decision: StopDecision | None = None

    @property
    def decision(self) -> StopDecision:
        """The answer at the latest look (the first stop, once there is one)."""
        if self._decision is None:
            raise InputError("no sample yet: call update() first", field="decision", value=None)
        return self._decision

    def _between(self, n: int, n_labelled: int) -> StopDecision:
        """The answer between looks: the last look's interval (still valid: the target
        does not move), with the samples and labels so far.
        """
        s, last = self.settings, self._decision
        if last is None:
            target = JUDGE if s["label_prob"] == 0.0 else HUMAN
            last = StopDecision(
                False, "", math.nan, 0.0, 1.0, 0, 0, s["population"], s["alpha"], target
            )
        return replace(last, n=n, n_labelled=n_labelled)

    @property
    def stopped(self) -> bool:
        """Whether the rule has stopped."""
        return self._decision is not None and self._decision.stop

    def update(self, verdict: float, label: float | None = None, *, label_prob=None):
        """Add one sample's verdict (and its label, if it has one) and return the decision.

        ``label_prob`` is this sample's own labelling probability when the design gives
        samples different ones (each at least the rule's ``label_prob``).
        """
        if self.stopped:
            return self.decision
        s = self.settings
        if len(self._f) >= s["population"]:
            raise InputError(
                f"update: all {s['population']} samples are in already",
                field="verdict",
                value=verdict,
            )
        f = float(_unit_array([verdict], "verdict", missing=False)[0])
        y = float(_unit_array([np.nan if label is None else label], "label", missing=True)[0])
        floor = s["label_prob"]
        each = None if label_prob is None else [label_prob]
        p = _sample_probs(each, floor, 1, "label_prob")[0]
        draw = float(self._rng.random())  # the same stream as early_stop's, one a sample
        f_all = np.array([*self._f, f])
        y_all, kept = _checked_labels(
            f_all,
            np.array([*self._y, y]),
            floor,
            np.array([*self._p, p]),
            np.array([*self._draws, draw]),
        )
        self._f.append(f)
        self._y.append(y)
        self._p.append(p)
        self._draws.append(draw)
        n = len(self._f)
        if n % s["every"] and n != s["population"]:  # not a look: the last answer stands
            self._decision = self._between(n, int(kept.sum()))
            return self._decision
        seq = stopping_sequence(f_all, y_all, kept, s["population"], s["alpha"], _mode(floor))
        last = {k: v[-1:] for k, v in seq.items()}
        self._decision = _decide(last, s, floor, table=False)
        return self._decision
