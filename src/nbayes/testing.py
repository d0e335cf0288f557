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

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from scipy.special import expit, softmax
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.metrics import (
    accuracy_score,
    average_precision_score,
    brier_score_loss,
    confusion_matrix,
    log_loss,
    roc_auc_score,
)
from sklearn.utils.validation import check_is_fitted

from ._engine import DECISION_BOUND, bound_decision

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


# -- data and results --------------------------------------------------------------------------
@dataclass(frozen=True)
class Split:
    """A train / test split that the suite fits and scores on.

    Parameters
    ----------
    X_train, X_test : array-like, sparse matrix, DataFrame, or 1-d sequence of texts
        The samples. A 1-d sequence is raw text (one document per row); tools that need a
        2-d table get it as a one-column DataFrame named ``text``.
    y_train, y_test : array-like of shape (n_samples,)
        The labels (any type the estimator takes).
    name : str, default ""
        A name for messages and tables.

    Examples
    --------
    >>> from nbayes.testing import Split
    >>> Split([[0, 1], [1, 0]], ["a", "b"], [[1, 1]], ["a"]).n_classes
    2
    """

    X_train: Any
    y_train: Any
    X_test: Any
    y_test: Any
    name: str = ""

    @property
    def classes(self) -> np.ndarray:
        """The sorted labels of the training rows."""
        return np.unique(np.asarray(self.y_train))

    @property
    def n_classes(self) -> int:
        """How many classes the training rows hold."""
        return len(self.classes)

    @property
    def is_text(self) -> bool:
        """Whether X is raw text: a 1-d sequence of documents."""
        return _is_text(self.X_train)

    @property
    def has_strings(self) -> bool:
        """Whether X holds strings (raw text, a DataFrame column of text or categories, an
        object array): tools that convert X to numbers refuse it."""
        X = self.X_train
        if self.is_text:
            return True
        if isinstance(X, pd.DataFrame):
            return not all(pd.api.types.is_numeric_dtype(t) for t in X.dtypes)
        return not sp.issparse(X) and np.asarray(X).dtype.kind in "OUS"


def _is_text(X) -> bool:
    if isinstance(X, pd.DataFrame) or sp.issparse(X):
        return False
    return np.ndim(np.asarray(X, dtype=object)) == 1


def _table(X):
    """X as a 2-d table: raw text becomes a one-column DataFrame named ``text``."""
    if _is_text(X):
        return pd.DataFrame({"text": np.asarray(X, dtype=object)})
    return X


def _dense(X):
    return X.toarray() if sp.issparse(X) else X


@dataclass
class Outcome:
    """What one tool achieved around one estimator: its metrics on the test rows (or, for
    ``cross_val_predict``, on the out-of-fold predictions of the training rows).

    Parameters
    ----------
    wrapper : str
        The tool's name in :data:`WRAPPERS`.
    metrics : dict of str to float
        ``accuracy``, ``log_loss``, ``roc_auc``, ``average_precision`` or ``brier``; a tool
        without probabilities has no ``log_loss``.

    Examples
    --------
    >>> from nbayes.testing import Outcome
    >>> Outcome("voting-hard", {"accuracy": 0.9}).metrics["accuracy"]
    0.9
    """

    wrapper: str
    metrics: dict[str, float] = field(default_factory=dict)


#: Metrics where higher is better; the others (log_loss, brier) are losses.
GAINS = frozenset({"accuracy", "roc_auc", "average_precision"})


@dataclass(frozen=True)
class Tolerance:
    """How much worse than its reference a tool around the estimator may do.

    Parameters
    ----------
    gain : float, default 0.02
        A gain (accuracy, ROC AUC, average precision) may fall short of the reference's by
        at most this much (absolute).
    loss_ratio : float, default 0.10
        A loss (log-loss, Brier score) may exceed the reference's by this share of it...
    loss_abs : float, default 0.02
        ... plus this much.

    Examples
    --------
    >>> from nbayes.testing import Tolerance
    >>> Tolerance().allows("accuracy", 0.80, 0.81), Tolerance().allows("log_loss", 0.5, 0.4)
    (True, False)
    """

    gain: float = 0.02
    loss_ratio: float = 0.10
    loss_abs: float = 0.02

    def allows(self, metric: str, got: float, reference: float) -> bool:
        """Whether ``got`` is no worse than ``reference`` beyond the tolerance.

        Parameters
        ----------
        metric : str
            A key of :attr:`Outcome.metrics`; those in :data:`GAINS` are better higher.
        got : float
            The estimator's value.
        reference : float
            The reference's value.

        Returns
        -------
        bool
            True when ``got`` is within the tolerance.

        Examples
        --------
        >>> from nbayes.testing import Tolerance
        >>> Tolerance(gain=0.0).allows("roc_auc", 0.9, 0.91)
        False
        """
        if metric in GAINS:
            return bool(got >= reference - self.gain)
        return bool(got <= reference * (1 + self.loss_ratio) + self.loss_abs)


#: The tolerance of :func:`check_ecosystem` unless told otherwise: 2 points of accuracy (or
#: AUC, average precision), 10 % + 0.02 of log-loss (or Brier score).
TOLERANCE = Tolerance()


@dataclass
class Comparison:
    """A tool around the estimator against the same tool around the reference.

    Parameters
    ----------
    wrapper : str
        The tool's name in :data:`WRAPPERS`.
    outcome : Outcome
        The tool around the estimator.
    reference : Outcome
        The tool around the reference.
    tolerance : Tolerance, default TOLERANCE
        How much worse the estimator may do.

    Examples
    --------
    >>> from nbayes.testing import Comparison, Outcome
    >>> c = Comparison("stacking", Outcome("stacking", {"accuracy": 0.9}),
    ...                Outcome("stacking", {"accuracy": 0.95}))
    >>> c.failures()
    ['accuracy 0.9 against 0.95']
    """

    wrapper: str
    outcome: Outcome
    reference: Outcome
    tolerance: Tolerance = TOLERANCE

    def failures(self) -> list[str]:
        """The metrics on which the estimator does worse than the reference allows.

        Returns
        -------
        list of str
            One ``"metric got against reference"`` per failing metric; empty when none.

        Examples
        --------
        >>> from nbayes.testing import Comparison, Outcome
        >>> same = Outcome("x", {"log_loss": 0.3})
        >>> Comparison("x", same, same).failures()
        []
        """
        out = []
        for metric, got in self.outcome.metrics.items():
            ref = self.reference.metrics.get(metric)
            if ref is not None and not self.tolerance.allows(metric, got, ref):
                out.append(f"{metric} {got:.4g} against {ref:.4g}")
        return out


# -- the reference for estimators scikit-learn has no counterpart of ---------------------------
class ProbaOnly(ClassifierMixin, BaseEstimator):
    """A classifier seen through ``predict_proba`` alone: scikit-learn's tools then read its
    probabilities where they would read ``decision_function``. The reference of the
    ecosystem suite for an estimator that scikit-learn has no counterpart of.

    Parameters
    ----------
    estimator : classifier with ``predict_proba``
        The model; ``fit`` fits a clone of it.

    Examples
    --------
    >>> from nbayes import GaussianNB
    >>> from nbayes.testing import ProbaOnly
    >>> model = ProbaOnly(GaussianNB()).fit([[0.0], [0.2], [2.0], [2.2]], [0, 0, 1, 1])
    >>> hasattr(model, "decision_function"), model.predict([[2.1]]).tolist()
    (False, [1])
    """

    def __init__(self, estimator=None):
        self.estimator = estimator

    def fit(self, X, y, sample_weight=None):
        """Fit a clone of ``estimator``.

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or texts
            Whatever ``estimator`` takes.
        y : array-like of shape (n_samples,)
            The labels.
        sample_weight : array-like of shape (n_samples,), optional
            Passed on when given.

        Returns
        -------
        self
            The fitted shell.

        Examples
        --------
        >>> from nbayes import GaussianNB
        >>> from nbayes.testing import ProbaOnly
        >>> ProbaOnly(GaussianNB()).fit([[0.0], [1.0]], [0, 1]).classes_.tolist()
        [0, 1]
        """
        kwargs = {} if sample_weight is None else {"sample_weight": sample_weight}
        self.estimator_ = clone(self.estimator).fit(X, y, **kwargs)
        self.classes_ = self.estimator_.classes_
        return self

    def predict_proba(self, X) -> np.ndarray:
        """``estimator_.predict_proba(X)``.

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or texts
            Whatever ``estimator`` takes.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            The posterior of every class.

        Examples
        --------
        >>> from nbayes import GaussianNB
        >>> from nbayes.testing import ProbaOnly
        >>> model = ProbaOnly(GaussianNB()).fit([[0.0], [0.5], [3.0], [3.5]], [0, 0, 1, 1])
        >>> model.predict_proba([[0.2]]).round(2)
        array([[1., 0.]])
        """
        check_is_fitted(self, "estimator_")
        return self.estimator_.predict_proba(X)

    def predict(self, X) -> np.ndarray:
        """The class of highest probability.

        Parameters
        ----------
        X : array-like, sparse matrix, DataFrame or texts
            Whatever ``estimator`` takes.

        Returns
        -------
        ndarray of shape (n_samples,)
            One of ``classes_`` per row.

        Examples
        --------
        >>> from nbayes import GaussianNB
        >>> from nbayes.testing import ProbaOnly
        >>> model = ProbaOnly(GaussianNB()).fit([[0.0], [0.5], [3.0], [3.5]], [0, 0, 1, 1])
        >>> model.predict([[3.2]]).tolist()
        [1]
        """
        return self.classes_[np.argmax(self.predict_proba(X), axis=1)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags = clone(self.estimator).__sklearn_tags__().input_tags
        return tags


# -- the tools ---------------------------------------------------------------------------------
Runner = Callable[[Any, Split, int, int], Outcome]


@dataclass(frozen=True)
class Wrapper:
    """One of scikit-learn's tools that take a classifier, as the suite runs it.

    Parameters
    ----------
    name : str
        Its key in :data:`WRAPPERS`.
    run : callable
        ``run(estimator, split, cv, random_state)`` fits, scores and returns an
        :class:`Outcome`.
    classes : {"any", "binary", "multiclass"}, default "any"
        For which numbers of classes the tool is defined.
    table : bool, default False
        Whether it needs a 2-d X (raw text is then passed as a one-column DataFrame).
    numbers_only : bool, default False
        Whether scikit-learn converts X to numbers first (so it refuses text and
        categories written as strings).
    two_columns : bool, default False
        Whether it draws over two numeric columns (not for text or category codes).

    Examples
    --------
    >>> from nbayes.testing import WRAPPERS
    >>> WRAPPERS["tuned-threshold"].classes
    'binary'
    """

    name: str
    run: Runner
    classes: str = "any"
    table: bool = False
    numbers_only: bool = False
    two_columns: bool = False

    def applies(
        self, n_classes: int, text: bool = False, numeric: bool = True, strings: bool = False
    ) -> bool:
        """Whether the tool is defined for such data.

        Parameters
        ----------
        n_classes : int
            How many classes the data hold.
        text : bool, default False
            Whether X is raw text.
        numeric : bool, default True
            Whether the columns are continuous (False: counts, presence or category codes,
            where a grid between values means nothing).
        strings : bool, default False
            Whether X holds strings (see :attr:`Split.has_strings`).

        Returns
        -------
        bool
            True when the tool runs on such data.

        Examples
        --------
        >>> from nbayes.testing import WRAPPERS
        >>> WRAPPERS["display-calibration"].applies(3)
        False
        """
        if self.classes == "binary" and n_classes != 2:
            return False
        if self.classes == "multiclass" and n_classes < 3:
            return False
        if self.numbers_only and (strings or text):
            return False
        return not (self.two_columns and (text or not numeric))


def _scored(name: str, y, pred, proba=None, classes=None) -> Outcome:
    metrics = {"accuracy": float(accuracy_score(y, pred))}
    if proba is not None:
        metrics["log_loss"] = float(log_loss(y, proba, labels=classes))
    return Outcome(name, metrics)


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
        if used == "decision_function" and got.ndim == 1:
            proba = expit(got)
            proba = np.column_stack([1 - proba, proba])
        elif used in ("decision_function", "predict_log_proba"):
            proba = softmax(got, axis=1)
        else:
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


def _pyplot():
    try:
        import matplotlib
    except ImportError as exc:  # pragma: no cover - the test extra installs it
        raise ImportError(
            "The displays of the ecosystem suite need matplotlib: pip install 'nbayes[plot]'"
        ) from exc
    if matplotlib.get_backend().lower() not in ("agg", "pdf", "svg", "ps", "cairo", "template"):
        matplotlib.use("Agg")  # no window
    import matplotlib.pyplot as plt

    return plt


def _display(draw: Callable[[Any, Split, Any], dict[str, float]], name: str) -> Runner:
    def run(estimator, split: Split, cv: int, seed: int) -> Outcome:
        plt = _pyplot()
        model = clone(estimator).fit(split.X_train, split.y_train)
        fig, ax = plt.subplots()
        try:
            return Outcome(name, draw(model, split, ax))
        finally:
            plt.close(fig)

    return run


def _confusion_matrix(model, split: Split, ax) -> dict[str, float]:
    from sklearn.metrics import ConfusionMatrixDisplay

    display = ConfusionMatrixDisplay.from_estimator(model, split.X_test, split.y_test, ax=ax)
    expected = confusion_matrix(split.y_test, model.predict(split.X_test), labels=model.classes_)
    np.testing.assert_array_equal(display.confusion_matrix, expected)
    return {"accuracy": float(np.trace(expected) / expected.sum())}


def _scores_by_class(model, X) -> np.ndarray:
    """One score column per class, as a user ranks rows for a one-vs-rest curve:
    ``decision_function`` where the model has it (the tools' own preference), else
    ``predict_proba``."""
    if hasattr(model, "decision_function"):
        return np.asarray(model.decision_function(X))
    return np.asarray(model.predict_proba(X))


def _curve(kind: str) -> Callable:
    """ROC or precision-recall display: from_estimator for two classes; for more, one curve
    per class from its score column (from_predictions, one-vs-rest)."""

    def draw(model, split: Split, ax) -> dict[str, float]:
        from sklearn.metrics import PrecisionRecallDisplay, RocCurveDisplay

        Display = RocCurveDisplay if kind == "roc_auc" else PrecisionRecallDisplay
        metric = roc_auc_score if kind == "roc_auc" else average_precision_score
        y = np.asarray(split.y_test)
        if split.n_classes == 2:
            display = Display.from_estimator(model, split.X_test, y, ax=ax)
            got = display.roc_auc if kind == "roc_auc" else display.average_precision
            return {kind: float(got)}
        scores = _scores_by_class(model, split.X_test)
        values = []
        for k, label in enumerate(model.classes_):  # one curve per class: bounded by K
            if not np.any(y == label):
                continue
            Display.from_predictions(y == label, scores[:, k], ax=ax, name=str(label))
            values.append(metric(y == label, scores[:, k]))
        return {kind: float(np.mean(values))}

    return draw


def _calibration(model, split: Split, ax) -> dict[str, float]:
    from sklearn.calibration import CalibrationDisplay

    display = CalibrationDisplay.from_estimator(model, split.X_test, split.y_test, ax=ax)
    proba = model.predict_proba(split.X_test)[:, 1]
    if not np.all(np.isfinite(display.prob_pred)):
        raise AssertionError("CalibrationDisplay drew non-finite points")
    positive = np.asarray(split.y_test) == model.classes_[1]
    return {"brier": float(brier_score_loss(positive, proba))}


def _two_numeric_columns(X) -> list:
    """The first two numeric columns of X: a DataFrame's by name, else positions 0 and 1."""
    if isinstance(X, pd.DataFrame):
        return [c for c in X.columns if pd.api.types.is_numeric_dtype(X[c])][:2]
    return [0, 1]


def _decision_boundary(estimator, split: Split, cv: int, seed: int) -> Outcome:
    """DecisionBoundaryDisplay of the model fitted on two numeric columns; the drawn
    response must be the model's own ``predict`` on the grid. Scored: that model's
    accuracy."""
    from sklearn.inspection import DecisionBoundaryDisplay

    plt = _pyplot()
    columns = _two_numeric_columns(split.X_train)
    if isinstance(split.X_train, pd.DataFrame):
        X_train, X_test = split.X_train[columns], split.X_test[columns]
        X_train = X_train.fillna(X_train.median())
        X_test = X_test.fillna(X_train.median())
    else:
        X_train = np.asarray(_dense(split.X_train[:, columns]), dtype=float)
        X_test = np.asarray(_dense(split.X_test[:, columns]), dtype=float)
    model = clone(estimator).fit(X_train, split.y_train)
    fig, ax = plt.subplots()
    try:
        display = DecisionBoundaryDisplay.from_estimator(
            model, X_train, response_method="predict", grid_resolution=20, ax=ax
        )
        grid = np.column_stack([display.xx0.ravel(), display.xx1.ravel()])
        if isinstance(X_train, pd.DataFrame):
            grid = pd.DataFrame(grid, columns=X_train.columns)
        codes = np.searchsorted(model.classes_, model.predict(grid))
        np.testing.assert_array_equal(display.response.ravel(), codes)
    finally:
        plt.close(fig)
    return _scored("display-decision_boundary", split.y_test, model.predict(X_test))


#: Every tool of the suite, by name.
WRAPPERS: dict[str, Wrapper] = {
    w.name: w
    for w in [
        *(
            Wrapper(f"calibrated-{m}-{'ensemble' if e else 'single'}", _calibrated(m, e))
            for m in ("sigmoid", "isotonic", "temperature")
            for e in (True, False)
        ),
        Wrapper("stacking", _stacking("auto")),
        Wrapper("stacking-decision_function", _stacking("decision_function")),
        Wrapper("voting-soft", _voting("soft")),
        Wrapper("voting-hard", _voting("hard")),
        Wrapper("one-vs-rest", _fit_predict("one-vs-rest", _one_vs_rest)),
        Wrapper("one-vs-one", _fit_predict("one-vs-one", _one_vs_one), numbers_only=True),
        Wrapper(
            "tuned-threshold", _fit_predict("tuned-threshold", _tuned_threshold), classes="binary"
        ),
        Wrapper(
            "fixed-threshold", _fit_predict("fixed-threshold", _fixed_threshold), classes="binary"
        ),
        Wrapper("self-training", _self_training, numbers_only=True),
        Wrapper("bagging", _on_table(_fit_predict("bagging", _bagging)), table=True),
        *(
            Wrapper(f"cross_val_predict-{m}", _cross_val_predict(m))
            for m in ("predict", "predict_proba", "predict_log_proba", "decision_function")
        ),
        Wrapper("permutation_importance", _permutation_importance, table=True),
        Wrapper(
            "display-confusion_matrix", _display(_confusion_matrix, "display-confusion_matrix")
        ),
        Wrapper("display-roc_curve", _display(_curve("roc_auc"), "display-roc_curve")),
        Wrapper(
            "display-precision_recall",
            _display(_curve("average_precision"), "display-precision_recall"),
        ),
        Wrapper("display-decision_boundary", _decision_boundary, two_columns=True),
        Wrapper(
            "display-calibration", _display(_calibration, "display-calibration"), classes="binary"
        ),
    ]
}


def applicable_wrappers(split: Split, numeric: bool = True) -> list[str]:
    """Names of the tools of :data:`WRAPPERS` defined for ``split``.

    Parameters
    ----------
    split : Split
        The data.
    numeric : bool, default True
        False leaves out the tools that draw over two numeric columns (for counts or category
        codes, whose grid points between values mean nothing). Raw text leaves those out too.

    Returns
    -------
    list of str
        Names in the order of :data:`WRAPPERS`.

    Examples
    --------
    >>> from nbayes.testing import Split, applicable_wrappers
    >>> names = applicable_wrappers(Split([[0], [1], [2]], [0, 1, 2], [[1]], [1]))
    >>> "tuned-threshold" in names, "calibrated-sigmoid-ensemble" in names
    (False, True)
    """
    return [
        name
        for name, w in WRAPPERS.items()
        if w.applies(split.n_classes, split.is_text, numeric, split.has_strings)
    ]


# -- running and comparing ---------------------------------------------------------------------
def run_wrapper(name: str, estimator, split: Split, *, cv: int = 3, random_state: int = 0):
    """Run the tool ``name`` of :data:`WRAPPERS` around ``estimator`` on ``split``.

    Parameters
    ----------
    name : str
        A key of :data:`WRAPPERS`.
    estimator : classifier
        Unfitted; each run fits clones of it.
    split : Split
        The data.
    cv : int, default 3
        Folds of the tools that cross-validate.
    random_state : int, default 0
        Seed of the tools that draw (folds, bags, hidden labels, permutations).

    Returns
    -------
    Outcome
        The tool's metrics.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import GaussianNB
    >>> from nbayes.testing import Split, run_wrapper
    >>> X = np.r_[np.zeros((20, 2)), np.ones((20, 2))] + np.linspace(0, 0.3, 40)[:, None]
    >>> y = np.repeat([0, 1], 20)
    >>> run_wrapper("voting-hard", GaussianNB(), Split(X, y, X, y)).metrics
    {'accuracy': 1.0}
    """
    if name not in WRAPPERS:
        raise KeyError(
            f"No tool named {name!r} in nbayes.testing.WRAPPERS; known: {sorted(WRAPPERS)}"
        )
    outcome = WRAPPERS[name].run(estimator, split, cv, random_state)
    outcome.wrapper = name  # the key, whatever the runner calls itself
    return outcome


def check_wrapper(
    name: str,
    estimator,
    split: Split,
    reference=None,
    *,
    tolerance: Tolerance = TOLERANCE,
    cv: int = 3,
    random_state: int = 0,
) -> Comparison:
    """Run the tool ``name`` around ``estimator`` and around ``reference`` on the same split;
    raise AssertionError when the estimator does worse than the tolerance allows on a metric
    both report.

    Parameters
    ----------
    name : str
        A key of :data:`WRAPPERS`.
    estimator : classifier
        The unfitted estimator under test.
    split : Split
        The data.
    reference : classifier, optional
        What it must do as well as; default ``ProbaOnly(estimator)``.
    tolerance : Tolerance, default TOLERANCE
        How much worse it may do.
    cv : int, default 3
        Folds of the tools that cross-validate.
    random_state : int, default 0
        Seed of the tools that draw.

    Returns
    -------
    Comparison
        Both outcomes.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import GaussianNB
    >>> from nbayes.testing import Split, check_wrapper
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1, 2], 30)
    >>> X = rng.normal(size=(90, 2)) + y[:, None]
    >>> c = check_wrapper("one-vs-one", GaussianNB(), Split(X[::2], y[::2], X[1::2], y[1::2]))
    >>> c.failures()
    []
    """
    if reference is None:
        reference = ProbaOnly(estimator)
    got = run_wrapper(name, estimator, split, cv=cv, random_state=random_state)
    ref = run_wrapper(name, reference, split, cv=cv, random_state=random_state)
    comparison = Comparison(name, got, ref, tolerance)
    failures = comparison.failures()
    if failures:
        raise AssertionError(
            f"{name} around {type(estimator).__name__} on {split.name or 'the data'} does worse "
            f"than around {_describe(reference)} (tolerance {tolerance}): {'; '.join(failures)}"
        )
    return comparison


def _describe(reference) -> str:
    if isinstance(reference, ProbaOnly):
        return f"{type(reference.estimator).__name__}'s predict_proba alone"
    return f"{type(reference).__module__.split('.')[0]}'s {type(reference).__name__}"


def ecosystem_checks(
    estimator,
    split: Split,
    reference=None,
    *,
    wrappers: Iterable[str] | None = None,
    numeric: bool = True,
    tolerance: Tolerance = TOLERANCE,
    cv: int = 3,
    random_state: int = 0,
) -> Iterator[tuple[str, Callable[[], Comparison]]]:
    """Yield ``(tool name, check)`` for every tool defined for ``split``; calling ``check()``
    runs :func:`check_wrapper`. For ``pytest.mark.parametrize``.

    Parameters
    ----------
    estimator : classifier
        The unfitted estimator under test.
    split : Split
        The data.
    reference : classifier, optional
        What it must do as well as; default ``ProbaOnly(estimator)``.
    wrappers : iterable of str, optional
        Names of :data:`WRAPPERS`; default every one that applies.
    numeric : bool, default True
        False for counts or category codes (no decision-boundary grid over them).
    tolerance : Tolerance, default TOLERANCE
        How much worse it may do.
    cv : int, default 3
        Folds of the tools that cross-validate.
    random_state : int, default 0
        Seed of the tools that draw.

    Yields
    ------
    tuple of (str, callable)
        The tool's name and a function of no argument returning its :class:`Comparison`.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import GaussianNB
    >>> from nbayes.testing import Split, ecosystem_checks
    >>> X = np.arange(40, dtype=float).reshape(20, 2); y = np.repeat([0, 1], 10)
    >>> checks = dict(ecosystem_checks(GaussianNB(), Split(X, y, X, y)))
    >>> checks["fixed-threshold"]().outcome.metrics["accuracy"]
    1.0
    """
    names = applicable_wrappers(split, numeric) if wrappers is None else list(wrappers)
    for name in names:

        def check(name=name) -> Comparison:
            return check_wrapper(
                name,
                estimator,
                split,
                reference,
                tolerance=tolerance,
                cv=cv,
                random_state=random_state,
            )

        yield name, check


def check_ecosystem(
    estimator,
    split: Split,
    reference=None,
    *,
    wrappers: Sequence[str] | None = None,
    numeric: bool = True,
    tolerance: Tolerance = TOLERANCE,
    cv: int = 3,
    random_state: int = 0,
) -> list[Comparison]:
    """Run every tool defined for ``split`` (or those named in ``wrappers``) around
    ``estimator`` and ``reference``, and check the decision_function convention first.

    Parameters
    ----------
    estimator : classifier
        The unfitted estimator under test.
    split : Split
        The data.
    reference : classifier, optional
        The estimator it must do as well as: scikit-learn's corresponding model, or by
        default ``ProbaOnly(estimator)``.
    wrappers : sequence of str, optional
        Names of :data:`WRAPPERS`; default every one that applies.
    numeric : bool, default True
        False for category codes (no decision-boundary grid over them).
    tolerance : Tolerance, default TOLERANCE
        How much worse it may do.
    cv : int, default 3
        Folds of the tools that cross-validate.
    random_state : int, default 0
        Seed of the tools that draw.

    Returns
    -------
    list of Comparison
        One per tool, in order. Raises AssertionError at the first tool that fails.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import GaussianNB
    >>> from nbayes.testing import Split, check_ecosystem
    >>> rng = np.random.default_rng(1)
    >>> y = np.repeat([0, 1], 40)
    >>> X = rng.normal(size=(80, 2)) + y[:, None]
    >>> done = check_ecosystem(GaussianNB(), Split(X[::2], y[::2], X[1::2], y[1::2]))
    >>> len(done) == len(WRAPPERS)
    True
    """
    check_decision_function(clone(estimator).fit(split.X_train, split.y_train), split.X_test)
    return [
        check()
        for _, check in ecosystem_checks(
            estimator,
            split,
            reference,
            wrappers=wrappers,
            numeric=numeric,
            tolerance=tolerance,
            cv=cv,
            random_state=random_state,
        )
    ]


def check_decision_function(model, X) -> None:
    """The decision_function convention of nbayes, on a fitted model: two classes, the
    log-odds log P(classes_[1] | x) - log P(classes_[0] | x); more, the log posterior
    ``predict_log_proba``, whose rows are normalised. Either way exact within log(1 / eps)
    (about 36.04), squeezed beyond it into one more nat in the same order
    (``bound_decision`` of ``nbayes._engine``), and argmax (sign) = ``predict``. Raises
    AssertionError otherwise.

    Parameters
    ----------
    model : fitted classifier
        With ``decision_function``, ``predict_log_proba`` and ``predict``.
    X : array-like, sparse matrix, DataFrame or texts
        Rows to check on.

    Examples
    --------
    >>> from nbayes import MultinomialNB
    >>> from nbayes.testing import check_decision_function
    >>> X = [[3, 0], [0, 3], [1, 1]]
    >>> check_decision_function(MultinomialNB().fit(X, ["a", "b", "c"]), X)
    """
    d = np.asarray(model.decision_function(X))
    log_proba = np.asarray(model.predict_log_proba(X))
    pred = np.asarray(model.predict(X))
    if not np.all(np.abs(d) <= DECISION_BOUND + 1):
        raise AssertionError(f"decision_function exceeds the bound: {np.abs(d).max()}")
    if len(model.classes_) == 2:
        if d.shape != (log_proba.shape[0],):
            raise AssertionError(f"two-class decision_function has shape {d.shape}")
        log_odds = bound_decision(log_proba[:, 1] - log_proba[:, 0])
        np.testing.assert_allclose(d, log_odds, rtol=1e-9, atol=1e-9)
        np.testing.assert_array_equal(model.classes_[(d > 0).astype(np.intp)], pred)
        return
    np.testing.assert_allclose(d, bound_decision(log_proba.copy()), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.exp(d).sum(axis=1), 1.0, rtol=1e-9)
    np.testing.assert_array_equal(model.classes_[np.argmax(d, axis=1)], pred)
