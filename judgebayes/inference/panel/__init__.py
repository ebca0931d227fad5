"""The panel family's engines: :mod:`~.regression` (Jain et al.'s agreeableness regression),
:mod:`~.ensembles` (validator mean, votes, per-validator Rogan-Gladen) and :mod:`~.leniency`
(the slope test behind check ``leniency`` and the default Bayesian model).
"""
