"""Pure PyMC model builders and their priors (frozen dataclasses), one module per family:
:mod:`~.accuracy` (binary, batched, pooled strata, K-class and the items design's models),
:mod:`~.panel` (the cell and item-level models) and :mod:`~.ranking` (Bradley-Terry: naive
and bias-aware; a judge as a noisy channel of the human outcome).
Builders never sample.
"""
