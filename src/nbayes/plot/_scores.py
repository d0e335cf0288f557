"""Displays of how a model's scores behave on labelled data: precision and recall as the
odds threshold moves, and whether the probabilities are calibrated."""

from __future__ import annotations

import numpy as np
from sklearn.calibration import calibration_curve
from sklearn.metrics import precision_recall_curve

from ._common import (
    matplotlib_axes,
    model_log_odds_threshold,
    positive_class,
    positive_log_odds,
    require_matplotlib,
)


class ThresholdDisplay:
    """Precision and recall of one class against the log-odds threshold.

    ``predict`` picks the class when its log-odds against the rest exceed the threshold (0,
    or the model's ``decision_threshold``); moving it trades recall for precision. The
    model's own threshold is drawn as a dashed line. Create it with :meth:`from_estimator`
    or :meth:`from_predictions`.

    Parameters
    ----------
    thresholds : ndarray of shape (n_thresholds,)
        Log-odds thresholds, increasing.
    precision, recall : ndarray of shape (n_thresholds,)
        Of the positive class when it is predicted above each threshold.
    pos_label : label
        The positive class.
    threshold : float, default=0.0
        The threshold the model applies.

    Attributes
    ----------
    precision_line_, recall_line_, threshold_line_ : Line2D
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from nbayes.plot import ThresholdDisplay
    >>> display = ThresholdDisplay.from_predictions(
    ...     ["ham", "spam", "spam", "ham"], [-3.0, 2.0, 0.5, 1.0], pos_label="spam")
    >>> display.thresholds.tolist(), display.precision.tolist(), display.recall.tolist()
    ([-3.0, 0.5, 1.0, 2.0], [0.5, 0.6666666666666666, 0.5, 1.0], [1.0, 1.0, 0.5, 0.5])
    """

    def __init__(self, thresholds, precision, recall, *, pos_label, threshold: float = 0.0):
        self.thresholds = np.asarray(thresholds)
        self.precision = np.asarray(precision)
        self.recall = np.asarray(recall)
        self.pos_label = pos_label
        self.threshold = threshold

    @classmethod
    def from_estimator(cls, estimator, X, y, *, pos_label=None, ax=None) -> ThresholdDisplay:
        """Score X with a fitted ``estimator`` and draw precision and recall against y.

        Parameters
        ----------
        estimator : fitted classifier with ``predict_log_proba`` and ``classes_``
            The model to score X with (its ``decision_threshold`` is drawn too).
        X : array-like, sparse matrix, DataFrame or texts
            The samples, as the estimator takes them.
        y : array-like of shape (n_samples,)
            The class label of each row.
        pos_label : label, optional
            The class whose odds against the rest are thresholded; the second of two classes
            by default (needed with more).
        ax : matplotlib Axes, optional
            The matplotlib Axes to draw on; by default a new figure's.

        Returns
        -------
        ThresholdDisplay
            The display, drawn.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from nbayes import MultinomialNB
        >>> from nbayes.plot import ThresholdDisplay
        >>> X, y = [[3, 0], [2, 1], [1, 2], [0, 3]], ["ham", "ham", "spam", "spam"]
        >>> display = ThresholdDisplay.from_estimator(MultinomialNB().fit(X, y), X, y)
        >>> display.thresholds.round(1).tolist(), display.recall.tolist()
        ([-3.3, -1.1, 1.1, 3.3], [1.0, 1.0, 1.0, 0.5])
        """
        require_matplotlib()
        log_odds, pos = positive_log_odds(estimator, X, pos_label)
        k = positive_class(np.asarray(estimator.classes_), pos)
        return cls.from_predictions(
            y, log_odds, pos_label=pos, threshold=model_log_odds_threshold(estimator, k), ax=ax
        )

    @classmethod
    def from_predictions(
        cls, y_true, log_odds, *, pos_label, threshold: float = 0.0, ax=None
    ) -> ThresholdDisplay:
        """Draw precision and recall of ``pos_label`` from log-odds already computed.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            The true class of each row.
        log_odds : array-like of shape (n_samples,)
            The log-odds log P(pos | x) - log P(not pos | x), e.g. ``decision_function`` of a
            two-class model.
        pos_label : label
            The positive class.
        threshold : float, default=0.0
            The threshold the model applies, drawn as a dashed line.
        ax : matplotlib Axes, optional
            The matplotlib Axes to draw on; by default a new figure's.

        Returns
        -------
        ThresholdDisplay
            The display, drawn.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from nbayes.plot import ThresholdDisplay
        >>> y = ["ham", "ham", "spam", "spam"]
        >>> display = ThresholdDisplay.from_predictions(y, [-2.0, -1.0, 1.0, 2.0], pos_label="spam")
        >>> display.precision.round(2).tolist()
        [0.5, 0.67, 1.0, 1.0]
        """
        require_matplotlib()
        positive = np.asarray(y_true) == pos_label
        precision, recall, thresholds = precision_recall_curve(positive, log_odds)
        # precision_recall_curve ends with the point (recall 0, precision 1) of no threshold.
        display = cls(
            thresholds, precision[:-1], recall[:-1], pos_label=pos_label, threshold=threshold
        )
        return display.plot(ax=ax)

    def plot(self, ax=None) -> ThresholdDisplay:
        """Draw on ``ax`` (a new figure by default).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            The matplotlib Axes to draw on; by default a new figure's.

        Returns
        -------
        ThresholdDisplay
            This display, with ``ax_``, ``figure_``, ``precision_line_``, ``recall_line_`` and
            ``threshold_line_`` set.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import matplotlib.pyplot as plt
        >>> from nbayes.plot import ThresholdDisplay
        >>> display = ThresholdDisplay(
        ...     [-1.0, 0.0, 1.0], [0.5, 0.6, 1.0], [1.0, 0.8, 0.4], pos_label="spam")
        >>> fig, ax = plt.subplots()
        >>> display.plot(ax=ax).ax_ is ax, display.recall_line_.get_ydata().tolist()
        (True, [1.0, 0.8, 0.4])
        >>> plt.close("all")
        """
        ax = matplotlib_axes(ax)
        (self.precision_line_,) = ax.plot(
            self.thresholds, self.precision, drawstyle="steps-post", label="precision"
        )
        (self.recall_line_,) = ax.plot(
            self.thresholds, self.recall, drawstyle="steps-post", label="recall"
        )
        self.threshold_line_ = ax.axvline(
            self.threshold, color="0.4", linestyle="--", label=f"threshold {self.threshold:g}"
        )
        ax.set_xlabel(f"log-odds threshold for {self.pos_label}")
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"precision and recall of {self.pos_label}")
        ax.legend(loc="lower left")
        self.ax_, self.figure_ = ax, ax.figure
        return self


class ReliabilityDisplay:
    """Reliability (calibration) curve: observed frequency of a class against its predicted
    probability, in bins.

    A calibrated model's points lie on the diagonal. Naive Bayes counts correlated features
    as independent evidence, so its probabilities are typically too close to 0 and 1: the
    curve is flatter than the diagonal. Create it with :meth:`from_estimator` or
    :meth:`from_predictions`.

    Parameters
    ----------
    prob_true : ndarray of shape (n_bins_used,)
        Share of the positive class among the rows of each non-empty bin.
    prob_pred : ndarray of shape (n_bins_used,)
        Mean predicted probability in each bin.
    pos_label : label
        The positive class.

    Attributes
    ----------
    line_ : Line2D
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from nbayes.plot import ReliabilityDisplay
    >>> display = ReliabilityDisplay.from_predictions(
    ...     [0, 0, 1, 1], [0.1, 0.3, 0.6, 0.9], pos_label=1, n_bins=2)
    >>> display.prob_true.tolist(), display.prob_pred.tolist()
    ([0.0, 1.0], [0.2, 0.75])
    """

    def __init__(self, prob_true, prob_pred, *, pos_label):
        self.prob_true = np.asarray(prob_true)
        self.prob_pred = np.asarray(prob_pred)
        self.pos_label = pos_label

    @classmethod
    def from_estimator(
        cls, estimator, X, y, *, pos_label=None, n_bins: int = 10, strategy="uniform", ax=None
    ) -> ReliabilityDisplay:
        """Predict probabilities for X with a fitted ``estimator`` and draw their reliability.

        Parameters
        ----------
        estimator : fitted classifier with ``predict_proba`` and ``classes_``
            The model whose probabilities are binned.
        X : array-like, sparse matrix, DataFrame or texts
            The samples, as the estimator takes them.
        y : array-like of shape (n_samples,)
            The class label of each row.
        pos_label : label, optional
            The class whose probability is binned; the second of two by default.
        n_bins : int, default=10
            The number of bins (empty bins are left out).
        strategy : {"uniform", "quantile"}, default="uniform"
            Equal-width bins, or bins of equal numbers of rows.
        ax : matplotlib Axes, optional
            The matplotlib Axes to draw on; by default a new figure's.

        Returns
        -------
        ReliabilityDisplay
            The display, drawn.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from nbayes import MultinomialNB
        >>> from nbayes.plot import ReliabilityDisplay
        >>> X, y = [[3, 0], [2, 1], [1, 2], [0, 3]], [0, 0, 1, 1]
        >>> display = ReliabilityDisplay.from_estimator(MultinomialNB().fit(X, y), X, y, n_bins=2)
        >>> display.prob_true.tolist()
        [0.0, 1.0]
        """
        require_matplotlib()
        classes = np.asarray(estimator.classes_)
        k = positive_class(classes, pos_label)
        proba = np.asarray(estimator.predict_proba(X))[:, k]
        return cls.from_predictions(
            y, proba, pos_label=classes[k], n_bins=n_bins, strategy=strategy, ax=ax
        )

    @classmethod
    def from_predictions(
        cls, y_true, y_prob, *, pos_label, n_bins: int = 10, strategy="uniform", ax=None
    ) -> ReliabilityDisplay:
        """Draw the reliability of probabilities already predicted.

        Parameters
        ----------
        y_true : array-like of shape (n_samples,)
            The true class of each row.
        y_prob : array-like of shape (n_samples,)
            Predicted probability of ``pos_label``.
        pos_label : label
            The positive class.
        n_bins : int, default=10
            The number of bins (empty bins are left out).
        strategy : {"uniform", "quantile"}, default="uniform"
            Equal-width bins, or bins of equal numbers of rows.
        ax : matplotlib Axes, optional
            The matplotlib Axes to draw on; by default a new figure's.

        Returns
        -------
        ReliabilityDisplay
            The display, drawn.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> from nbayes.plot import ReliabilityDisplay
        >>> y, proba = [0, 0, 1, 1], [0.1, 0.3, 0.6, 0.9]
        >>> display = ReliabilityDisplay.from_predictions(y, proba, pos_label=1)
        >>> display.prob_pred.tolist()
        [0.1, 0.3, 0.6, 0.9]
        """
        require_matplotlib()
        positive = np.asarray(y_true) == pos_label
        prob_true, prob_pred = calibration_curve(positive, y_prob, n_bins=n_bins, strategy=strategy)
        return cls(prob_true, prob_pred, pos_label=pos_label).plot(ax=ax)

    def plot(self, ax=None) -> ReliabilityDisplay:
        """Draw on ``ax`` (a new figure by default).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            The matplotlib Axes to draw on; by default a new figure's.

        Returns
        -------
        ReliabilityDisplay
            This display, with ``ax_``, ``figure_`` and ``line_`` set.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import matplotlib.pyplot as plt
        >>> from nbayes.plot import ReliabilityDisplay
        >>> display = ReliabilityDisplay([0.0, 1.0], [0.2, 0.75], pos_label=1)
        >>> fig, ax = plt.subplots()
        >>> display.plot(ax=ax).ax_ is ax, display.line_.get_xdata().tolist()
        (True, [0.2, 0.75])
        >>> plt.close("all")
        """
        ax = matplotlib_axes(ax)
        ax.plot([0, 1], [0, 1], color="0.5", linestyle=":", label="perfectly calibrated")
        (self.line_,) = ax.plot(self.prob_pred, self.prob_true, "o-", label="model")
        ax.set_xlabel(f"predicted P({self.pos_label})")
        ax.set_ylabel(f"observed share of {self.pos_label}")
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.02)
        ax.set_title("reliability")
        ax.legend(loc="upper left")
        self.ax_, self.figure_ = ax, ax.figure
        return self
