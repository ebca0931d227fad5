"""Studies: validated data and priors in, a complete ``Fit`` out; no fit state kept.

:mod:`~.base` (the one ``fit`` / ``compare`` / ``check`` contract and the method and check
tables), one module per family (:mod:`~.accuracy` with :mod:`~.items` for the items design,
:mod:`~.panel`, :mod:`~.ranking`) and :mod:`~.archive` (a saved fit read back).
"""
