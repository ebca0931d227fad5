"""The only code that reads frames, files and labels: each family's validated containers
(:mod:`~.accuracy` and :mod:`~.items`, :mod:`~.panel`, :mod:`~.ranking`: pairs and the judge
channel), the frame door (:mod:`~.frames`), eval-tool logs (:mod:`~.logs`) and large logs
reduced to counts (:mod:`~.large`).
"""
