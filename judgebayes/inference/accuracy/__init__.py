"""The accuracy family's engines: :mod:`~.closed_form` (Rogan-Gladen, Lang-Reiczigel, PPI
and the other estimators practitioners use, vectorised), :mod:`~.exact` (the binary model's
posterior by quadrature), :mod:`~.items` (the items design: double sampling, PPI / PPI++,
the conjugate posterior, label allocation) and :mod:`~.design` (calibration planning).
"""
