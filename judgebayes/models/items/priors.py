"""The items design's priors: Jeffreys's prior on the rate, and the judge's rates per
system, shared or partially pooled.
"""

from __future__ import annotations

from judgebayes.errors import InputError
from judgebayes.models.accuracy.priors import AccuracyPriors

#: The items design's prior on each stratum's rate, in every engine (exact, Laplace, NUTS):
#: Jeffreys's Beta(1/2, 1/2).  A uniform prior under-covers at true rates near 0 and 1
#: with 20 labels; this one covers over the whole range (BENCHMARKS.md, the items design
#: at the edges).
ITEMS_THETA_PRIOR = (0.5, 0.5)


def items_priors() -> AccuracyPriors:
    """The items design's default priors: :data:`ITEMS_THETA_PRIOR` on the rate, the rest
    as :class:`~judgebayes.models.accuracy.AccuracyPriors`.
    """
    return AccuracyPriors(theta=ITEMS_THETA_PRIOR)


JUDGE_RATES = ("per_system", "shared", "pooled")


def check_judge_rates(judge_rates: str) -> None:
    """``judge_rates`` is one of :data:`JUDGE_RATES`, or a typed error naming it."""
    if judge_rates not in JUDGE_RATES:
        raise InputError(
            f"judge_rates must be one of {JUDGE_RATES}; got {judge_rates!r}",
            field="judge_rates",
            value=judge_rates,
        )


def logit(p):
    """The logit of a PyTensor probability, as log p - log(1 - p) (stable near 0 and 1)."""
    import pytensor.tensor as pt

    return pt.log(p) - pt.log1p(-p)


def pooled_judge_rates(priors: AccuracyPriors, cells: tuple[str, str]):
    r"""Per (system, stratum) judge rates partially pooled across systems: for
    :math:`r \in \{0, 1\}`,
    :math:`\operatorname{logit} q_{r,st} = \operatorname{logit}\bar q_{r,t}
    + \sigma_r \epsilon_{r,st}`, :math:`\bar q_{r,t} \sim` the Beta prior of
    :math:`q_r`, :math:`\sigma_r \sim \mathrm{HalfNormal}` (``priors.judge_sigma``),
    :math:`\epsilon \sim N(0, 1)` (non-centred).  The spread is learnt, so rates that
    agree are pooled toward one judge and rates that differ are not.
    """
    import pymc as pm
    import pytensor.tensor as pt

    out = []
    for r, (a, b) in ((0, priors.q0), (1, priors.q1)):
        mean = pm.Beta(f"q{r}_mean", a, b, dims=cells[1])
        sigma = pm.HalfNormal(f"q{r}_sigma", priors.judge_sigma)
        eps = pm.Normal(f"q{r}_system", 0.0, 1.0, dims=cells)
        q = pt.sigmoid(logit(mean)[None, :] + sigma * eps)
        out.append(pm.Deterministic(f"q{r}", q, dims=cells))
    return out[0], out[1]
