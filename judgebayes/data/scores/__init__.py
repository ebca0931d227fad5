r"""Judges that give scores: one frame, every item scored, some rated by humans.

The scores design is the items design (:mod:`judgebayes.data.items`) with a number where
the verdict was: a judge's 1-10 grade, a probability-weighted grade from its logprobs, a
reward model's score.  The human label of a labelled row is 0/1, a Likert level or a
number (several raters' columns are averaged); a blank human label means *unlabelled*.
The quantity is each system's mean human label (a pass rate when the labels are 0/1, or
when ``threshold=`` turns Likert levels into passes).

Rows without a score from every judge are not evaluated items: they are counted per
system in ``n_missing`` and reported by every fit, never dropped silently.  A score
outside the declared ``scale`` (an error code averaged into a grade) is an error that
names it: blank it, and it is counted as missing.

With ``time=`` (a period or timestamp column, ``freq=`` to bucket timestamps) every
(system, period) that has rows needs 2 labelled rows or more: the closed form calibrates
within each period, since a judge's score can mean something else after a version change.
"""

from judgebayes.data.scores.data import ScoreData as ScoreData
from judgebayes.data.scores.frame import scores_from_frame as scores_from_frame
from judgebayes.data.scores.roles import ScoreRoles as ScoreRoles
from judgebayes.data.scores.roles import observed_scale as observed_scale
from judgebayes.data.scores.roles import require_in_scale as require_in_scale

__all__ = ["ScoreData", "ScoreRoles", "scores_from_frame"]
