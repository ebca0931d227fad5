"""A leaderboard in one call: the closed form's table of a frame.

>>> table = jb.leaderboard(frame, system="model", item="item_id", score="win")
>>> table[["system", "estimate", "lower", "upper", "rank_lower", "rank_upper", "tier"]]

A convenience over the family's study: ``jb.LeaderboardStudy.from_items(frame, **columns)
.fit(method).leaderboard(...)``, with the fit's notes in the table's ``attrs``.
"""

from __future__ import annotations

from typing import Any

from judgebayes.errors import InputError, unknown_keyword
from judgebayes.inference.leaderboard.table import BoardTable
from judgebayes.inference.registry import normalise_method

__all__ = ["leaderboard"]

#: the frame's roles (:func:`~judgebayes.data.leaderboard.board_from_frame`); every other
#: keyword is an option of the method
_ROLES = ("system", "item", "score", "judge", "trials", "human", "cluster", "adjust", "scale")


def leaderboard(
    frame,
    *,
    method: str = "closed_form",
    alpha: float = 0.05,
    top_k: int = 1,
    baseline: str | None = None,
    estimand: str | None = None,
    control: str = "stepdown",
    draws: int | None = None,
    random_seed: int = 0,
    **columns: Any,
) -> BoardTable:
    """Each system's mean, its interval, its rank interval and tier, all systems at once.

    Parameters
    ----------
    frame : DataFrame
        One row per outcome of a system on an item.
    method : str
        A method of :class:`~judgebayes.LeaderboardStudy` (``closed_form``, ``bootstrap``,
        ``nuts``, ``laplace``).
    alpha, top_k, baseline, estimand, control
        As :meth:`BoardFit.leaderboard <judgebayes.studies.leaderboard.BoardFit.leaderboard>`.
    draws : int, optional
        The closed form's null draws (the table's), or another method's own draws (the
        Laplace fit's posterior draws).
    random_seed : int
        The fit's seed (and the closed form's null draws').
    **columns
        The roles of :func:`~judgebayes.data.leaderboard.board_from_frame` (``system``,
        ``item``, ``score`` or ``judge``, ``trials``, ``human``, ``cluster``, ``adjust``,
        ``scale``), and the method's own options (the bootstrap's ``reps``, the Laplace
        fit's ``draws``... by their names in ``study.methods.describe()``).

    Returns
    -------
    BoardTable
        :meth:`BoardFit.leaderboard <judgebayes.studies.leaderboard.BoardFit.leaderboard>`'s
        table; ``attrs["notes"]`` the fit's notes, ``attrs["n_items"]`` the items.
    """
    if "bootstrap" in columns:
        raise InputError(
            "bootstrap= is gone: the closed form's simultaneous claims come from its null "
            "draws (fit.leaderboard(draws=...)); method='bootstrap' resamples the items",
            field="bootstrap",
            value=columns["bootstrap"],
        )
    from judgebayes.studies.leaderboard import LeaderboardStudy

    if not isinstance(method, str):
        raise InputError(
            f"method must name one of the leaderboard's methods; got {method!r}",
            field="method",
            value=method,
        )
    roles = {k: v for k, v in columns.items() if k in _ROLES}
    options = {k: v for k, v in columns.items() if k not in _ROLES}
    m = LeaderboardStudy.methods.resolve(normalise_method(method))
    unknown_keyword("jb.leaderboard", options, {*_ROLES, *m.options})
    table_draws = draws
    if draws is not None and normalise_method(method) != "closed_form":
        options["draws"], table_draws = draws, None  # the method's own draws (Laplace's)
    study = LeaderboardStudy.from_items(frame, **roles)
    fit = study.fit(method, random_seed=random_seed, **options)
    table = fit.leaderboard(
        alpha, top_k, baseline=baseline, estimand=estimand, control=control, draws=table_draws
    )
    table.attrs |= {
        "notes": list(fit.notes),
        "n_items": int(fit.info.get("n_paired_items", fit.info["n_items"])),
        "n_clusters": fit.info.get("n_clusters"),
        "slopes": fit.info.get("slopes", {}),
        "method": fit.method,
    }
    return table
