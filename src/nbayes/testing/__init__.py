"""scikit-learn's own tools around a classifier: the ecosystem conformance suite.

Users meet a classifier through scikit-learn's meta-estimators, model-selection helpers and
displays as much as through its own methods, and those tools read the classifier's API with
conventions of their own (``CalibratedClassifierCV`` prefers ``decision_function`` to
``predict_proba`` and fits one calibrator per column; ``OneVsOneClassifier`` votes with
``decision_function``; the displays rank rows by one column). An estimator can pass
scikit-learn's API checks and still give a silently wrong model inside one of them. This
module runs every such tool (:data:`WRAPPERS`) around an estimator and around a reference
(scikit-learn's corresponding naive Bayes, or, where there is none, the same estimator seen
through its ``predict_proba`` alone: :class:`ProbaOnly`) on the same split, and compares their
accuracy and log-loss (the displays: their ROC AUC, average precision or Brier score) within
:data:`TOLERANCE`.

Like scikit-learn's ``parametrize_with_checks``, the checks are plain functions that a third
party runs on its own estimator: :func:`check_ecosystem` runs them all and raises on the first
comparison that fails; :func:`ecosystem_checks` yields them one by one for
``pytest.mark.parametrize``. The nbayes test suite runs them over every registered estimator
on real data (``tests/test_ecosystem.py``).

Examples
--------
>>> import numpy as np
>>> from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB
>>> from nbayes import MultinomialNB
>>> from nbayes.testing import Split, check_ecosystem
>>> rng = np.random.default_rng(0)
>>> y = np.repeat(["a", "b", "c"], 40)
>>> X = rng.poisson(1.0, (120, 6)) + 3 * (y[:, None] == np.array(["a", "b", "c"] * 2))
>>> data = Split(X[::2], y[::2], X[1::2], y[1::2])
>>> done = check_ecosystem(MultinomialNB(), data, SkMultinomialNB(), wrappers=["stacking"])
>>> [c.wrapper for c in done]
['stacking']
"""

from ._checks import (
    check_decision_function,
    check_ecosystem,
    check_wrapper,
    ecosystem_checks,
    run_wrapper,
)
from ._compare import GAINS as GAINS
from ._compare import TOLERANCE, Comparison, Outcome, Tolerance
from ._data import Split
from ._reference import ProbaOnly
from ._runners import Runner as Runner
from ._wrappers import WRAPPERS, Wrapper, applicable_wrappers

__all__ = [
    "TOLERANCE",
    "WRAPPERS",
    "Comparison",
    "Outcome",
    "ProbaOnly",
    "Split",
    "Tolerance",
    "Wrapper",
    "applicable_wrappers",
    "check_decision_function",
    "check_ecosystem",
    "check_wrapper",
    "ecosystem_checks",
    "run_wrapper",
]
