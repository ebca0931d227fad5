"""The panel family's engines: :mod:`~.regression` (Jain et al.'s agreeableness regression)
and :mod:`~.ensembles` (validator mean, votes, per-validator Rogan-Gladen).
"""
