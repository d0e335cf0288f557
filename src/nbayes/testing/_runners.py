"""How the ecosystem suite runs each of scikit-learn's meta-estimators and model-selection
helpers around a classifier: a runner fits the tool on the training rows of a split and
returns its :class:`~nbayes.testing.Outcome` on the test rows."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.special import expit, softmax
from sklearn.base import clone

from ._compare import Outcome, _scored
from ._data import Split, _dense, _table

#: A tool as the suite runs it: ``run(estimator, split, cv, random_state)`` fits and scores.
Runner = Callable[[Any, Split, int, int], Outcome]


def _fit_predict(name: str, make: Callable) -> Runner:
    """A meta-estimator fitted on the training rows and scored on the test rows."""

    def run(estimator, split: Split, cv: int, seed: int) -> Outcome:
        model = make(clone(estimator), cv, seed).fit(split.X_train, split.y_train)
        proba = model.predict_proba(split.X_test) if hasattr(model, "predict_proba") else None
        return _scored(name, split.y_test, model.predict(split.X_test), proba, model.classes_)

    return run


def _calibrated(method: str, ensemble: bool) -> Runner:
    from sklearn.calibration import CalibratedClassifierCV

    return _fit_predict(
        f"calibrated-{method}",
        lambda est, cv, seed: CalibratedClassifierCV(est, method=method, cv=cv, ensemble=ensemble),
    )


def _stacking(stack_method: str) -> Runner:
    def make(est, cv, seed):
        from sklearn.ensemble import StackingClassifier

        # The reference may lack decision_function: it falls back to scikit-learn's own choice.
        method = stack_method if hasattr(est, stack_method) else "auto"
        # scikit-learn's default final estimator, a logistic regression, as a user gets it.
        return StackingClassifier([("nb", est)], cv=cv, stack_method=method)

    return _fit_predict(f"stacking-{stack_method}", make)


def _voting(voting: str) -> Runner:
    def make(est, cv, seed):
        from sklearn.ensemble import VotingClassifier

        return VotingClassifier([("nb", est)], voting=voting)

    return _fit_predict(f"voting-{voting}", make)


def _one_vs_rest(est, cv, seed):
    from sklearn.multiclass import OneVsRestClassifier

    return OneVsRestClassifier(est)


def _one_vs_one(est, cv, seed):
    from sklearn.multiclass import OneVsOneClassifier

    return OneVsOneClassifier(est)


def _tuned_threshold(est, cv, seed):
    from sklearn.model_selection import TunedThresholdClassifierCV

    return TunedThresholdClassifierCV(est, cv=cv, random_state=seed)


def _fixed_threshold(est, cv, seed):
    from sklearn.model_selection import FixedThresholdClassifier

    return FixedThresholdClassifier(est)


def _bagging(est, cv, seed):
    from sklearn.ensemble import BaggingClassifier

    return BaggingClassifier(est, n_estimators=5, random_state=seed)


def _on_table(runner: Runner) -> Runner:
    """A runner that gets raw text as a one-column DataFrame (the tool needs a 2-d X)."""

    def run(estimator, split: Split, cv: int, seed: int) -> Outcome:
        if split.is_text:
            split = Split(
                _table(split.X_train), split.y_train, _table(split.X_test), split.y_test, split.name
            )
        return runner(estimator, split, cv, seed)

    return run


def _self_training(estimator, split: Split, cv: int, seed: int) -> Outcome:
    """SelfTrainingClassifier with half of the training labels hidden (-1), the same half for
    the estimator and its reference; labels are coded 0..K-1 so that -1 is free."""
    from sklearn.semi_supervised import SelfTrainingClassifier

    classes = split.classes
    codes = np.searchsorted(classes, np.asarray(split.y_train))
    rng = np.random.default_rng(seed)
    hidden = rng.uniform(size=len(codes)) < 0.5
    hidden[[int(np.argmax(codes == k)) for k in range(len(classes))]] = False  # every class kept
    model = SelfTrainingClassifier(clone(estimator)).fit(split.X_train, np.where(hidden, -1, codes))
    pred = classes[model.predict(split.X_test)]
    return _scored("self-training", split.y_test, pred, model.predict_proba(split.X_test), classes)


def _cross_val_predict(method: str) -> Runner:
    """Out-of-fold predictions of the training rows. A reference without ``method`` (the
    naive Bayes of scikit-learn have no decision_function) gives its log posterior, or its
    posterior (``ProbaOnly``)."""

    def run(estimator, split: Split, cv: int, seed: int) -> Outcome:
        from sklearn.model_selection import StratifiedKFold, cross_val_predict

        folds = StratifiedKFold(cv, shuffle=True, random_state=seed)
        used = method
        for fallback in ("predict_log_proba", "predict_proba"):  # the reference's nearest
            if not hasattr(estimator, used):
                used = fallback
        got = cross_val_predict(
            clone(estimator), split.X_train, split.y_train, cv=folds, method=used
        )
        y, classes = split.y_train, split.classes
        name = f"cross_val_predict-{method}"
        if used == "predict":
            return _scored(name, y, got)
        if used == "decision_function" and got.ndim == 1:  # two classes: the log-odds
            proba = expit(got)
            proba = np.column_stack([1 - proba, proba])
        elif used == "predict_log_proba":
            proba = softmax(got, axis=1)
        else:  # predict_proba, or decision_function of more classes: the posterior
            proba = got
        return _scored(name, y, classes[np.argmax(proba, axis=1)], proba, classes)

    return run


def _permutation_importance(estimator, split: Split, cv: int, seed: int) -> Outcome:
    """permutation_importance on the test rows: it runs, gives one finite importance per
    column, and its baseline is the model's accuracy (reported with its log-loss)."""
    from sklearn.inspection import permutation_importance

    X_train, X_test = _table(split.X_train), _table(split.X_test)
    # permutation_importance permutes dense columns; a sparse matrix is made dense, and its
    # columns are capped so that a vocabulary does not make the check slow.
    if sp.issparse(X_test):
        keep = np.argsort(-np.asarray(X_train.sum(axis=0)).ravel(), kind="stable")[:40]
        X_train, X_test = _dense(X_train[:, keep]), _dense(X_test[:, keep])
    model = clone(estimator).fit(X_train, split.y_train)
    result = permutation_importance(
        model, X_test, split.y_test, n_repeats=2, random_state=seed, scoring="accuracy"
    )
    n_columns = X_test.shape[1]
    if result.importances_mean.shape != (n_columns,) or not np.all(
        np.isfinite(result.importances_mean)
    ):
        raise AssertionError(f"permutation_importance gave {result.importances_mean!r}")
    proba = model.predict_proba(X_test)
    return _scored(
        "permutation_importance", split.y_test, model.predict(X_test), proba, model.classes_
    )
