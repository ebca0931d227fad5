r"""Which items to label next, from how unsure the judge is about each, and the estimate
that stays unbiased when labels were drawn that way.

:func:`label_next` plans one round: every unlabelled item gets a probability of being sent
to a human (higher where the judge is unsure, per unit of labelling cost, mixed with
uniform so the round is never predicted worse than uniform labelling), one Bernoulli draw
each picks the items, and the predicted width after the round says whether another round
is worth it.  :func:`active_estimate` reads the rounds back: each round's difference
estimate is unbiased given the rounds before it (its working model was fixed before it,
its probabilities are known), so their combination is too (exactly with fixed weights,
to first order with the default inverse-variance ones).  The mathematics
is in :mod:`judgebayes.inference.items.active`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats

from judgebayes.data.items.rounds import (
    labelled_columns,
    planned_columns,
    returned_rounds,
    round_probabilities,
)
from judgebayes.errors import InputError
from judgebayes.inference.items import active as al
from judgebayes.inference.items.active import MIN_LABELS, design_round
from judgebayes.inference.registry import check_count
from judgebayes.results import check_alpha

__all__ = ["MIN_LABELS", "active_estimate", "design_round", "label_next"]


def label_next(
    frame,
    judge: str,
    human: str,
    k: float,
    *,
    uncertainty: str | None = None,
    cost: str | None = None,
    mix: float | None = None,
    width: float | None = None,
    alpha: float = 0.05,
    random_seed: int | None = 0,
    claim: str | None = None,
    round: str | None = None,
    probs: list[str] | None = None,
) -> pd.DataFrame:
    r"""Plan one round of labels: each item's probability of being labelled now, and the
    draw.

    Parameters
    ----------
    frame : DataFrame
        Every judged item, one row each.
    judge : str
        The judge's verdict (0/1) or score (numeric).
    human : str
        The human label (numeric: 0/1, a Likert level, a number); blank = not yet
        labelled.  The labels so far train the working model and the error scales; they
        need not have been drawn at random.
    k : float
        The round's budget: expected new labels, or cost units with ``cost``.
    uncertainty : str, optional
        A column saying how unsure the judge is about each item (its probability or score
        near the decision boundary, the spread of several judges or runs, a disagreement
        between presentation orders): it enters the working model (a line in it per
        verdict) and the root mean square error of the working model is predicted within
        its quantile bins.  Without it, labels are spread by verdict.
    cost : str, optional
        Each item's cost of a human label (long items cost more to read): the budget is in
        these units and probabilities are :math:`\propto` error / :math:`\sqrt{\text{cost}}`.
    mix : float, optional
        The share of uniform probabilities mixed in; default: the value on a grid of 0,
        0.1, ..., 1 whose predicted variance is smallest (1 is uniform, so the round is
        never predicted worse than uniform), and uniform while fewer than
        :data:`MIN_LABELS` items are labelled.
    width : float, optional
        A target interval width: ``attrs["stop"]`` says whether the labels so far already
        reach it (the stopping rule) and ``attrs["reached_next"]`` whether the estimate
        from every round is predicted to once this round is labelled (``width_after``).
    alpha : float
        1 - the interval level of the widths.
    random_seed : int, optional
        Seed of the draws.  Each round's stream is keyed by the seed and by which items are
        labelled already, so rounds planned with one seed draw afresh (the same uniforms
        in every round would make a round's real probabilities differ from its stated
        ones) and a round is reproducible from its seed and its input.

    claim : str, optional
        A claim about the mean to decide, ``"rate > 0.8"`` or ``"rate < 0.3"`` (on the
        human label's scale): ``attrs["decision_now"]`` says whether the labels so far
        decide it (``"pass"``, ``"fail"``, ``"continue"``) and ``attrs["decide_next"]`` how
        likely this round is to (:func:`~judgebayes.inference.items.active.claim_outlook`):
        the stopping rule by decision.
    round, probs : optional
        The rounds so far, as :func:`active_estimate` reads them (the round column and one
        probability column per round).  Given, ``estimate_now``, ``width_now``,
        ``width_after``, ``stop``, ``reached_next`` and the claim's outlook come from
        :func:`active_estimate`'s interval, which weighs the rounds' unequal probabilities;
        without them the labels so far are read as if drawn at random (right for a first
        round after random labels, approximate after active rounds).

    Returns
    -------
    DataFrame
        Indexed like ``frame``: ``prob`` (1 for items already labelled), ``label_now``
        (drawn this round, not yet labelled), ``weight`` (1 / prob).  ``attrs``: ``mix``,
        ``expected_labels``, ``width_now`` (from the labels so far), ``width_next`` (this
        round's own estimate), ``width_after`` (every round's, predicted once this round is
        labelled), ``coef`` (the working model's
        coefficients on 1, judge and, with ``uncertainty``, its standardised value and
        their product), ``stop``, ``reached_next``.  Keep ``prob`` as the round's column
        for :func:`active_estimate`, and give it the same ``uncertainty``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import judgebayes as jb
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(1000)  # the judge's probability that each item passes
    >>> y = (rng.random(1000) < p).astype(float)
    >>> frame = pd.DataFrame({"judge": (p > 0.5) * 1.0, "p": p, "human": np.nan})
    >>> frame.loc[:99, "human"] = y[:100]  # a first round of 100 at random
    >>> plan = jb.plan.label_next(frame, "judge", "human", 100, uncertainty="p")
    >>> bool(plan["prob"].iloc[:100].eq(1).all())
    True
    """
    alpha = check_alpha(alpha)
    df, f, y, u, c = planned_columns(
        frame, judge, human, uncertainty=uncertainty, cost=cost, round=round, probs=probs
    )
    if (round is None) != (probs is None):
        raise InputError(
            "round= and probs= go together (the rounds so far, as active_estimate reads them)",
            field="round" if round is None else "probs",
            value=None,
        )
    outlook = None if claim is None else _claim(claim)  # checked before the round is drawn
    plan = al.plan_round(
        f,
        y,
        k,
        df.index,
        uncertainty=u,
        cost=c,
        mix=mix,
        width=width,
        alpha=alpha,
        random_seed=random_seed,
        names={"uncertainty": uncertainty, "cost": cost},
    )
    a = plan.attrs
    q2 = 2 * stats.norm.ppf(1 - alpha / 2)  # width / standard error
    if round is not None:  # the interval over the rounds so far, their probabilities weighed
        res = active_estimate(
            df, judge, human, round=round, probs=probs, uncertainty=uncertainty, alpha=alpha
        )
        se_now = float(res["se"])
        se_after = np.sqrt(al.combined_variance(se_now**2, (a["width_next"] / q2) ** 2))
        a.update(
            estimate_now=float(res["estimate"]),
            width_now=q2 * se_now,
            width_after=q2 * se_after,
            stop=bool(width is not None and q2 * se_now <= width),
            reached_next=bool(width is not None and q2 * se_after <= width),
        )
    if outlook is not None:
        now, decide = al.claim_outlook(
            a["estimate_now"], a["width_now"] / q2, a["width_after"] / q2, *outlook, alpha
        )
        a.update(decision_now=now, decide_next=decide)
    return plan


def _claim(text) -> tuple[str, float]:
    """``"rate > 0.8"`` as (">", 0.8): one mean against a number."""
    from judgebayes.workflows.gate import parse_claim

    if not isinstance(text, str):
        raise InputError(
            f"claim must be text such as 'rate > 0.8'; got {text!r}", field="claim", value=text
        )
    c = parse_claim(text, (-np.inf, np.inf))
    if isinstance(c.rhs, str) or c.kind != "compare":
        raise InputError(
            f"claim compares the mean with a number ('rate > 0.8'); got {text!r}",
            field="claim",
            value=text,
        )
    return c.op, float(c.rhs)


def active_estimate(
    frame,
    judge: str,
    human: str,
    *,
    round: str,
    probs: list[str],
    uncertainty: str | None = None,
    weights: list[float] | None = None,
    folds: int = 10,
    alpha: float = 0.05,
    lost: str = "refuse",
) -> pd.Series:
    r"""The mean human label over all items from rounds of labels drawn with known
    probabilities (:func:`label_next`).

    Parameters
    ----------
    frame : DataFrame
        Every judged item.
    judge, human : str
        Verdict or score; human label (blank where never labelled).
    round : str
        The round (1, 2, ...) in which each labelled item was drawn (blank = never).
    probs : list of str
        One column per round: every item's probability in that round (the ``prob`` of
        :func:`label_next`; 1 for items labelled in an earlier round).
    uncertainty : str, optional
        The column the rounds were planned with (:func:`label_next`): each round's working
        model is refitted on the labels before it with the same regressors.  Any column
        gives an unbiased estimate; the one the design used gives the narrow one.
    weights : list of float, optional
        Fixed weights of the rounds (default: the inverse of each round's design variance
        with error scales learnt from the labels before it, the first round's from the
        labels after it, so a round whose working model was poor, such as a first round
        that had only the judge's raw score to go on, weighs little; unbiased to first
        order, fixed weights exactly).  Weights that follow a round's own residuals are
        not: a small round whose residuals happen to be near zero takes the weight and the
        interval is too narrow.
    folds : int
        Cross-fitting folds of each round's working model (default 10): the items of fold
        :math:`k` are predicted from the labels before the round and the round's labels in
        folds :math:`1..k-1`, so the model also learns from the round's own labels and each
        round's estimate and its variance stay exactly unbiased given the rounds before it
        (in a round with fewer than :data:`MIN_LABELS` labels before it, the folds read
        those alone).
        1: each round's model from the labels before it alone (on LLMBar with two rounds,
        151 labels for a 0.10-wide interval against 133; ``benchmarks/active_labelling.py``).
    alpha : float
        1 - the interval's level.
    lost : {"refuse", "at_random", "by_score"}
        An item drawn for a label that never came back: refused by name (default), or
        counted as not drawn, each round's probabilities scaled by the share of its labels
        returned: over the round when labels were lost independently of everything
        (``"at_random"``), within bins of the judge's score when they were lost more often
        at some scores (``"by_score"``: hard items the labellers skip); labels lost for
        reasons the score does not carry (the label itself) have no remedy here.

    Returns
    -------
    Series
        ``estimate``, ``se``, ``lower``, ``upper``, ``labels``, each round's
        ``estimate_r`` / ``se_r``, and with labels lost the share of each such round's
        labels that came back, ``returned_r``.

    Notes
    -----
    Round :math:`r`'s working model for the items of fold :math:`k` is fitted on the labels
    of earlier rounds and on round :math:`r`'s labels in folds :math:`1..k-1` (with
    neither, the judge itself, :math:`g(f) = f`), so it is fixed given the past and the
    draws in earlier folds; each fold's difference estimate, and the round's, is then
    unbiased given the past, whichever way earlier items were chosen, the rounds' errors
    are uncorrelated, and their combination with fixed weights is unbiased with the
    weighted sum of their variances (with the default weights, normalised over rounds, to
    first order).
    """
    alpha = check_alpha(alpha)
    df, f, y, rd, u = labelled_columns(
        frame, judge, human, round=round, probs=probs, uncertainty=uncertainty
    )
    al.require_complete(u, uncertainty)
    X, fold = al.regressors(f, u), al.fold_of(f.size, check_count(folds, "folds"))
    asked = rd
    rd, shares = returned_rounds(y, rd, lost, human, f)
    ests, variances, predicted = [], [], []
    for r, pi in enumerate(round_probabilities(df, probs, rd, y, human, shares), start=1):
        before, now = rd < r, rd == r
        # the round's working model, cross-fitted; its error scales, for the weight only,
        # from the labels before it (the first round: after it), so no round's weight
        # follows its own residuals
        g = al.crossfit_predictions(X, y, before, now, fold)
        _, _, scale = al.round_model(f, y, before, u, scale_from=before if r > 1 else rd > 1)
        est, var = al.greg_estimate(g, y, before | now, pi)
        ests.append(est)
        variances.append(var)
        free = ~before
        predicted.append(al.predicted_variance(pi[free], scale[free]) * free.mean() ** 2)
    if weights is None:  # inverse design variances: a poor round weighs little
        w = 1.0 / np.maximum(np.asarray(predicted, float), 1e-300)
    else:
        w = np.asarray(weights, float)
    w = w / w.sum()
    est = float(np.dot(w, ests))
    se = float(np.sqrt(np.dot(w**2, variances)))
    lo, hi = al.normal_interval(est, se**2, alpha)
    out = {"estimate": est, "se": se, "lower": lo, "upper": hi, "labels": int((rd > 0).sum())}
    for r, (e, v) in enumerate(zip(ests, variances, strict=True), start=1):
        out[f"estimate_{r}"], out[f"se_{r}"] = e, float(np.sqrt(v))
    for r in shares:  # labels lost: the share of each round's labels returned
        out[f"returned_{r}"] = float((rd == r).sum() / (asked == r).sum())
    return pd.Series(out)
