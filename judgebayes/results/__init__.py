r"""The one result contract of every family and method, the comparison table, and plots.

Every fit — closed form, exact, Laplace, NUTS, the panel regression and votes, Newton MAP
— is a :class:`Fit` (or a family's subclass of it: ``AccuracyFit``, ``PanelFit``,
``RankingFit``, which add summaries and never rename a member) holding an
``arviz.InferenceData`` with a ``posterior`` group.  A point method's posterior has one
chain and one draw (one atom); it may carry its own frequentist interval
(Lang-Reiczigel, delta method), which :meth:`Fit.interval` returns for either ``kind``;
a point method without an interval gives NaN there and says why in :attr:`Fit.notes`.
Sampling methods (Laplace, exact, NUTS) report the posterior mean and an equal-tailed or
HDI interval of their draws.

>>> fit = study.fit("nuts", random_seed=0)
>>> fit.method, fit.family, fit.quantity, fit.unit
('nuts', 'accuracy', 'theta', 'system')
>>> fit.interval(alpha=0.05, kind="hdi")  # DataFrame indexed by the unit
>>> compare([fit_a, fit_b])  # one tidy table
"""

from judgebayes.results.compare import COMPARISON_COLUMNS as COMPARISON_COLUMNS
from judgebayes.results.compare import compare as compare
from judgebayes.results.compare import interval_summary as interval_summary
from judgebayes.results.fit import FIT_CLASSES as FIT_CLASSES
from judgebayes.results.fit import KINDS as KINDS
from judgebayes.results.fit import SAVED_ALPHAS as SAVED_ALPHAS
from judgebayes.results.fit import Fit as Fit
from judgebayes.results.fit import IntervalFn as IntervalFn
from judgebayes.results.fit import saved_interval as saved_interval
from judgebayes.results.plots import plot_check as plot_check
from judgebayes.results.plots import plot_forest as plot_forest
from judgebayes.results.plots import plot_intervals as plot_intervals
from judgebayes.results.plots import plot_ranks as plot_ranks
from judgebayes.results.trees import LazyTree as LazyTree
from judgebayes.results.trees import check_alpha as check_alpha
from judgebayes.results.trees import lazy_tree as lazy_tree
from judgebayes.results.trees import point_tree as point_tree
from judgebayes.results.trees import stamp as stamp
from judgebayes.results.trees import to_attrs as to_attrs
from judgebayes.results.trees import to_json as to_json
from judgebayes.results.trees import tree as tree

__all__ = [
    "COMPARISON_COLUMNS",
    "FIT_CLASSES",
    "KINDS",
    "SAVED_ALPHAS",
    "Fit",
    "LazyTree",
    "check_alpha",
    "compare",
    "interval_summary",
    "lazy_tree",
    "plot_check",
    "plot_forest",
    "plot_intervals",
    "plot_ranks",
    "point_tree",
    "saved_interval",
    "stamp",
    "to_attrs",
    "to_json",
    "tree",
]
