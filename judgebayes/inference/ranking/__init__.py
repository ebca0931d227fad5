"""The ranking family's engines: :mod:`~.newton` (Bradley-Terry MAP + Laplace by Newton's
method with the exact Hessian), :mod:`~.topk` (identification, top-k, rank intervals,
tiers), :mod:`~.checks` (posterior predictive checks of verdicts), :mod:`~.baselines`
(win counts, order swap, residualisation) and :mod:`~.ppi` (prediction-powered BT).
"""
