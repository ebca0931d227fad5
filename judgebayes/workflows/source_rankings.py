r"""Rank the same items from several verdict sources and compare with a reference ranking.

Typical use: five generators compared pairwise by human annotators and by LLM judges
(PandaLM).  Each source's comparisons are fitted with :class:`~judgebayes.studies.ranking.
PairwiseRanking`; naive Bradley-Terry

.. math:: \Pr(i \succ j) = \sigma(\theta_i - \theta_j)

or with a per-comparison length covariate :math:`x = \log_2(1 + \text{words})`,

.. math:: \Pr(\text{first} \succ \text{second}) = \sigma(\theta_f - \theta_s + c\,(x_f - x_s)
          [+ \kappa]).

:func:`ranking_agreement` compares every fit with the reference source: the point
ranking, whether the top-1 item and the top-2 set match, the posterior probability that
the source's best item is the reference's best item, and the Spearman correlation of the
point estimates.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats

from judgebayes.data.ranking.verdicts import with_length
from judgebayes.errors import InputError
from judgebayes.studies.ranking import PairwiseRanking

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

    from judgebayes.studies.ranking import RankingFit

__all__ = ["fit_sources", "rank_interval_table", "ranking_agreement"]


def fit_sources(
    sources: dict[str, pd.DataFrame],
    *,
    length: bool = False,
    words: str = "words",
    position: bool = False,
    method: str = "laplace",
    ties: str = "davidson",
    random_seed: int | None = 0,
    **fit_kwargs: Any,
) -> dict[str, RankingFit]:
    r"""One ranking fit per verdict source.

    Parameters
    ----------
    sources : dict
        Source name -> comparisons frame in the pairwise contract (``first, second,
        winner``; ties as empty winners), e.g. :func:`judgebayes.datasets.
        pandalm_comparisons`.
    length : bool
        Add the length covariate :math:`\log_2(1 + \text{words})`.
    words : str
        Stem of the word-count columns ``<words>_first`` / ``<words>_second``.
    position : bool
        Add the position term (only meaningful when position and identity are not
        confounded; see :func:`judgebayes.data.ranking.identifiability_report`).
    method : {"naive", "laplace", "nuts"}
        Engine; without ``length`` or ``position`` the naive model is fitted whatever
        the method's prior.
    ties : {"davidson", "drop", "half"}
        Tie handling: Davidson's tie model (default), dropped (counted in the data), or
        half a win.
    random_seed : int, optional
        Seed of the draws.
    **fit_kwargs
        Further arguments of :meth:`~judgebayes.studies.ranking.PairwiseRanking.fit`.

    Returns
    -------
    dict
        Source name -> :class:`~judgebayes.studies.ranking.RankingFit`.
    """
    fits = {}
    for name, comp in sources.items():
        covs = ["length"] if length else []
        frame = with_length(comp, words) if length else comp
        rk = PairwiseRanking.from_frames(
            frame[["first", "second", "winner", *(["length_first", "length_second"] * length)]],
            covariates=covs,
            ties=ties,
        )
        if not (length or position):
            fits[name] = rk.fit("naive", random_seed=random_seed, **fit_kwargs)
        else:
            fits[name] = rk.fit(method, random_seed=random_seed, position=position, **fit_kwargs)
    return fits


def rank_interval_table(fits: dict[str, RankingFit], alpha: float = 0.05) -> pd.DataFrame:
    """Per source and item: point quality, its interval, and the rank interval."""
    rows = []
    for name, fit in fits.items():
        q = fit.interval(alpha)
        r = fit.rank_intervals(alpha).drop(columns="estimate")
        for item, rec in q.iterrows():
            rows.append(
                {
                    "source": name,
                    "item": item,
                    "quality": rec["estimate"],
                    "lower": rec["lower"],
                    "upper": rec["upper"],
                    **{
                        k if k.startswith("rank") else f"rank_{k}": v
                        for k, v in r.loc[item].items()
                    },
                }
            )
    return pd.DataFrame(rows)


def ranking_agreement(fits: dict[str, RankingFit], reference: str) -> pd.DataFrame:
    """Agreement of every fit's ranking with the reference fit's point ranking.

    Returns
    -------
    DataFrame
        One row per source: ``ranking`` (best first), ``top1_match``, ``top2_overlap``
        (shared items of the two top-2 sets, 0-2), ``p_ref_top1`` (posterior probability
        that the reference's best item is this source's best), ``spearman``.
    """
    if reference not in fits:
        raise InputError(
            f"reference {reference!r} is not one of the sources {list(fits)}",
            field="reference",
            value=reference,
        )
    ref = fits[reference]
    ref_order = ref.point_top_k(len(ref.data.items))
    rows = []
    for name, fit in fits.items():
        order = fit.point_top_k(len(fit.data.items))
        items = list(fit.data.items)
        th = fit.theta_draws()
        best = np.argmax(th, axis=1)
        ref_pos = {it: i for i, it in enumerate(ref.data.items)}
        aligned = [fit.point[items.index(it)] for it in ref.data.items]
        rows.append(
            {
                "source": name,
                "ranking": " > ".join(order),
                "top1_match": order[0] == ref_order[0],
                "top2_overlap": len(set(order[:2]) & set(ref_order[:2])),
                "p_ref_top1": float(np.mean(best == items.index(ref_order[0]))),
                "spearman": float(stats.spearmanr(aligned, ref.point[list(ref_pos.values())])[0]),
                "comparisons": int(fit.data.n),
            }
        )
    return pd.DataFrame(rows)
