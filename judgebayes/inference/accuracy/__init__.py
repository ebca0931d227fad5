"""The accuracy family's engines: :mod:`~.closed_form` (Rogan-Gladen, Lang-Reiczigel, PPI
and the other estimators practitioners use, vectorised), :mod:`~.exact` (the binary model's
posterior by quadrature) and :mod:`~.design` (calibration planning).  The items design's
engines are :mod:`judgebayes.inference.items`.
"""
