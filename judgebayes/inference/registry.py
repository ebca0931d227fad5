"""One engine dispatch: which methods each family offers, what they accept, how they sample.

Every study's ``fit(method, ...)`` goes through :func:`resolve`: the method name (``-`` and
``_`` spell the same, so the CLI's ``closed-form`` is ``closed_form``) is looked up in the
family's table below, and every keyword is checked against the options that method
takes.  An unknown method or keyword raises :class:`~judgebayes.errors.InputError`
listing the valid ones; nothing is silently ignored.

Engines (the ``engine`` of a :class:`MethodSpec`)
-------------------------------------------------
``closed_form``   vectorised estimators of :mod:`~judgebayes.inference.closed_form`
``exact``         quadrature posterior of :mod:`~judgebayes.inference.exact`
``laplace``       MAP + exact-Hessian Laplace of :mod:`~judgebayes.inference.laplace`
``newton``        Gaussian-prior Bradley-Terry MAP + Laplace of
                  :mod:`~judgebayes.inference.bradley_terry`
``nuts``          nutpie NUTS with the compile cache and the convergence gate,
                  :mod:`~judgebayes.inference.sampling`
``regression``    the agreeableness regression, :mod:`~judgebayes.inference.panel_regression`
``votes``         validator mean, votes, plug-in, :mod:`~judgebayes.inference.ensembles`

Sampler settings
----------------
NUTS settings are one frozen :class:`SamplerConfig`; :data:`DEFAULT_SAMPLERS` holds every
model's default in one place, with the reason for each.  A fit takes
``sampler=SamplerConfig(...)`` or a mapping of the fields to change
(``sampler={"draws": 500}``); the settings used are recorded in ``fit.idata.attrs``.  The
seed is the fit's ``random_seed`` argument (DESIGN: every sampling call takes one).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from typing import Any

from judgebayes.errors import InputError

__all__ = [
    "DEFAULT_SAMPLERS",
    "METHODS",
    "MethodSpec",
    "SamplerConfig",
    "check_count",
    "check_seed",
    "describe",
    "normalise_method",
    "resolve",
    "resolve_sampler",
]


@dataclass(frozen=True)
class SamplerConfig:
    """NUTS settings of one fit.

    Attributes
    ----------
    draws : int
        Kept draws per chain.
    tune : int
        Warm-up draws per chain (discarded).
    chains : int
        Independent chains (R-hat needs at least 2).
    target_accept : float
        Step-size adaptation target in (0, 1); higher means smaller steps, fewer
        divergences in funnels, slower sampling.
    backend : {"nutpie", "pymc"}
        ``"nutpie"`` (compiled once per model structure, data swapped in) or
        ``"pymc"`` (``pm.sample``, no compile cache).
    """

    draws: int = 1000
    tune: int = 1000
    chains: int = 4
    target_accept: float = 0.8
    backend: str = "nutpie"

    def __post_init__(self):
        for name in ("draws", "tune", "chains"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, int) or v < (0 if name == "tune" else 1):
                low = 0 if name == "tune" else 1
                raise InputError(
                    f"sampler.{name} must be an integer >= {low}; got {v!r}",
                    field=f"sampler.{name}",
                    value=v,
                )
        ta = self.target_accept
        if isinstance(ta, bool) or not isinstance(ta, int | float) or not 0 < ta < 1:
            raise InputError(
                f"sampler.target_accept must lie in (0, 1); got {ta!r}",
                field="sampler.target_accept",
                value=ta,
            )
        if self.backend not in ("nutpie", "pymc"):
            raise InputError(
                f"sampler.backend must be 'nutpie' or 'pymc'; got {self.backend!r}",
                field="sampler.backend",
                value=self.backend,
            )


#: Per-model NUTS defaults, and why.
DEFAULT_SAMPLERS: dict[str, SamplerConfig] = {
    # binary / K-class accuracy: low-dimensional, but q0 and q1 are shared by every
    # system, and at 0.8 a two-system fit diverged in 5 of 8 seeds (1-2 divergences each,
    # the CLI test's data); at 0.9 in none of them, for the same time per fit (0.36 s)
    "accuracy": SamplerConfig(target_accept=0.9),
    # the pooled-strata model has a funnel in the spread of the judge's logit rates; with
    # few strata 0.95 still left divergences (17 in 2 fits on LLMBar), 0.99 none
    "accuracy.strata": SamplerConfig(target_accept=0.99),
    # independent replicates (split protocol): one NUTS run over hundreds of small
    # posteriors, some pressed against theta in {0, 1}; 0.95 keeps divergences at 0
    "accuracy.replicates": SamplerConfig(target_accept=0.95),
    # panel cell and item models: logit-normal hierarchies over validators.  With the
    # gate on every free variable, the validator population mean mu_tpr had R-hat 1.026
    # at 4 x 1000 (tune 800, 0.9) on a 10 x 8 simulated panel; tune 1500 at 0.95 passes
    # there.  On 30 small panels (benchmarks/panel_gate.py: 5 x 4 plain and shifted, 6 x 5)
    # 4 x 1000 at 0.95 left R-hat up to 1.016 and tail ESS down to 85; 4 x 2000 passed
    # R-hat and ESS but 12 of 30 fits diverged (1-4 each), at g -> 1 where the realised
    # share's logit sd was unbounded.  With that sd bounded (models/panel.py), 4 x 2000 at
    # 0.95 passed 26 of 30 (3 with 1-2 divergences) and at 0.99 28 of 30 (no divergence;
    # the two failures are tail ESS 76 and 168 on 6 x 5 panels with rate shifts)
    "panel": SamplerConfig(draws=2000, tune=1500, target_accept=0.99),
    # the item-level model of one generator (one pool of outputs, several judges: the
    # Dawid-Skene setting): no generator hierarchy and no rate shifts, so none of the
    # funnels above; on issue 12's 200-output, 8-judge simulation 4 x 1000 at 0.9 passed
    # the gate in 3 of 3 seeds at 8 s a fit
    "panel.single_generator": SamplerConfig(target_accept=0.9),
    # Bradley-Terry with a normal or hierarchical bias prior
    "ranking": SamplerConfig(target_accept=0.95),
    # the regularized horseshoe's spike needs small steps (Piironen & Vehtari 2017)
    "ranking.horseshoe": SamplerConfig(target_accept=0.99),
    # the hierarchical bias prior's scale over two coefficients is a funnel when the true
    # biases are near 0: on 20 SBC data sets (6 items, 300 comparisons) 7 fits failed the
    # gate at 0.95 (1-3 divergences each), 1 at 0.99 (R-hat 1.015 on tau_b)
    "ranking.hierarchical": SamplerConfig(target_accept=0.99),
    # the instance effect (a pair's two presentation orders share a deviation): its scale
    # mixes slowly; on ChatGPT's LLMBar verdicts (normal prior) 4 x 1000 left R-hat
    # 1.008-1.011 on instance_sd and bulk ESS 470-610 over seeds 0-3, at the gate's edge;
    # 4 x 2000 gave R-hat <= 1.008 and bulk ESS >= 980 (18 s a fit instead of 12 s)
    "ranking.instance": SamplerConfig(draws=2000, target_accept=0.95),
    # judge-error ranking: a few qualities and a confusion simplex per judge; on PandaLM
    # (999 instances, 2 judges, ties) 0.9 passes the gate with bulk ESS > 1,800
    "ranking.judge_error": SamplerConfig(target_accept=0.9),
}


def resolve_sampler(model: str, sampler: SamplerConfig | Mapping[str, Any] | None) -> SamplerConfig:
    """The sampler settings of one fit: ``model``'s default, updated by ``sampler``."""
    base = DEFAULT_SAMPLERS[model]
    if sampler is None:
        return base
    if isinstance(sampler, SamplerConfig):
        return sampler
    if not isinstance(sampler, Mapping):
        raise InputError(
            f"sampler must be a SamplerConfig or a mapping of its fields; got "
            f"{type(sampler).__name__}",
            field="sampler",
            value=type(sampler).__name__,
        )
    valid = {f.name for f in fields(SamplerConfig)}
    bad = sorted(set(sampler) - valid)
    if bad:
        raise InputError(
            f"sampler has no setting {bad[0]!r}; valid settings: {sorted(valid)}",
            field="sampler",
            value=bad[0],
        )
    return replace(base, **dict(sampler))


def check_count(value: Any, field: str) -> int:
    """``value`` as an int when it is a whole number >= 1 (a Python or numpy integer,
    not a bool or a float), else one :class:`InputError` naming ``field``.
    """
    import numpy as np

    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise InputError(
            f"{field} must be an integer >= 1; got {value!r}", field=field, value=value
        )
    return int(value)


def check_seed(seed: Any) -> int | None:
    """``random_seed`` as None or an int in [0, 2**63); anything else is an InputError."""
    if seed is None:
        return None
    import numpy as np

    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise InputError(
            f"random_seed must be None or a non-negative integer; got {seed!r}",
            field="random_seed",
            value=seed,
        )
    if not 0 <= int(seed) < 2**63:
        raise InputError(
            f"random_seed must lie in [0, 2**63); got {int(seed)}",
            field="random_seed",
            value=int(seed),
        )
    return int(seed)


@dataclass(frozen=True)
class MethodSpec:
    """One method of one family.

    Attributes
    ----------
    name : str
        Method name (``fit(method=name)``).
    engine : str
        The engine that runs it (see the module docstring).
    options : tuple of str
        Keyword arguments ``fit`` accepts for it, beyond ``random_seed``.
    mcmc : bool
        True when the fit runs MCMC (and so has diagnostics).
    summary : str
        One line for error messages and docs.
    """

    name: str
    engine: str
    options: tuple[str, ...] = ()
    mcmc: bool = False
    summary: str = ""


def _m(name, engine, options=(), mcmc=False, summary=""):
    return name, MethodSpec(name, engine, tuple(options), mcmc, summary)


_PANEL_POINT = ("data",)
#: family -> method name -> spec.  The single list of what every study can do.
METHODS: dict[str, dict[str, MethodSpec]] = {
    "accuracy": dict(
        [
            _m("closed_form", "closed_form", (), summary="Rogan-Gladen + Lang-Reiczigel"),
            _m("laplace", "laplace", ("draws", "importance"), summary="MAP + Laplace draws"),
            _m("exact", "exact", ("draws", "nodes"), summary="exact posterior by quadrature"),
            _m("nuts", "nuts", ("sampler",), mcmc=True, summary="NUTS with the gate"),
        ]
    ),
    # the items design (AccuracyStudy.from_items): fits are of the accuracy family
    "accuracy.items": dict(
        [
            _m("closed_form", "closed_form", (), summary="double sampling, influence variance"),
            _m("ppi", "closed_form", (), summary="PPI (lambda = 1), as ppi_py"),
            _m("ppi_plus_plus", "closed_form", (), summary="PPI++, as ppi_py"),
            _m("labels_only", "closed_form", (), summary="mean of the human labels"),
            _m("naive", "closed_form", (), summary="judge's rate, uncorrected"),
            _m("rogan_gladen", "closed_form", (), summary="labelled items as calibration"),
            _m("exact", "exact", ("draws",), summary="conjugate posterior draws"),
            _m("laplace", "laplace", ("draws", "importance"), summary="MAP + Laplace draws"),
            _m("nuts", "nuts", ("sampler",), mcmc=True, summary="NUTS with the gate"),
        ]
    ),
    "panel": dict(
        [
            _m("validator_mean", "votes", _PANEL_POINT, summary="mean of validator rates"),
            _m("best_individual", "votes", _PANEL_POINT, summary="best validator"),
            _m("majority", "votes", (*_PANEL_POINT, "threshold"), summary="majority vote"),
            _m("super_majority", "votes", (*_PANEL_POINT, "threshold"), summary="70% vote"),
            _m("veto", "votes", (*_PANEL_POINT, "threshold"), summary="minority veto"),
            _m("plug_in", "votes", _PANEL_POINT, summary="per-validator Rogan-Gladen"),
            _m("regression", "regression", (*_PANEL_POINT, "restarts"), summary="Jain et al."),
            _m(
                "nuts",
                "nuts",
                (*_PANEL_POINT, "variant", "sampler", "log_likelihood"),
                mcmc=True,
                summary="cell model, NUTS",
            ),
            _m(
                "nuts_items",
                "nuts",
                (*_PANEL_POINT, "difficulty", "sampler"),
                mcmc=True,
                summary="item-level Dawid-Skene model, NUTS",
            ),
        ]
    ),
    "ranking": dict(
        [
            _m(
                "naive",
                "newton",
                ("draws", "log_likelihood", "warn", "reference"),
                summary="plain BT",
            ),
            _m(
                "laplace",
                "newton",
                (
                    "prior",
                    "draws",
                    "position",
                    "log_likelihood",
                    "warn",
                    "theta",
                    "reference",
                    "theta_spread",
                ),
                summary="bias-aware BT, MAP + Laplace",
            ),
            _m(
                "nuts",
                "nuts",
                (
                    "prior",
                    "sampler",
                    "position",
                    "log_likelihood",
                    "warn",
                    "theta",
                    "reference",
                    "theta_spread",
                    "instance",
                ),
                mcmc=True,
                summary="bias-aware BT, NUTS",
            ),
            _m(
                "judge_error",
                "nuts",
                ("sampler", "reference", "warn"),
                mcmc=True,
                summary="BT on human preferences, judges as noisy channels, NUTS",
            ),
            _m(
                "ppi",
                "closed_form",
                ("draws", "reference", "power_tuning", "warn"),
                summary="prediction-powered BT (PPI++), sandwich",
            ),
        ]
    ),
}


def normalise_method(method: Any) -> Any:
    """``closed-form`` and ``closed_form`` are one method (CLI and API spellings)."""
    return method.replace("-", "_") if isinstance(method, str) else method


#: family -> method -> why it is not offered (a method users may expect, refused by name)
REFUSED: dict[str, dict[str, str]] = {
    "panel": {
        "laplace": (
            "Laplace is not offered for panels: the cell model is hierarchical (generator "
            "and validator populations with learned spreads), and a Gaussian at its mode "
            "was 2-3x too wide for g (sd 0.030-0.035 where the human labels alone give "
            "0.013-0.019) and failed the importance check (Pareto k-hat 4.9); use "
            "method='nuts' (cell model) or 'nuts_items' (item-level model)"
        )
    },
    "accuracy": {},
    "accuracy.items": {},
    "ranking": {},
}


def resolve(family: str, method: Any, options: Mapping[str, Any]) -> MethodSpec:
    """The spec of ``method`` in ``family``, after checking every keyword in ``options``.

    Raises
    ------
    InputError
        Unknown method (the message lists the family's methods) or a keyword the method
        does not take (the message lists the ones it does).
    """
    table = METHODS[family]
    name = normalise_method(method)
    if name in REFUSED.get(family, {}):
        raise InputError(REFUSED[family][name], field="method", value=method)
    if name not in table:
        raise InputError(
            f"method must be one of {tuple(table)}; got {method!r}", field="method", value=method
        )
    spec = table[name]
    bad = sorted(set(options) - set(spec.options))
    if bad:
        valid = ", ".join(("random_seed", *spec.options))
        raise InputError(
            f"method {name!r} takes no keyword {bad[0]!r}; it takes: {valid}",
            field=bad[0],
            value=options[bad[0]],
        )
    return spec


def describe(family: str) -> str:
    """One line per method of ``family``: name, engine, options."""
    return "\n".join(
        f"{s.name}: {s.summary} [{s.engine}] options: {', '.join(s.options) or '-'}"
        for s in METHODS[family].values()
    )
