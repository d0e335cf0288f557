"""The pure core of the semi-naive Bayesian classifiers (AODE, A2DE, TAN, KDB, JointBayes).

Functions over integer code matrices (n_rows x n_features, codes 0 .. K_j - 1, -1 missing) and
:class:`~nbayes.distributions.Labels`, in the library's accumulate -> merge -> finalize shape:

* :mod:`._counts` -- additive count tables of orders 1, 2, 3 per class (accumulate, merge,
  subtract, re-layout for other vocabularies), memory bounds, I(X; Y) and I(X_i; X_j | Y);
* :mod:`._structure` -- TAN's maximum spanning tree and KDB's parents from those measures;
* :mod:`.network` -- conditional tables and scoring of TAN / KDB, with missing parents summed
  out exactly;
* :mod:`.aode` -- averaged n-dependence estimators with their fallback to naive Bayes;
* :mod:`.joint` -- whole-vector counts with backoff.
* :mod:`._feature_terms` -- AODE's and the full joint's scores split into per-feature terms
  (``explain``).

The estimators in :mod:`nbayes.estimators.seminaive` wrap them.
"""
