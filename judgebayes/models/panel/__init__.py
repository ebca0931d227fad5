r"""PyMC builders for generator x validator panels (never sample here).

Cell model (:func:`panel_cell_model`).  Generator precision and validator rates on the
logit scale, all non-centred:

.. math::
    \operatorname{logit} g_i &= \mu_g + \sigma_g z_i, \\
    \operatorname{logit} v^+_{ij} &= \mu_+ + \sigma_+ a_j + \omega_+ u_i + \tau_+ e_{ij}
        + \delta_+ s_{ij}, \\
    \operatorname{logit} v^-_{ij} &= \mu_- + \sigma_- b_j + \omega_- w_i + \tau_- f_{ij}
        + \delta_- s_{ij}, \\
    p_{ij} &= g_i v^+_{ij} + (1 - g_i)(1 - v^-_{ij}),

with :math:`z, a, b, u, w, e, f \sim N(0, 1)` (from 10 validators on, :math:`a` is
written centred, :math:`\operatorname{logit} v^+_j \sim N(\mu_+, \sigma_+^2)`: the data
pin each TPR and the spread is learned);
:math:`(\mu_\pm, \sigma_\pm)` are the panel's population of validators (so a panel
learns "validators are agreeable" and a new validator borrows strength);
:math:`\omega_\pm` and :math:`\tau_\pm` are the spreads
of the generator-level deviations of the validator rates (``rate_shift=True``): one
shared by all validators on a generator's outputs (its mistakes are easier or harder to
catch) and one per cell, learned from annotated generators, whose confusion counts
observe :math:`v^\pm_{ij}` directly; :math:`s_{ij}`
flags self-judgement (``self_shift=True``).  Priors: :math:`\mu_g \sim N(2, 1.5)`,
:math:`\mu_+ \sim N(2, 1.5)`, :math:`\mu_- \sim N(0, 1.5)`, :math:`\sigma \sim
\text{Half-}N(1)`, :math:`\omega, \tau \sim \text{Half-}N(0.5)`, :math:`\delta \sim N(0, 1)`.
With one generator there is no spread to learn: :math:`\operatorname{logit} g = \mu_g`, and
the item model drops the generator-level rate shifts (nothing to shift between).

Likelihood, each output counted once:

* human annotations: :math:`h_i \sim \text{Bin}(n^{ann}_i, g_i)`;
* verdicts on annotated outputs: :math:`tp_{ij} \sim \text{Bin}(tp_{ij} + fn_{ij},
  v^+_{ij})`, :math:`tn_{ij} \sim \text{Bin}(tn_{ij} + fp_{ij}, v^-_{ij})` (their true
  labels are known, so they inform the validator rates and nothing else);
* the remaining verdicts.  The V validators of generator :math:`i` judged the *same*
  :math:`N_i` unannotated outputs, so their counts are not V independent samples of
  :math:`g_i`: what they share is the realised share :math:`f_i` of valid outputs among
  those :math:`N_i`, and given it (and the validator rates) they are independent:

  .. math::
      N_i f_i \mid g_i \sim \text{Bin}(N_i, g_i)
      \quad\text{(as}\ \operatorname{logit} f_i = \operatorname{logit} g_i
      + \eta_i s_i,\ \eta_i \sim N(0, 1),\ s_i^2 = \tfrac{1}{N_i g_i + 1/2}
      + \tfrac{1}{N_i (1 - g_i) + 1/2}\text{: the empirical-logit normal with
      Haldane-Anscombe half counts, bounded as } g_i \to 0, 1\text{)},

      k_{ij} \mid f_i \sim \text{Bin}(n_{ij},\ f_i v^+_{ij} + (1 - f_i)(1 - v^-_{ij})),

  or Beta-Binomial with mean :math:`p_{ij}` and concentration :math:`\phi`
  (``overdispersion=True``, :math:`\log\phi \sim N(\log 50, 1.5)`) for dispersion within
  a validator.  However many validators there are, the verdicts can tell no more about
  :math:`g_i` than :math:`N_i` labelled outputs would (without this layer, agreeable
  validators claimed several times that information).
  :math:`N_i` is the largest number of unannotated outputs any validator judged (exact
  when every validator judged every output).

Reported: ``g``, the generator's precision (the process that produced the outputs), and
``precision_judged``, its share of valid outputs among the outputs in the panel (annotated
and judged: the finite population, :math:`(h_i + N_i f_i) / (n^{ann}_i + N_i)`).  The
assumption that remains: validators are independent given each output's true label (and,
in the item model, its difficulty).

Missing verdicts and missing cells need no imputation: they are absent from the counts.

Leniency model (:func:`panel_leniency_model`): a validator's judged rate on a generator's
outputs is their share valid shifted by the validator's leniency on the logit scale (plus
generator- and cell-level deviations), with no sensitivity or specificity; read on the
annotated generators and applied to the others.

Item-level model (:func:`panel_item_model`): the true label of each output
:math:`c_o \sim \text{Bernoulli}(g_{i(o)})` is summed out (Dawid-Skene), observed where a
human annotated it; verdict :math:`y_{oj}` has :math:`\Pr(y = 1 \mid c = 1) = v^+_{ij}`
and :math:`\Pr(y = 0 \mid c = 0) = \sigma(\operatorname{logit} v^-_{ij} - d_o)` with an
optional difficulty :math:`d_o \sim N(0, \sigma_d^2)` shared by all validators.
"""

from judgebayes.models.panel.cells import panel_cell_model as panel_cell_model
from judgebayes.models.panel.items import panel_item_model as panel_item_model
from judgebayes.models.panel.leniency import panel_leniency_model as panel_leniency_model
from judgebayes.models.panel.priors import CENTRED_TPR_MIN as CENTRED_TPR_MIN
from judgebayes.models.panel.priors import PanelPriors as PanelPriors
from judgebayes.models.panel.priors import panel_var_names as panel_var_names

__all__ = [
    "PanelPriors",
    "panel_cell_model",
    "panel_item_model",
    "panel_leniency_model",
    "panel_var_names",
]
