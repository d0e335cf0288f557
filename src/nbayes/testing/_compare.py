"""What a tool achieved around an estimator, and how much worse than around its reference it
may do: the outcomes, the tolerance and the comparison of the ecosystem suite."""

from __future__ import annotations

from dataclasses import dataclass, field

from sklearn.metrics import accuracy_score, log_loss


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


def _scored(name: str, y, pred, proba=None, classes=None) -> Outcome:
    """The accuracy of predictions ``pred`` of the labels ``y``, and their log-loss where the
    probabilities ``proba`` are given."""
    metrics = {"accuracy": float(accuracy_score(y, pred))}
    if proba is not None:
        metrics["log_loss"] = float(log_loss(y, proba, labels=classes))
    return Outcome(name, metrics)
