"""Analyses of many fits, built from studies: the split protocol, invariance, judge bias,
source rankings, the active loop, the CI gate on claims and the demo.
"""
