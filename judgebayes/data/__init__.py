"""The only code that reads frames, files and labels: each family's validated containers
and readers (:mod:`~.accuracy` and :mod:`~.items`, :mod:`~.scores`, :mod:`~.panel`,
:mod:`~.ranking`: pairs and the judge channel, :mod:`~.leaderboard`, :mod:`~.repeats`,
:mod:`~.monitor`, :mod:`~.ratings`), the frame door (:mod:`~.frames`), eval-tool logs
(:mod:`~.logs`) and large logs reduced to counts (:mod:`~.large`).
"""
