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
``board``
    a leaderboard: the one-parameter model of systems' abilities and items' difficulties.
"""

from judgebayes.simulate.sbc.result import SBCDataset as SBCDataset
from judgebayes.simulate.sbc.result import SBCResult as SBCResult
from judgebayes.simulate.sbc.study import PROBLEMS as PROBLEMS
from judgebayes.simulate.sbc.study import sbc_study as sbc_study

__all__ = ["PROBLEMS", "SBCDataset", "SBCResult", "sbc_study"]
