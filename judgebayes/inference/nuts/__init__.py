r"""NUTS engine: nutpie with a compile cache and data swapping, and a convergence gate.

A :class:`ModelSpec` names a builder from :mod:`judgebayes.models`, its data arguments
and its structural arguments.  Models with the same structure (builder, structural
arguments, data shapes) are compiled once per process; a later fit swaps the data in
(nutpie's ``with_data``) instead of compiling again.  nutpie compiles the model with the
data of each dtype packed into one vector (its wrapper costs a compile time per data
variable); the model a fit reports is the one built.

After every fit :func:`convergence_diagnostics` runs the gate on every free variable of
the model (hyperparameters and non-centred offsets included, not only the reported
quantities): R-hat <= 1.01, bulk and tail ESS >= 400 (ArviZ, rank-normalised), no
divergent transition, E-BFMI >= 0.3 in every chain (below it the momentum resampling
cannot move the sampler across the energy levels of the posterior: a heavy tail or a
funnel), and at most 1% of the draws at the maximum tree depth (above it the trajectories
are cut short and the chain explores too slowly for its ESS to be trusted).  A fit that
fails emits a :class:`ConvergenceWarning` that lists the numbers, the worst variable and a
hint, and the diagnostics are stored on the result.
"""

from judgebayes.inference.nuts.compile import clear_compile_cache as clear_compile_cache
from judgebayes.inference.nuts.gate import BFMI_MIN as BFMI_MIN
from judgebayes.inference.nuts.gate import ESS_MIN as ESS_MIN
from judgebayes.inference.nuts.gate import MAX_DEPTH_SHARE as MAX_DEPTH_SHARE
from judgebayes.inference.nuts.gate import R_HAT_MAX as R_HAT_MAX
from judgebayes.inference.nuts.gate import Diagnostics as Diagnostics
from judgebayes.inference.nuts.gate import check_convergence as check_convergence
from judgebayes.inference.nuts.gate import convergence_diagnostics as convergence_diagnostics
from judgebayes.inference.nuts.predictive import add_log_likelihood as add_log_likelihood
from judgebayes.inference.nuts.predictive import (
    add_posterior_predictive as add_posterior_predictive,
)
from judgebayes.inference.nuts.predictive import add_prior as add_prior
from judgebayes.inference.nuts.predictive import batched_function as batched_function
from judgebayes.inference.nuts.predictive import vectorisable as vectorisable
from judgebayes.inference.nuts.sampling import sample_nuts as sample_nuts
from judgebayes.inference.nuts.spec import ModelSpec as ModelSpec
from judgebayes.inference.nuts.spec import interpreted as interpreted
from judgebayes.inference.nuts.spec import quiet_engine_warnings as quiet_engine_warnings

__all__ = [
    "BFMI_MIN",
    "ESS_MIN",
    "MAX_DEPTH_SHARE",
    "R_HAT_MAX",
    "Diagnostics",
    "ModelSpec",
    "add_log_likelihood",
    "add_posterior_predictive",
    "check_convergence",
    "clear_compile_cache",
    "convergence_diagnostics",
    "interpreted",
    "quiet_engine_warnings",
    "sample_nuts",
]
