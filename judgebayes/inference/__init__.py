"""Engines: they take validated containers and arrays, never user input.

Shared by every family: :mod:`~judgebayes.inference.nuts` (nutpie with a compile cache and
the convergence gate), :mod:`~judgebayes.inference.laplace` (MAP + Laplace, checked by
importance sampling), :mod:`~judgebayes.inference.registry` (sampler settings as data, the
shared argument checks), :mod:`~judgebayes.inference.executors` (serial, processes, Dask)
and :mod:`~judgebayes.inference.progress`.  Each family's own engines are in the
subpackage of its name: :mod:`~judgebayes.inference.accuracy` (closed forms, the exact
posterior, the items design, calibration planning), :mod:`~judgebayes.inference.panel`
(the agreeableness regression, votes) and :mod:`~judgebayes.inference.ranking` (the Newton
Bradley-Terry engine, top-k, predictive checks, baselines, prediction-powered BT).
"""
