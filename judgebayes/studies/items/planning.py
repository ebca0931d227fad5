"""Which labels to get next in the items design: how many and where (a plan for a target
width), and which items (by cell, or by per-item uncertainty with costs).  A mixin of
:class:`~judgebayes.studies.items.base.ItemStudy`: it reads ``self.data``,
``self.estimand`` and ``self.systems``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from judgebayes.errors import InputError
from judgebayes.inference import items as ie
from judgebayes.inference.accuracy import closed_form as cf
from judgebayes.inference.registry import check_count, check_seed
from judgebayes.results import check_alpha

__all__ = ["LabelPlanning"]


class LabelPlanning:
    """``plan`` and ``next_to_label`` of the items design."""

    def plan(self, width: float, alpha: float = 0.05, max_labels: int | None = None):
        """How many more labels, and where, bring every system's interval to ``width``.

        Labels are allocated greedily where they lower the estimand's variance most
        (:func:`judgebayes.inference.items.allocate_labels`: Neyman allocation across
        the systems, strata and the judge's two verdicts), at the current estimates of
        the human rate within each verdict.  A plan, not a promise: the widths are those
        of the closed form at today's estimates.

        Returns
        -------
        DataFrame
            One row per (system, stratum): ``label_judged_positive``,
            ``label_judged_negative``; ``attrs``: ``total``, ``width_now``,
            ``width_planned`` (per system), ``reached``.
        """
        alpha = check_alpha(alpha)
        if isinstance(width, bool) or not isinstance(width, int | float) or not 0 < width < 1:
            raise InputError(
                f"width must be a number in (0, 1); got {width!r}", field="width", value=width
            )
        z = cf.z_value(alpha)
        c = self.data.cells()
        cap = int((c["N1"] + c["N0"] - c["L1"] - c["L0"]).sum())
        k = cap if max_labels is None else check_count(max_labels, "max_labels", 0)
        e1, e0 = ie.allocate_labels(self.data, k, self.estimand, target_se=width / (2 * z))
        now = 2 * z * ie.predicted_se(self.data, self.estimand)
        planned = 2 * z * ie.predicted_se(self.data, self.estimand, e1, e0)
        idx = pd.MultiIndex.from_product(
            [list(self.systems), list(self.data.strata)], names=["system", "stratum"]
        )
        out = pd.DataFrame(
            {"label_judged_positive": e1.ravel(), "label_judged_negative": e0.ravel()},
            index=idx,
        )
        out.attrs.update(
            total=int(e1.sum() + e0.sum()),
            width_now=dict(zip(self.systems, now.round(6).tolist(), strict=True)),
            width_planned=dict(zip(self.systems, planned.round(6).tolist(), strict=True)),
            reached=bool(np.all(planned <= width + 1e-12)),
            estimand=self.estimand,
        )
        return out

    def next_to_label(
        self,
        k: int,
        random_seed: int | None = None,
        *,
        uncertainty=None,
        cost=None,
        mix: float | None = None,
    ):
        """The ``k`` unlabelled items to send to humans next (frame index labels).

        Without ``uncertainty``: chosen for what they do to the estimand's uncertainty,
        not for how unsure the judge is about each item: the allocation of :meth:`plan`
        (greedy Neyman across systems, strata and verdicts) decides how many come from
        each cell, and items are drawn at random within a cell, which keeps the design one
        that selects on observed verdicts and strata only, so every estimator here stays
        valid.

        With ``uncertainty`` (a Series indexed like the frame: the judge's probability or
        score, the spread of several judges or runs) and optionally ``cost`` (a Series:
        each item's labelling cost, ``k`` then in cost units): each unlabelled item gets
        a probability of being labelled, higher where the judge errs more per unit cost,
        mixed with uniform (``mix``, default the best predicted), and one Bernoulli draw
        each picks them (:func:`judgebayes.plan.label_next`); it then returns that function's
        frame, indexed by the judged rows: ``prob`` (1 for the labelled), ``label_now``,
        ``weight``, and ``attrs`` mix, expected labels, predicted widths.  Read the rounds back
        with :func:`judgebayes.active_estimate` (given the same uncertainty as a column),
        which keeps the estimate unbiased; the study's own methods assume labels at random
        within cells and do not apply to it.
        """
        if uncertainty is not None or cost is not None:
            return self._next_by_uncertainty(k, random_seed, uncertainty, cost, mix)
        k = check_count(k, "k")
        d = self.data
        unl = ~d.labelled
        if k > unl.sum():
            raise InputError(
                f"k={k} items to label, but only {int(unl.sum())} are unlabelled",
                field="k",
                value=k,
            )
        rng = np.random.default_rng(check_seed(random_seed))
        e1, e0 = ie.allocate_labels(d, k, self.estimand)
        chosen = []
        for (s, t), n1 in np.ndenumerate(e1):
            for verdict, n in ((1.0, n1), (0.0, e0[s, t])):
                if n:
                    pool = np.flatnonzero(
                        unl & (d.system == s) & (d.stratum == t) & (d.judge == verdict)
                    )
                    chosen.append(rng.choice(pool, int(n), replace=False))
        pos = np.sort(np.concatenate(chosen)) if chosen else np.array([], np.int64)
        return pd.Index(d.rows[pos])

    def _next_by_uncertainty(self, k, random_seed, uncertainty, cost, mix):
        from judgebayes.inference.items.active import plan_round

        d = self.data
        if d.n_judges > 1:
            raise InputError(
                "next_to_label(uncertainty=...) takes one judge's verdicts; with several "
                "judges give their disagreement as the uncertainty of one of them",
                field="uncertainty",
                value=None,
            )

        def aligned(x, name):
            if x is None:
                return None
            if isinstance(x, pd.Series):
                out = x.reindex(d.rows).to_numpy(dtype=float)
            else:
                out = np.asarray(x, dtype=float)
                if out.shape != (len(d.rows),):
                    raise InputError(
                        f"{name} must be a Series indexed like the frame, or one value per "
                        f"judged row ({len(d.rows)}); got shape {out.shape}",
                        field=name,
                        value=out.shape,
                    )
            return out

        return plan_round(
            d.judge,
            d.human,
            k,
            pd.Index(d.rows),
            uncertainty=aligned(uncertainty, "uncertainty"),
            cost=aligned(cost, "cost"),
            mix=mix,
            groups=d.system * 2 + d.judge.astype(np.int64),
            random_seed=random_seed,
        )
