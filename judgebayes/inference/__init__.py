"""Inference engines: closed form (numpy), calibration design, and later Laplace, NUTS, exact.

Engines never parse user input: they take validated arrays or containers from
:mod:`judgebayes.data.accuracy`.
"""
