r"""The exact posterior of several systems answering the same prompts, one judge.

Per prompt :math:`i` (answered by every one of the :math:`S` systems) the judge's joint
verdict :math:`w_i \in \{0, 1\}^S` and the joint truth :math:`t_i \in \{0, 1\}^S`.  In the
parametrisation of the verdicts' shares :math:`s_w` and the truths given a verdict
:math:`r_{wt} = P(t \mid w)` the likelihood of a design that labels on the verdicts only
factorises, and the conjugate posterior is

.. math::
    s \sim \mathrm{Dirichlet}(\alpha_s + n_w),\qquad
    r_w \sim \mathrm{Dirichlet}(\alpha_r + c_{w\cdot})

with :math:`n_w` prompts of verdict :math:`w` and :math:`c_{wt}` prompts of verdict
:math:`w` labelled on every system with truth :math:`t`.  Prompts labelled on some systems
only add :math:`\prod_i \sum_{t \sim i} r_{w_i t}` (the truths their labels allow), which
importance-weights draws of the conjugate posterior.  Each system's rate
:math:`\theta_a = \sum_w s_w \sum_t r_{wt} t_a`; differences are paired, since every
rate is a sum over the same draws.  The items estimand fills each prompt's unknown truths
from :math:`r_{w\cdot}` restricted to what its labels allow.

Priors: :math:`\alpha_s = 2^{1-S}` per joint verdict (total 2, as Dirichlet(1) over one
judge's two verdicts) and :math:`\alpha_r = 2^{-S-1}` per joint truth (total 1/2), so
each system's human rate given a verdict is a priori Beta(1/4, 1/4), the single system's
proposal (:data:`~judgebayes.inference.items.exact.PROPOSAL_A`), whose implied prior on
the rate behaves as Jeffreys's at 0 and 1.  Nothing is assumed about how the judge errs on
the answers to one prompt (together, or per system).
"""

from __future__ import annotations

import numpy as np

from judgebayes.data.items import ItemData
from judgebayes.errors import MethodRefused
from judgebayes.models.items import truth_states

__all__ = ["EXACT_PAIRED_MAX", "exact_paired_draws", "prompt_table", "truths_drawn"]

#: the exact paired posterior's largest number of systems (its arrays are 4 ** S a draw)
EXACT_PAIRED_MAX = 4
#: proposal draws per returned draw, and per block of the computation
OVERSAMPLE, BLOCK = 4, 4000


def prompt_table(data: ItemData) -> tuple[np.ndarray, np.ndarray]:
    """(verdict, label) per prompt and system, (P, S) each: 1, 0, or -1 (no answer / no
    label).  Prompts are the ``item`` codes in order.
    """
    assert data.item is not None  # a paired design has prompts
    S = len(data.systems)
    _, inv = np.unique(data.item, return_inverse=True)
    v = np.full((int(inv.max()) + 1, S), -1, dtype=np.int64)
    h = np.full(v.shape, -1, dtype=np.int64)
    v[inv, data.system] = np.rint(data.judge).astype(np.int64)
    h[inv, data.system] = np.where(data.labelled, data.human, -1).astype(np.int64)
    return v, h


def truths_drawn(share, given, V, L, counts, rng: np.random.Generator) -> np.ndarray:
    """Per draw, how many of each pattern's ``counts`` prompts have each joint truth, drawn
    from their posterior given the pattern: the joint verdicts its verdicts allow (``V``,
    (P, W)) weighted by ``share`` (D, W), the truths given each (``given``, (D, W, T))
    restricted to what its labels allow (``L``, (P, T)).  Returns (D, P, T).
    """
    per = L[None] * np.einsum("pw,dw,dwt->dpt", V, share, given)
    tot = per.sum(-1, keepdims=True)
    per = np.where(tot > 0, per / np.where(tot > 0, tot, 1), 1.0 / per.shape[-1])
    return rng.multinomial(np.broadcast_to(counts, per.shape[:2]), per)


def exact_paired_draws(data: ItemData, draws: int, rng: np.random.Generator) -> dict:
    """Draws of every system's rate (``theta``) and its N prompts' rate (``theta_items``)
    under the module's prior, by importance resampling of the conjugate posterior.

    Returns ``{"theta", "theta_items": (draws, S), "ess": float, "n_prompts": int,
    "n_partial": int}`` (``ess``: effective proposal draws; ``n_partial``: prompts labelled
    on some systems only).

    Raises
    ------
    MethodRefused
        More than :data:`EXACT_PAIRED_MAX` systems, strata, or prompts some system did not
        answer (the conjugate form needs every joint verdict).
    """
    S = len(data.systems)
    if S > EXACT_PAIRED_MAX:
        raise MethodRefused(
            f"the exact paired posterior takes at most {EXACT_PAIRED_MAX} systems (its "
            f"arrays grow as 4 ** S); got {S}: use 'closed_form' (paired) or 'nuts'",
            field="system",
            value=S,
        )
    if len(data.strata) > 1:
        raise MethodRefused(
            "the exact paired posterior has no strata; use 'closed_form' (paired, stratified)",
            field="stratum",
            value=data.columns.get("stratum"),
        )
    v, h = prompt_table(data)
    missing = int(np.sum(np.any(v < 0, axis=1)))
    if missing:
        raise MethodRefused(
            f"the exact paired posterior needs every system's answer to every prompt; "
            f"{missing} prompt(s) lack one: use 'nuts' (the paired model sums over missing "
            "answers) or 'closed_form'",
            field="item",
            value=missing,
        )
    states = truth_states(S)  # (T, S)
    T = len(states)
    w_code = v @ (2 ** np.arange(S - 1, -1, -1))  # the joint verdict's index in states
    allow = np.all((h[:, None, :] < 0) | (h[:, None, :] == states[None]), -1)  # (P, T)
    # prompts grouped by (joint verdict, what the labels allow)
    key = np.concatenate([w_code[:, None], allow.astype(np.int64)], 1)
    groups, n_g = np.unique(key, axis=0, return_counts=True)
    gw, gmask = groups[:, 0], groups[:, 1:].astype(bool)
    n_allowed = gmask.sum(1)
    full, partial = n_allowed == 1, (n_allowed > 1) & (n_allowed < T)
    n_w = np.bincount(w_code, minlength=T)
    c = np.zeros((T, T))
    np.add.at(c, (gw[full], np.argmax(gmask[full], 1)), n_g[full])
    a_s, a_r = 2.0 ** (1 - S), 2.0 ** (-S - 1)
    m = OVERSAMPLE * draws
    log_w = np.empty(m)
    keep_s, keep_r = np.empty((m, T)), np.empty((m, T, T))
    for lo in range(0, m, BLOCK):
        b = min(BLOCK, m - lo)
        gs = rng.gamma(a_s + n_w, size=(b, T))
        gr = rng.gamma(a_r + c, size=(b, T, T))
        share = gs / gs.sum(-1, keepdims=True)
        rate = gr / np.maximum(gr.sum(-1, keepdims=True), np.finfo(float).tiny)
        keep_s[lo : lo + b], keep_r[lo : lo + b] = share, rate
        if partial.any():
            allowed = (rate[:, gw[partial], :] * gmask[partial]).sum(-1)  # (b, G_partial)
            log_w[lo : lo + b] = np.log(np.maximum(allowed, 1e-300)) @ n_g[partial]
        else:
            log_w[lo : lo + b] = 0.0
    w = np.exp(log_w - log_w.max())
    w /= w.sum()
    idx = rng.choice(m, size=draws, p=w)
    share, rate = keep_s[idx], keep_r[idx]  # (D, T), (D, T, T)
    theta = np.einsum("dw,dwt,ts->ds", share, rate, states)
    counts = truths_drawn(share, rate, np.eye(T)[gw], gmask, n_g, rng)  # (D, G, T)
    items = np.einsum("dgt,ts->ds", counts, states) / len(v)
    return {
        "theta": theta,
        "theta_items": items,
        "ess": float(1.0 / np.sum(w**2)),
        "n_prompts": len(v),
        "n_partial": int(n_g[partial].sum()),
    }
