"""Pure PyMC model builders, one module per model family; builders never sample.

(The accuracy, panel and Bradley-Terry builders land with their issues; this package is
kept empty until then so that nothing here pretends to be a model.)
"""
