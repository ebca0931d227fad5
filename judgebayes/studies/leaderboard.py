r"""The leaderboard study: many systems on the same items, item difficulty shared.

``jb.LeaderboardStudy.from_frame(frame, system=..., item=..., score=...)`` (columns:
:func:`~judgebayes.data.board.board_from_frame`) returns the one-parameter model
(:class:`RaschBoard`); :class:`TwoPLBoard` (a discrimination per item) and
:class:`ExchangeableBoard` (no item effect: the nested model below both) are asked for by
their class.  The model is :func:`~judgebayes.models.leaderboard.board_model`; with
``human=`` the scores are a judge's and its sensitivity and specificity are learnt from
the labelled rows, per system, partially pooled.

Each fit reports ``theta``, each system's success rate on the benchmark's items (its
answers resampled), and ``theta_process`` (``fit.interval(var="theta_process")``), new
items like these.  Methods:

* ``nuts`` (default): the Bayesian model; ``log_likelihood=True`` stores the pointwise
  likelihood of ``y`` for ``jb.compare_loo(fits, var_name="y")`` across the three models;
* ``closed_form``: each system's mean over the items every system answered, with the
  cluster-robust t interval of :mod:`judgebayes.inference.leaderboard` (``theta_process``:
  the items are a sample of their population; a judge's scores are refused here:
  ``jb.leaderboard(frame, human=)`` corrects them).

:class:`BoardFit` adds the table of a leaderboard (ranks that hold for every system at
once, tiers, P(top k)), :meth:`BoardFit.new_system` (a system not on the board, from a few
items) and :meth:`BoardFit.plan_items` (which items it should answer).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from judgebayes.data.board import BoardData, board_from_frame
from judgebayes.errors import InputError, require_type
from judgebayes.inference import board_irt
from judgebayes.inference.nuts import ModelSpec
from judgebayes.inference.registry import SamplerConfig
from judgebayes.models.leaderboard import BoardPriors, board_model, success_probabilities
from judgebayes.results import check_alpha
from judgebayes.studies.accuracy_fit import AccuracyFit
from judgebayes.studies.base import FitParts, Study, register_bayes

#: posterior draws a new system's accuracy is read against
NEW_SYSTEM_DRAWS = 2000
#: successes and failures an item needs for its deviation to be drawn centred: on
#: LiveCodeBench (45 systems x 10 samples) every item non-centred reached R-hat 1.6 and
#: every item centred 1.39 (the items no system solves)
CENTRED_TRIALS = 10

__all__ = ["BoardFit", "ExchangeableBoard", "LeaderboardStudy", "RaschBoard", "TwoPLBoard"]


@dataclass(frozen=True, eq=False)
class BoardFit(AccuracyFit):
    """:class:`~judgebayes.results.Fit` of a leaderboard: each system's ``theta``, with
    the leaderboard's table, and a new system's accuracy from a few items.
    """

    family: str = "leaderboard"
    quantity: str = "theta"
    #: the closed form's table, ``(alpha, top_k) -> DataFrame`` (None for draws)
    table_fn: Any = field(default=None, repr=False, compare=False, metadata={"saved": False})

    def leaderboard(self, alpha: float = 0.05, top_k: int = 1) -> pd.DataFrame:
        """One row per system, best first: ``estimate``, ``lower``, ``upper``, ``rank``,
        ``rank_lower``, ``rank_upper`` (all systems at once), ``tier`` (1 the best) and
        ``p_top_k``: :meth:`table` for a fit with draws, the paired closed form's table
        (:func:`~judgebayes.inference.leaderboard.ranked_table`) for ``closed_form``.
        """
        if self.table_fn is not None:
            return self.table_fn(check_alpha(alpha), top_k)
        return self.table(alpha, top_k)

    def table(self, alpha: float = 0.05, top_k: int = 1) -> pd.DataFrame:
        """One row per system, best first: ``estimate``, ``lower``, ``upper`` (equal-tailed),
        ``rank``, ``rank_lower``, ``rank_upper`` (all systems at once), ``tier`` (groups
        every member of which is above every member of the next, all at once, with
        posterior probability at least ``1 - alpha``) and ``p_top_k``.
        """
        alpha = check_alpha(alpha)
        self._require_draws("the leaderboard table")
        iv = self.interval(alpha)
        return board_irt.posterior_table(self.draws().values, iv, alpha, top_k)

    def _item_draws(self) -> dict:
        """The draws a new system is read against (at most :data:`NEW_SYSTEM_DRAWS`)."""
        post = self.idata.posterior
        if "difficulty" not in post:
            raise InputError(
                "a new system's accuracy needs the items' difficulties: fit a model with "
                "item effects (RaschBoard or TwoPLBoard) by NUTS",
                field="fit",
                value=self.method,
            )
        total = post.sizes["chain"] * post.sizes["draw"]
        keep = np.linspace(0, total - 1, min(total, NEW_SYSTEM_DRAWS)).astype(int)
        names = ("difficulty", "discrimination", "concentration", "ability")
        return {v: self.draws(v).values[keep] for v in names if v in post}

    def new_system(self, outcomes, *, trials=None, alpha: float = 0.05, random_seed=0):
        """A system not on the board, from its outcomes on some of the board's items.

        Parameters
        ----------
        outcomes : Series or dict
            Item label to 0/1 outcome (with ``trials``: successes).
        trials : Series or dict, optional
            Item label to the number of samples.
        alpha : float
            1 - the interval's level.
        random_seed : int
            The seed of the ability draws.

        Returns
        -------
        Series
            ``estimate``, ``lower``, ``upper`` of its accuracy over every item of the
            board (the benchmark's items), and ``items`` (how many it answered).
        """
        alpha = check_alpha(alpha)
        draws = self._item_draws()
        s = pd.Series(outcomes, dtype=float).dropna()
        s.index = s.index.astype(str)
        code = pd.Index(self.idata.posterior["item"].values.astype(str)).get_indexer(s.index)
        if (code < 0).any():
            bad = s.index[code < 0][0]
            raise InputError(f"item {bad!r} is not on the board", field="outcomes", value=bad)
        n = np.ones(len(s))
        if trials is not None:
            t = pd.Series(trials, dtype=float)
            n = t.set_axis(t.index.astype(str)).reindex(s.index).to_numpy()
            if np.isnan(n).any():
                bad = s.index[np.isnan(n)][0]
                raise InputError(f"trials has no count for item {bad!r}", field="trials", value=bad)
        k = s.to_numpy()
        if np.any((k < 0) | (k > n)):
            raise InputError("outcomes must lie between 0 and the trials", field="outcomes")
        sd = float(self.info.get("ability_sd", BoardPriors().ability_sd))
        rng = np.random.default_rng(random_seed)
        _, acc = board_irt.new_system(k, n, code, draws, sd, rng)
        lo, hi = np.quantile(acc, [alpha / 2, 1 - alpha / 2])
        return pd.Series({"estimate": acc.mean(), "lower": lo, "upper": hi, "items": len(s)})

    def plan_items(self, budget: int) -> list[str]:
        """The ``budget`` items a new system should answer (most informative at the
        board's abilities, spread over the difficulties: :func:`~judgebayes.inference.
        board_irt.informative_items`).
        """
        draws = self._item_draws()
        a = draws.get("discrimination")
        codes = board_irt.informative_items(
            draws["ability"].mean(0),
            draws["difficulty"].mean(0),
            None if a is None else a.mean(0),
            int(budget),
        )
        items = self.idata.posterior["item"].values.astype(str)
        return [str(items[c]) for c in codes]


class LeaderboardStudy(Study):
    """Many systems' outcomes on the same items (module docstring): the family's door.

    Parameters
    ----------
    data : BoardData
        From :func:`~judgebayes.data.board.board_from_frame`.
    priors : BoardPriors, optional
    """

    family = "leaderboard"
    key = "leaderboard"
    abstract = True
    fit_type = BoardFit
    default_method = "nuts"
    default_methods = ("closed_form", "nuts")
    #: the items' spread is learnt from items measured well and badly alike: its R-hat
    #: was 1.017 at 4 x 1000 on 8 LiveCodeBench models x 181 problems; 0.9 keeps the
    #: small boards of the tests free of divergences
    sampler = SamplerConfig(draws=2000, tune=1500, target_accept=0.9)
    item_effects: ClassVar[bool] = True
    discrimination: ClassVar[bool] = False

    def __init__(self, data: BoardData, *, priors: BoardPriors | None = None):
        self.data = require_type(data, BoardData, "data", "use LeaderboardStudy.from_frame")
        self.priors = require_type(priors or BoardPriors(), BoardPriors, "priors")

    @classmethod
    def from_frame(cls, frame, *, priors: BoardPriors | None = None, **columns: Any):
        """From one row per outcome (:func:`~judgebayes.data.board.board_from_frame`'s
        columns: ``system``, ``item``, ``score``, ``trials``, ``human``, ``cluster``;
        ``judge=`` names the score column when it holds a judge's verdicts).
        """
        return cls(board_from_frame(frame, **columns), priors=priors)

    from_items = from_frame

    @classmethod
    def _variant_data(cls, data: Any = None, *args: Any, **kwargs: Any) -> BoardData:
        return require_type(data, BoardData, "data", "use LeaderboardStudy.from_frame")

    @property
    def centred(self) -> tuple[int, ...]:
        """Per item, its cluster when the model draws its deviation centred, else -1:
        centred when its outcomes hold at least :data:`CENTRED_TRIALS` successes and as
        many failures (the data then pin its difficulty down; with fewer, the non-centred
        form samples better).
        """
        d = self.data
        k = (d.k + d.h1).sum(axis=0)
        n = (d.n + d.n_l).sum(axis=0)
        well = np.minimum(k, n - k) >= CENTRED_TRIALS
        return tuple(int(c) if w else -1 for c, w in zip(d.cluster, well, strict=True))

    @property
    def overdispersed(self) -> bool:
        """Whether the cells' rates vary around the model's (a concentration is learnt):
        a board whose cells hold several trials, the scores the truth.
        """
        return bool(not self.data.judged and self.data.n.max() >= 2)

    @property
    def systems(self) -> tuple[str, ...]:
        """System labels."""
        return self.data.systems

    def replicates(self, fit: BoardFit, count: int, rng) -> list[tuple[np.ndarray, np.ndarray]]:
        r"""``count`` posterior predictive replicates of the unlabelled cells' counts, each
        with its draw's probability of a positive outcome (systems, items): the success
        probability, or with a judge its verdict's, :math:`p\,\mathrm{se}_s + (1 - p)(1 -
        \mathrm{sp}_s)`; with a concentration, each cell's rate drawn around it first.
        """
        fit._require_draws("the posterior predictive")
        post = fit.idata.posterior
        total = post.sizes["chain"] * post.sizes["draw"]
        pick = rng.choice(total, size=min(count, total), replace=False)
        names = ("ability", "difficulty", "discrimination", "sensitivity", "specificity")
        d = {v: fit.draws(v).values[pick] for v in (*names, "concentration") if v in post}
        q = success_probabilities(d["ability"], d.get("difficulty"), d.get("discrimination"))
        q = np.broadcast_to(q, (pick.size, *self.data.shape))
        if self.data.judged:
            se, sp = d["sensitivity"][:, :, None], d["specificity"][:, :, None]
            q = q * se + (1 - q) * (1 - sp)
        phi = d.get("concentration")
        r = q if phi is None else board_irt.cell_rates(q, phi, 0, 0, rng)
        k = rng.binomial(self.data.n, r)
        return list(zip(q, k, strict=True))

    def _info(self, method, parts: FitParts) -> dict:
        d = self.data
        return {
            "estimand": "process" if method.name in ("closed_form", "bootstrap") else "items",
            "n_items": len(d.items),
            "n_missing": d.n_missing,
            "judged": d.judged,
            "ability_sd": self.priors.ability_sd,
        }

    def _notes(self, method, parts: FitParts, info: dict) -> tuple[str, ...]:
        d = self.data
        notes = []
        if d.n_missing:
            notes.append(f"{d.n_missing} row(s) without a score left out")
        empty = int((d.n + d.n_l == 0).sum())
        if empty and method.name != "closed_form":
            notes.append(
                f"{empty} (system, item) cell(s) without an outcome: the model "
                "predicts them from the system's ability and the item's difficulty"
            )
        return tuple(notes)

    def model_spec(self) -> ModelSpec:
        """:func:`~judgebayes.models.leaderboard.board_model` of this class's structure."""
        d = self.data
        cs, ci = np.nonzero(d.n > 0)
        ls, li = np.nonzero(d.n_l > 0)
        names = ["ability"]
        if self.item_effects:
            names += ["sigma_item", *(["sigma_cluster"] if d.clusters else [])]
        if self.discrimination:
            names.append("sigma_disc")
        if d.judged:
            names += ["sensitivity", "specificity"]
        if self.overdispersed:
            names.append("concentration")
        return ModelSpec(
            board_model,
            {
                "k": d.k[cs, ci],
                "n": d.n[cs, ci],
                "cell_system": cs,
                "cell_item": ci,
                "h1": d.h1[ls, li],
                "n_l": d.n_l[ls, li],
                "lab_system": ls,
                "lab_item": li,
                "confusion": d.confusion,
                "item_cluster": d.cluster,
            },
            {
                "systems": d.systems,
                "items": d.items,
                "clusters": d.clusters,
                "item_effects": self.item_effects,
                "discrimination": self.discrimination,
                "judged": d.judged,
                "priors": self.priors,
                "centred": self.centred,
                "overdispersed": self.overdispersed,
            },
            tuple(names),
            sampler=self.sampler,
        )

    def _bayes_done(self, parts: FitParts, random_seed) -> FitParts:
        """``theta`` (the benchmark's items) and ``theta_process`` (Bayesian-bootstrap
        weights over the items) from the draws (:func:`~judgebayes.inference.board_irt.
        estimands`).
        """
        import xarray as xr

        post = parts.idata.posterior
        ch, dr = post.sizes["chain"], post.sizes["draw"]
        names = ("ability", "difficulty", "discrimination", "concentration")
        draws = {v: post[v].values.reshape(ch * dr, -1) for v in names if v in post}
        if "concentration" in draws:
            draws["concentration"] = draws["concentration"][:, 0]
        rng = np.random.default_rng([0 if random_seed is None else random_seed, 17])
        theta, process = board_irt.estimands(draws, self.data.k, self.data.n, rng)
        coords = {
            "chain": post["chain"].values,
            "draw": post["draw"].values,
            "system": list(self.systems),
        }
        for name, x in (("theta", theta), ("theta_process", process)):
            post[name] = xr.DataArray(
                x.reshape(ch, dr, -1), dims=("chain", "draw", "system"), coords=coords
            )
        parts.quantity = "theta"
        return parts


register_bayes(LeaderboardStudy)


class RaschBoard(LeaderboardStudy):
    """The one-parameter model (:math:`a_i = 1`): the board's default."""

    key = "leaderboard.rasch"
    model_name = "rasch"
    priority = 100

    @classmethod
    def matches(cls, data: BoardData) -> bool:
        """Every board: the model the door picks."""
        return True


class TwoPLBoard(LeaderboardStudy):
    """The two-parameter model: each item's discrimination :math:`a_i` as well."""

    key = "leaderboard.2pl"
    model_name = "2pl"
    discrimination = True
    #: the discriminations' spread is learnt from few systems per item: R-hat of
    #: ``sigma_disc`` reached 1.011 at 4 x 1000 after 1000 tuning on 8 systems x 150 items
    sampler = SamplerConfig(draws=2000, tune=1500, target_accept=0.95)


class ExchangeableBoard(LeaderboardStudy):
    """No item effect: a rate per system, the items exchangeable (the nested model the
    item-response models are compared against).
    """

    key = "leaderboard.exchangeable"
    model_name = "exchangeable"
    item_effects = False
