"""The monitor family's inference: who drifted, the judge or the system
(:mod:`~judgebayes.inference.monitor.anchors`).
"""
