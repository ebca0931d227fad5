"""The repeats family's engine: :mod:`~.closed_form` (the nested analysis of variance and
its intervals).
"""
