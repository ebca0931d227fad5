"""The leaderboard family's engines, in numpy.

* the closed forms: :mod:`~.paired` (means paired by item, their cluster-robust
  covariance, bounded intervals, the item bootstrap), :mod:`~.judged` (a judge corrected
  by a few labels), :mod:`~.adjusted` (a judge's pull towards a covariate taken out);
* :mod:`~.ranks` (claims that hold for every system at once: the step-down over all
  pairs, rank intervals, tiers, the best, P(top k)) and :mod:`~.table` (the one table);
* the Bayesian models' answers from their draws: :mod:`~.posterior` (the estimands,
  simultaneous rank intervals) and :mod:`~.new_system` (a system not on the board);
* the Laplace fit for large boards: :mod:`~.field` (the latent field given the spreads),
  :mod:`~.items` (the items integrated out, with a judge) and :mod:`~.laplace`.
"""
