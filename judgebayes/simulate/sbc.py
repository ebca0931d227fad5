r"""Simulation-based calibration (SBC) of the package's NUTS models, as a sweep.

SBC (Talts et al. 2018) checks that a fitted posterior is the model's posterior: draw
parameters :math:`\tilde\theta \sim p(\theta)` from the prior the model states, simulate
data :math:`\tilde y \sim p(y \mid \tilde\theta)`, fit, and record the rank of
:math:`\tilde\theta` among :math:`L` posterior draws.  If the fit is the posterior, each rank
is uniform on :math:`0..L`, whatever the model.  Non-uniform ranks mean the sampler (or
the model code) is wrong: a U-shape is a posterior too narrow, a hump too wide, a slope
a shift.

Each problem below draws datasets from the prior its model states (the builders in
:mod:`judgebayes.models`), with the default priors, and builds each dataset's model
through the package's public constructors, so the spec (and the start values) are those a
user's fit gets.  A dataset a constructor refuses (a calibration class left empty, say)
is drawn again and counted in ``redrawn``: the refusal depends on the data alone, so the
ranks of the datasets kept stay uniform (SBC's guarantee holds conditionally on the
data).  A fit that misses the convergence gate is counted in ``n_failed`` and its ranks
are kept apart: :meth:`SBCResult.uniformity` tests the passed fits and all fits side by
side, never pooling a failed fit silently.

The datasets and every fit's seed are drawn in this process from one ``random_seed``
before any fit runs (:func:`~judgebayes.inference.executors.task_seeds`), and the fits go
to :func:`~judgebayes.inference.executors.run_tasks`: the ranks are the same serially, on
local processes or on a Dask cluster, and a model compiles once per worker.

Problems (:data:`PROBLEMS`):

``binary_random``
    binary judge, calibration drawn at random from the test distribution (one system).
``binary_shifted``
    binary judge, calibration drawn from a shifted distribution (its own rate).
``strata``
    pooled calibration strata (logit-normal population of the judge's rates).
``multiclass``
    K-class judge (Dirichlet confusion rows and prevalence).
``panel_cells``
    generator x validator cell model (hierarchical variant, rate shifts, annotated
    generators).
``panel_items``
    item-level (Dawid-Skene) model of one generator.
``items``
    the items design: two systems, one judge with rates shared across them, a random
    labelled subset.
``items_pooled``
    the items design with three systems, one judge whose rates are pooled across them
    (logit-normal around its typical rates, learnt spread).
``items_covariate``
    the items design with the rate and the judge's rates logistic in an item covariate
    whose mean differs between the two systems.
``items_clustered``
    the items design with clustered items (several responses per prompt: logit-normal
    prompt rates).
``items_judges``
    several judges on the same items (the latent-class model, judges independent given
    the truth).
``items_over_time``
    the items design over six periods: random walks with heavy-tailed steps on the judge's
    logit sensitivity and specificity and on the logit rate (the dynamic model's own prior).
``scores``
    a judge that gives scores: the ordinal model of the human level given the score, with
    partially pooled system offsets.
"""

from __future__ import annotations

import itertools
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from scipy import stats
from scipy.special import expit, logit

from judgebayes.data.accuracy import CalibrationCounts, TestCounts
from judgebayes.errors import ConvergenceWarning, InputError
from judgebayes.inference.executors import describe_executor, run_tasks, task_seeds
from judgebayes.inference.nuts import sample_nuts
from judgebayes.inference.registry import check_count, check_seed, resolve_sampler
from judgebayes.models.accuracy import AccuracyPriors, items_priors
from judgebayes.models.panel import PanelPriors
from judgebayes.results import tree
from judgebayes.studies.accuracy import AccuracyStudy
from judgebayes.studies.panel import ValidatorPanel

if TYPE_CHECKING:  # pragma: no cover
    import pandas as pd

__all__ = ["PROBLEMS", "SBCDataset", "SBCResult", "sbc_study"]


@dataclass(frozen=True)
class SBCDataset:
    """One simulated dataset: the model to fit and the parameter values that drew it.

    Attributes
    ----------
    spec : ModelSpec
        The model, as the package's constructors build it for these data.
    truth : dict
        Variable name -> the drawn value, shaped as one posterior draw of it.

    The spec carries the sampler default the package fits it with (``spec.sampler``).
    """

    spec: Any
    truth: dict[str, np.ndarray]


@dataclass(frozen=True)
class SBCResult:
    """Ranks of the truth among thinned posterior draws, per dataset.

    Attributes
    ----------
    problem : str
        The problem's name.
    ranks : dict
        Variable -> int array (n_datasets, n_components): rank of the true value among
        ``n_ranks`` draws (0..n_ranks).
    components : dict
        Variable -> labels of its components (e.g. ``g[gen_1]``).
    passed : ndarray of bool
        Whether each fit passed the convergence gate.
    messages : tuple of str
        The gate's message per fit ("converged" when it passed).
    n_ranks : int
        Number of posterior draws each rank is taken among.
    redrawn : int
        Datasets a constructor refused and that were drawn again.
    seconds : float
        Wall time of the sweep.
    settings : dict
        Sizes, seeds, sampler and executor.
    """

    problem: str
    ranks: dict[str, np.ndarray]
    components: dict[str, tuple[str, ...]]
    passed: np.ndarray
    messages: tuple[str, ...]
    n_ranks: int
    redrawn: int = 0
    seconds: float = 0.0
    settings: dict[str, Any] = field(default_factory=dict)

    @property
    def n_datasets(self) -> int:
        """Datasets fitted."""
        return int(self.passed.size)

    @property
    def n_failed(self) -> int:
        """Fits that missed the convergence gate."""
        return int((~self.passed).sum())

    def uniformity(self, bins: int = 10) -> pd.DataFrame:
        r"""Chi-square test of uniform ranks, per variable component.

        Ranks :math:`0..L` fall into ``bins`` equal bins (:math:`r \cdot \text{bins} //
        (L + 1)`); the p-value is that of Pearson's chi-square against equal counts.
        ``p_value`` uses the fits that passed the gate, ``p_value_all`` every fit.

        Returns
        -------
        DataFrame
            ``variable``, ``component``, ``n_passed``, ``p_value``, ``n_all``,
            ``p_value_all``.
        """

        def p(r):
            if r.size < bins:
                return float("nan")
            counts = np.bincount(r * bins // (self.n_ranks + 1), minlength=bins)
            return float(stats.chisquare(counts).pvalue)

        rows = []
        for var, r in self.ranks.items():
            for c, label in enumerate(self.components[var]):
                rows.append(
                    {
                        "variable": var,
                        "component": label,
                        "n_passed": int(self.passed.sum()),
                        "p_value": p(r[self.passed, c]),
                        "n_all": self.n_datasets,
                        "p_value_all": p(r[:, c]),
                    }
                )
        return pd.DataFrame(rows)

    def plot(self, var: str | None = None, passed_only: bool = True):
        """ECDF difference of the fractional ranks against the uniform, with ArviZ's
        simultaneous 95% band (``arviz.plot_ecdf_pit``), one panel per component of ``var``.

        A line leaving the band is a miscalibrated component: below the diagonal in the
        middle is a posterior too wide, an S-shape one too narrow.

        Returns
        -------
        arviz_plots.PlotCollection
        """
        import arviz as az

        var = var or next(iter(self.ranks))
        if var not in self.ranks:
            raise InputError(
                f"var must be one of {sorted(self.ranks)}; got {var!r}", field="var", value=var
            )
        keep = self.passed if passed_only else np.ones_like(self.passed)
        # fractional ranks: PIT values of the prior draw among the posterior draws
        u = (self.ranks[var][keep] + 0.5) / (self.n_ranks + 1)
        dt = tree(
            {"prior_sbc": {var: u[None]}},
            coords={"component": list(self.components[var])},
            dims={var: ["component"]},
        )
        pc = az.plot_ecdf_pit(dt, var_names=[var], envelope_prob=0.95, backend="matplotlib")
        pc.viz["figure"].item().suptitle(f"SBC {self.problem}: {var} ({int(keep.sum())} fits)")
        return pc


# ------------------------------------------------------------------- problems
def _btc_rates(rng) -> tuple[float, float]:
    """(q0, q1) uniform on q0 + q1 > 1 (the default better-than-chance prior)."""
    while True:
        q0, q1 = rng.random(2)
        if q0 + q1 > 1:
            return float(q0), float(q1)


def _binary(design: str, n: int = 200, m: int = 40) -> Callable:
    def draw(rng) -> SBCDataset:

        theta = rng.random()
        q0, q1 = _btc_rates(rng)
        rate_cal = theta if design == "random" else rng.random()
        m1 = int(rng.binomial(m, rate_cal))
        tp, tn = int(rng.binomial(m1, q1)), int(rng.binomial(m - m1, q0))
        k = int(rng.binomial(n, theta * q1 + (1 - theta) * (1 - q0)))
        study = AccuracyStudy.from_counts(k, n, tn, m - m1, tp, m1, design=design)
        truth = {"theta": np.array([theta]), "q0": np.array(q0), "q1": np.array(q1)}
        if design == "shifted":
            truth["theta_cal"] = np.array(rate_cal)
        return SBCDataset(study.model_spec(), truth)

    return draw


def _strata(n=(300, 200, 100), m=15) -> Callable:
    def draw(rng) -> SBCDataset:

        pr = AccuracyPriors()
        S = len(n)
        rates, truth = {}, {}
        for c in ("q0", "q1"):
            mu, sigma = rng.normal(*pr.strata_mu), abs(rng.normal(0, pr.strata_sigma))
            rates[c] = 1 / (1 + np.exp(-(mu + sigma * rng.normal(size=S))))
            truth |= {f"mu_{c}": np.array(mu), f"sigma_{c}": np.array(sigma), c: rates[c]}
        th = rng.beta(*pr.theta, S)
        nn = np.asarray(n)
        k = rng.binomial(nn, th * rates["q1"] + (1 - th) * (1 - rates["q0"]))
        strata = tuple(f"s{i}" for i in range(S))
        cal = CalibrationCounts(
            tp=rng.binomial(m, rates["q1"]),
            m1=[m] * S,
            tn=rng.binomial(m, rates["q0"]),
            m0=[m] * S,
            strata=strata,
        )
        test = TestCounts(k=[k], n=[nn], n_missing=[[0] * S], strata=strata)
        truth["theta"] = np.array([(th * nn).sum() / nn.sum()])
        return SBCDataset(AccuracyStudy(test, cal).model_spec(), truth)

    return draw


def _multiclass(K: int = 3, m: int = 30, n: int = 400) -> Callable:
    def draw(rng) -> SBCDataset:

        C = rng.dirichlet(np.ones(K), K)
        prev = rng.dirichlet(np.ones(K))
        conf = np.stack([rng.multinomial(m, C[i]) for i in range(K)])
        test = rng.multinomial(n, prev @ C)[None]
        study = AccuracyStudy.from_multiclass_counts(
            conf, test, classes=[f"c{i}" for i in range(K)]
        )
        return SBCDataset(study.model_spec(), {"prevalence": prev[None], "confusion_rates": C})

    return draw


def _panel_rates(rng, pr, G, V):
    """Generator precisions and cell rates drawn from the cell/item models' prior
    (``_rates`` in :mod:`judgebayes.models.panel`, with rate shifts when G > 1).
    """
    mu_g = rng.normal(*pr.mu_g)
    lg = mu_g + abs(rng.normal(0, pr.sigma_g)) * rng.normal(size=G) if G > 1 else np.r_[mu_g]
    mu_p, mu_n = rng.normal(*pr.mu_tpr), rng.normal(*pr.mu_tnr)
    lp_j = mu_p + abs(rng.normal(0, pr.sigma_tpr)) * rng.normal(size=V)
    ln_j = mu_n + abs(rng.normal(0, pr.sigma_tnr)) * rng.normal(size=V)
    lp, ln = np.broadcast_to(lp_j, (G, V)), np.broadcast_to(ln_j, (G, V))
    if G > 1:
        tg_p, tg_n = abs(rng.normal(0, pr.tau_generator, 2))
        tc_p, tc_n = abs(rng.normal(0, pr.tau_cell, 2))
        lp = lp + tg_p * rng.normal(size=G)[:, None] + tc_p * rng.normal(size=(G, V))
        ln = ln + tg_n * rng.normal(size=G)[:, None] + tc_n * rng.normal(size=(G, V))
    sig = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
    return sig(lg), sig(lp_j), sig(ln_j), sig(lp), sig(ln)


def _panel_cells(G: int = 4, V: int = 4, n_out: int = 80, n_ann: int = 30, annotated: int = 2):
    def draw(rng) -> SBCDataset:

        pr = PanelPriors()
        g, tpr, tnr, vp, vn = _panel_rates(rng, pr, G, V)
        # the realised share of valid outputs among the unannotated ones, as the model
        # states it (logit-normal around logit g, Haldane-Anscombe sd)
        sd_f = np.sqrt(1 / (n_out * g + 0.5) + 1 / (n_out * (1 - g) + 0.5))
        f = 1 / (1 + np.exp(-(np.log(g / (1 - g)) + rng.normal(size=G) * sd_f)))
        k_rest = rng.binomial(n_out, f[:, None] * vp + (1 - f[:, None]) * (1 - vn))
        ann = np.r_[np.full(annotated, n_ann), np.zeros(G - annotated, int)]
        h = rng.binomial(ann, g)
        tp = rng.binomial(np.broadcast_to(h[:, None], (G, V)), vp)
        tn = rng.binomial(np.broadcast_to((ann - h)[:, None], (G, V)), vn)
        fn, fp = h[:, None] - tp, (ann - h)[:, None] - tn
        panel = ValidatorPanel.from_arrays(
            n_out + ann[:, None] + np.zeros((G, V), int),
            k_rest + tp + fp,
            n_annotated=ann,
            n_valid_human=h,
            tp=tp,
            fn=fn,
            tn=tn,
            fp=fp,
        )
        truth = {
            "g": g,
            "tpr": tpr,
            "tnr": tnr,
            "precision_judged": (h + n_out * f) / (ann + n_out),
        }
        return SBCDataset(panel.model_spec(), truth)

    return draw


def _panel_items(V: int = 5, n_out: int = 120, labelled: int = 20):
    def draw(rng) -> SBCDataset:

        g, tpr, tnr, _, _ = _panel_rates(rng, PanelPriors(), 1, V)
        c = rng.random(n_out) < g[0]
        y = np.where(c[:, None], rng.random((n_out, V)) < tpr, rng.random((n_out, V)) >= tnr)
        human = np.where(np.arange(n_out) < labelled, c.astype(float), np.nan)
        frame = pd.DataFrame(
            {
                "output": np.repeat([f"o{i:04d}" for i in range(n_out)], V),
                "generator": "gen",
                "validator": np.tile([f"v{j}" for j in range(V)], n_out),
                "verdict": y.ravel().astype(int),
                "human": np.repeat(human, V),
            }
        )
        panel = ValidatorPanel.from_items(frame)
        return SBCDataset(panel.item_model_spec(), {"g": g, "tpr": tpr, "tnr": tnr})

    return draw


def _items_frame(rng, theta, q0, q1, n, labelled, system="s"):
    """``n`` items of one system at rate ``theta``; verdicts of judges with specificities
    ``q0`` and sensitivities ``q1`` (arrays over judges); the first ``labelled`` carry the
    human label.
    """
    h = rng.random(n) < theta
    q0, q1 = np.atleast_1d(q0), np.atleast_1d(q1)
    pos = np.where(h[:, None], rng.random((n, q1.size)) < q1, rng.random((n, q0.size)) >= q0)
    frame = pd.DataFrame(pos.astype(int), columns=[f"j{i}" for i in range(q1.size)])
    return frame.assign(
        human=np.where(np.arange(n) < labelled, h.astype(float), np.nan), system=system
    )


def _items(n: int = 300, labelled: int = 40, systems: int = 2) -> Callable:
    def draw(rng) -> SBCDataset:

        pr = items_priors()
        theta = rng.beta(*pr.theta, systems)
        q0, q1 = rng.beta(*pr.q0), rng.beta(*pr.q1)
        frame = pd.concat(
            [_items_frame(rng, theta[i], q0, q1, n, labelled, f"s{i}") for i in range(systems)]
        )
        study = AccuracyStudy.from_items(
            frame, judge="j0", system="system", estimand="process", judge_rates="shared"
        )
        truth = {"theta": theta, "q0": np.array(q0), "q1": np.array(q1)}
        return SBCDataset(study.model_spec(), truth)

    return draw


def _items_pooled(n: int = 200, labelled: int = 40, systems: int = 3) -> Callable:
    def draw(rng) -> SBCDataset:
        pr = items_priors()
        theta = rng.beta(*pr.theta, systems)
        truth = {"theta": theta}
        rates = {}
        for r, (a, b) in ((0, pr.q0), (1, pr.q1)):  # logit-normal around the typical rate
            mean, sigma = rng.beta(a, b), abs(rng.normal(0, pr.judge_sigma))
            rates[r] = expit(logit(mean) + sigma * rng.normal(size=systems))
            truth[f"q{r}"], truth[f"q{r}_sigma"] = rates[r], np.array(sigma)
        frame = pd.concat(
            [
                _items_frame(rng, theta[i], rates[0][i], rates[1][i], n, labelled, f"s{i}")
                for i in range(systems)
            ]
        )
        study = AccuracyStudy.from_items(
            frame, judge="j0", system="system", estimand="process", judge_rates="pooled"
        )
        return SBCDataset(study.model_spec(), truth)

    return draw


def _items_covariate(n: int = 200, labelled: int = 40, systems: int = 2) -> Callable:
    def draw(rng) -> SBCDataset:
        pr = items_priors()
        x = rng.normal(np.linspace(-0.7, 0.7, systems)[:, None], 1.0, (systems, n))
        z = (x - x.mean()) / x.std()  # what the study standardises to
        th0 = rng.beta(*pr.theta, systems)
        gamma = rng.normal(0, pr.coef_sd, systems)
        q0, q1 = rng.beta(*pr.q0), rng.beta(*pr.q1)
        b0, b1 = rng.normal(0, pr.coef_sd, 2)
        item_rate = expit(logit(th0)[:, None] + gamma[:, None] * z)
        h = rng.random((systems, n)) < item_rate
        sens = expit(logit(q1) + b1 * z)
        spec = expit(logit(q0) + b0 * z)
        v = np.where(h, rng.random((systems, n)) < sens, rng.random((systems, n)) >= spec)
        lab = np.arange(n)[None, :] < labelled
        frame = pd.DataFrame(
            {
                "system": np.repeat([f"s{i}" for i in range(systems)], n),
                "j0": v.astype(int).ravel(),
                "human": np.where(lab, h.astype(float), np.nan).ravel(),
                "x": x.ravel(),
            }
        )
        study = AccuracyStudy.from_items(
            frame,
            judge="j0",
            system="system",
            covariates="x",
            estimand="process",
            judge_rates="shared",
        )
        truth = {
            "theta": item_rate.mean(1),
            "q0": np.array([q0]),
            "q1": np.array([q1]),
            "q0_coef": np.array([b0]),
            "q1_coef": np.array([b1]),
            "rate_coef": gamma,
        }
        return SBCDataset(study.model_spec(), truth)

    return draw


def _items_clustered(clusters: int = 12, size: int = 20, labelled: int = 4) -> Callable:
    def draw(rng) -> SBCDataset:

        pr = items_priors()
        mu, sigma = rng.normal(*pr.cluster_mu), abs(rng.normal(0, pr.cluster_sigma))
        rates = expit(mu + sigma * rng.normal(size=clusters))
        q0, q1 = rng.beta(*pr.q0), rng.beta(*pr.q1)
        frame = pd.concat(
            [
                _items_frame(rng, r, q0, q1, size, labelled).assign(prompt=f"p{g}")
                for g, r in enumerate(rates)
            ]
        )
        study = AccuracyStudy.from_items(
            frame, judge="j0", cluster="prompt", estimand="process", judge_rates="shared"
        )
        # the population mean rate by a 2,001-point midpoint rule over the normal's quantiles
        u = (np.arange(2001) + 0.5) / 2001
        theta = expit(mu + sigma * stats.norm.ppf(u)).mean()
        truth = {
            "theta": np.array([theta]),
            "mu": np.array([mu]),
            "sigma": np.array([sigma]),
            "q0": np.array(q0),
            "q1": np.array(q1),
        }
        return SBCDataset(study.model_spec(), truth)

    return draw


def _items_judges(n: int = 300, labelled: int = 40, judges: int = 3) -> Callable:
    def draw(rng) -> SBCDataset:

        pr = items_priors()
        theta = rng.beta(*pr.theta)
        q0, q1 = rng.beta(*pr.q0, judges), rng.beta(*pr.q1, judges)
        frame = _items_frame(rng, theta, q0, q1, n, labelled)
        study = AccuracyStudy.from_items(
            frame, judge=[f"j{i}" for i in range(judges)], estimand="process"
        )
        truth = {"theta": np.array([theta]), "q0": q0, "q1": q1}
        return SBCDataset(study.model_spec(), truth)

    return draw


#: name -> (draw(rng) -> SBCDataset, one line on the setting)
def _scores(n: int = 150, labelled: int = 60, systems: int = 3, levels: int = 5) -> Callable:
    """Judge scores 1-10 and Likert labels from the scores model's prior (every level seen
    among the labels, else drawn again: the model's levels are the labels seen).
    """

    def draw(rng) -> SBCDataset:
        from judgebayes.studies.scores import ScoreStudy

        score = rng.integers(1, 11, (systems, n)).astype(float)
        z = (score - score.mean()) / score.std()
        c = rng.normal(0, 3) + np.concatenate(
            [[0.0], np.cumsum(np.exp(rng.normal(0, 1, levels - 2)))]
        )
        beta = rng.normal(0, 2.5)
        u = rng.normal(0, 1, systems)
        alpha = abs(rng.normal(0, 1)) * (u - u.mean())
        eta = beta * z + alpha[:, None]
        below = expit(c[None, None, :] - eta[..., None])  # P(H <= k), (S, n, K - 1)
        human = 1 + (rng.random((systems, n))[..., None] > below).sum(-1)
        rows = []
        for k in range(systems):
            lab = np.zeros(n, bool)
            lab[rng.choice(n, labelled, replace=False)] = True
            rows.append(
                pd.DataFrame(
                    {"system": f"s{k}", "score": score[k], "human": np.where(lab, human[k], np.nan)}
                )
            )
        frame = pd.concat(rows)
        if frame["human"].nunique() < levels:
            raise InputError("a level without labels", field="human", value=None)
        study = ScoreStudy.from_items(frame, score="score", human="human", system="system")
        truth = {"cutpoints": c, "beta": np.array([beta]), "alpha": alpha}
        return SBCDataset(study.model_spec(), truth)

    return draw


def _items_over_time(weeks: int = 6, n: int = 150, labelled: int = 25) -> Callable:
    """Drawn from the dynamic model's prior (:func:`items_dynamic_model`): random walks on
    the judge's logit rates and the rate over ``weeks`` periods.
    """

    def draw(rng) -> SBCDataset:
        pr = items_priors()

        def walk(start, size=None):
            step = abs(rng.normal(0, pr.walk_step))
            first = rng.normal(*start, size=size)
            shape = (weeks,) if size is None else (size, weeks)
            share, scale = pr.walk_jump  # a two-normal mixture: a wide step with prob. share
            z = rng.normal(0, 1, shape) * np.where(rng.random(shape) < share, scale, 1.0)
            z[..., 0] = 0.0
            return expit(np.asarray(first)[..., None] + step * np.cumsum(z, axis=-1)), step

        theta, _ = walk(pr.cluster_mu, size=1)
        q1, _ = walk(pr.strata_mu)
        q0, _ = walk(pr.strata_mu)
        frame = pd.concat(
            [
                _items_frame(rng, theta[0, w], q0[w], q1[w], n, labelled).assign(week=w)
                for w in range(weeks)
            ]
        )
        study = AccuracyStudy.from_items(frame, judge="j0", time="week", estimand="process")
        truth = {"theta_stratum": theta, "q0": q0, "q1": q1}
        return SBCDataset(study.model_spec(), truth)

    return draw


PROBLEMS: dict[str, tuple[Callable[..., SBCDataset], str]] = {
    "binary_random": (_binary("random"), "n = 200 judged, 40 labelled at random"),
    "binary_shifted": (_binary("shifted"), "n = 200 judged, 40 labelled from a shifted rate"),
    "strata": (_strata(), "3 strata, n = 300/200/100, 15 labels per class per stratum"),
    "multiclass": (_multiclass(), "K = 3, 30 labels per true class, 400 judged"),
    "panel_cells": (
        _panel_cells(),
        "4 generators x 4 validators, 80 unannotated outputs each, 2 generators with 30 annotated",
    ),
    "panel_items": (_panel_items(), "1 generator, 5 validators, 120 outputs, 20 labelled"),
    "items": (_items(), "2 systems x 300 items, 40 labelled each, one judge, shared rates"),
    "items_pooled": (
        _items_pooled(),
        "3 systems x 200 items, 40 labelled each, one judge, rates pooled across systems",
    ),
    "items_covariate": (
        _items_covariate(),
        "2 systems x 200 items, 40 labelled each, one judge, rates logistic in a covariate",
    ),
    "items_clustered": (
        _items_clustered(),
        "12 prompts x 20 responses, 4 labelled per prompt, one judge",
    ),
    "items_judges": (_items_judges(), "300 items, 40 labelled, 3 judges (latent class)"),
    "items_over_time": (
        _items_over_time(),
        "6 weeks x 150 items, 25 labelled a week, the judge's rates and the rate walking",
    ),
    "scores": (
        _scores(),
        "3 systems x 150 rows, 60 labelled each, a 1-10 judge, Likert 1-5 labels (ordinal)",
    ),
}


# ------------------------------------------------------------------- the sweep
def _fit_one(task) -> tuple[dict[str, np.ndarray], bool, str, float]:
    """Worker: fit one dataset by NUTS and rank its truth among the thinned draws."""
    ds, seed, sampler, thin = task
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # counted by the caller
        idata, diag, _ = sample_nuts(ds.spec, random_seed=seed, sampler=sampler)
    post = idata.posterior
    ranks = {}
    for var, truth in ds.truth.items():
        x = post[var].values[:, ::thin]
        x = x.reshape(x.shape[0] * x.shape[1], -1)  # (kept draws, components)
        ranks[var] = (x < np.ravel(truth)[None, :]).sum(0)
    return ranks, diag.passed, diag.message(), time.perf_counter() - t0


def _labels(ds: SBCDataset) -> dict[str, tuple[str, ...]]:
    """Variable -> its components' labels (``g[gen_1]``), in the ranks' order."""
    model = ds.spec.build()
    out = {}
    for var in ds.truth:
        dims = model.named_vars_to_dims.get(var, ())
        coords = [list(map(str, model.coords[d])) for d in dims]
        out[var] = (
            tuple(f"{var}[{','.join(c)}]" for c in itertools.product(*coords)) if dims else (var,)
        )
    return out


def sbc_study(
    problem: str,
    n_datasets: int,
    *,
    random_seed: int = 0,
    sampler: Any = None,
    thin: int = 10,
    executor: Any = None,
    progress: bool | None = None,
) -> SBCResult:
    """Simulation-based calibration of one NUTS model (module docstring).

    Parameters
    ----------
    problem : str
        A key of :data:`PROBLEMS`.
    n_datasets : int
        Datasets to draw and fit.
    random_seed : int
        Seeds the datasets and every fit (same seed, same ranks on any executor).
    sampler : SamplerConfig or mapping, optional
        NUTS settings (default: the model's own, ``spec.sampler``).
    thin : int
        Keep every ``thin``-th draw of each chain for the ranks (draws are
        autocorrelated; thinning to roughly the ESS keeps the ranks uniform under the
        null).
    executor : None, int, concurrent.futures.Executor or dask.distributed.Client
        Where the fits run (:func:`~judgebayes.inference.executors.run_tasks`).
    progress : bool, optional
        A bar over the fits.

    Returns
    -------
    SBCResult
    """
    if problem not in PROBLEMS:
        raise InputError(
            f"problem must be one of {tuple(PROBLEMS)}; got {problem!r}",
            field="problem",
            value=problem,
        )
    check_count(n_datasets, "n_datasets")
    check_count(thin, "thin")
    random_seed = check_seed(random_seed)
    draw, setting = PROBLEMS[problem]
    rng = np.random.default_rng(random_seed)
    datasets, redrawn = [], 0
    while len(datasets) < n_datasets:
        try:
            datasets.append(draw(rng))
        except InputError:  # e.g. an empty calibration class: depends on the data only
            redrawn += 1
            if redrawn > 10 * n_datasets:
                raise
    cfg = resolve_sampler(datasets[0].spec.sampler, sampler)
    seeds = task_seeds(random_seed, n_datasets)
    t0 = time.perf_counter()
    out = run_tasks(
        _fit_one,
        [(ds, s, cfg, thin) for ds, s in zip(datasets, seeds, strict=True)],
        executor,
        progress=progress,
        desc=f"SBC {problem}",
    )
    seconds = time.perf_counter() - t0
    names = list(datasets[0].truth)
    n_ranks = cfg.chains * len(range(0, cfg.draws, thin))
    return SBCResult(
        problem=problem,
        ranks={v: np.stack([o[0][v] for o in out]) for v in names},
        components=_labels(datasets[0]),
        passed=np.array([o[1] for o in out]),
        messages=tuple(o[2] for o in out),
        n_ranks=n_ranks,
        redrawn=redrawn,
        seconds=seconds,
        settings={
            "setting": setting,
            "n_datasets": n_datasets,
            "random_seed": random_seed,
            "sampler": cfg,
            "thin": thin,
            "executor": describe_executor(executor),
            "fit_seconds": [o[3] for o in out],
        },
    )
