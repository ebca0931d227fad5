r"""The main job on bundled data (``judgebayes demo`` / ``make demo``), in three acts.

1. A biased judge, a few labels (the headline).  LLMBar's MT-Bench subset: 200 pairs, every
   one judged by each LLM judge that has verdicts on it, ``n_labels`` of them labelled by
   humans at random (the items design, "judge everything, label a few").  Per judge: the
   raw rate against the gold rate of the 200 pairs, and the corrected rate by the closed
   form, PPI++, Laplace, the exact posterior and NUTS.  Then the same over ``label_draws``
   random choices of the labelled pairs: how often each method's interval covers gold.
2. When correction does not pay.  One judge on every LLMBar subset with a small
   calibration part (``calibration_fraction`` of each gold class) and the rest as test
   set: closed form (Rogan-Gladen, Lang-Reiczigel), Laplace and the exact posterior of the
   Bayesian model against the test set's gold rate.  A nearly unbiased judge (GPT-4) and
   2-11 labels per class: the correction costs width and buys nothing.
3. Judge bias: every LLMBar judge's length and position coefficients on the five LLMBar
   subsets judged in both orders (:mod:`judgebayes.workflows.judge_bias`), and the
   cross-validated agreement with gold before and after correction.

A written report (markdown or HTML, figures as PNG) holds all three.
"""

from judgebayes.workflows.demo.result import DemoResult as DemoResult
from judgebayes.workflows.demo.run import label_a_few_items as label_a_few_items
from judgebayes.workflows.demo.run import run_accuracy_demo as run_accuracy_demo
from judgebayes.workflows.demo.run import run_demo as run_demo
from judgebayes.workflows.demo.run import run_label_a_few as run_label_a_few
from judgebayes.workflows.demo.text import LABEL_A_FEW_SUBSET as LABEL_A_FEW_SUBSET
from judgebayes.workflows.demo.text import demo_text as demo_text
from judgebayes.workflows.demo.text import headline as headline

__all__ = [
    "DemoResult",
    "demo_text",
    "headline",
    "label_a_few_items",
    "run_accuracy_demo",
    "run_demo",
    "run_label_a_few",
]
