"""The agreement family's engine: :mod:`~.coefficients` (Cohen's and Fleiss' kappas,
Krippendorff's alpha, Gwet's AC1 / AC2, their item terms and linearised variances).
"""
