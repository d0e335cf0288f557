"""Per-prediction explanations: the naive Bayes score split into one term per feature.

Under the naive assumption ``log P(x, y=k) = log P(y=k) + sum_j log P(x_j | y=k)`` exactly, so
the log-odds between the predicted class and the runner-up is a sum of per-feature
contributions plus the prior's. The terms come from each family's ``log_likelihood_terms``
(the same maths that scores the model), concatenated over the column groups.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import _engine as engine
from ..distributions import Family


@dataclass(frozen=True)
class Explanation:
    """Per-row, per-feature contributions to a naive Bayes prediction.

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
    feature_names : ndarray of shape (n_features,)
    log_prior : ndarray of shape (n_classes,)
        The class log prior as the scores use it (zeros for Complement NB, which ignores it).
    terms : ndarray of shape (n_samples, n_classes, n_features)
        log P(x_j | y = k) for every row, class and feature (Complement NB: its weights).
        Class-independent parts (the multinomial coefficient, Poisson factorials) are
        included, so ``joint_log_proba`` is the exact ``predict_joint_log_proba``.
    values : ndarray of shape (n_samples, n_features)
        The input values of the explained rows (as given, before binarising or encoding).
    predicted, runner_up : ndarray of shape (n_samples,)
        Indices into ``classes`` of the predicted class and of the best other class.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import BernoulliNB
    >>> X = np.array([[1, 1, 0], [1, 0, 0], [0, 0, 1], [0, 1, 1]])
    >>> y = ["spam", "spam", "ham", "ham"]
    >>> ex = BernoulliNB().fit(X, y).explain([[1, 0, 0]])
    >>> ex.predicted_class.tolist(), ex.contributions.round(3).tolist()
    (['spam'], [[1.099, 0.0, 1.099]])
    >>> bool(np.isclose(ex.log_odds[0], ex.prior_log_odds[0] + ex.contributions[0].sum()))
    True
    """

    classes: np.ndarray
    feature_names: np.ndarray
    log_prior: np.ndarray
    terms: np.ndarray
    values: np.ndarray
    predicted: np.ndarray
    runner_up: np.ndarray
    #: (n_samples, n_features) text: the features each term conditions on besides the class
    #: (TAN, KDB, AODE, JointBayes); None under the naive assumption (the class alone).
    given: np.ndarray | None = None

    @property
    def joint_log_proba(self) -> np.ndarray:
        """log P(x, y) per row and class, shape (n_samples, n_classes): prior plus terms."""
        return self.log_prior[None, :] + self.terms.sum(axis=2)

    @property
    def contributions(self) -> np.ndarray:
        """Per-feature log-odds of the predicted class against the runner-up, (n_samples,
        n_features); positive values pushed towards the prediction."""
        rows = np.arange(self.terms.shape[0])
        with np.errstate(invalid="ignore"):
            return self.terms[rows, self.predicted] - self.terms[rows, self.runner_up]

    @property
    def prior_log_odds(self) -> np.ndarray:
        """The class prior's share of the log-odds, shape (n_samples,)."""
        return self.log_prior[self.predicted] - self.log_prior[self.runner_up]

    @property
    def log_odds(self) -> np.ndarray:
        """log P(predicted | x) / P(runner-up | x) = prior_log_odds + contributions.sum(1)."""
        return self.prior_log_odds + self.contributions.sum(axis=1)

    @property
    def predicted_class(self) -> np.ndarray:
        """Labels of the predicted classes, shape (n_samples,)."""
        return self.classes[self.predicted]

    @property
    def runner_up_class(self) -> np.ndarray:
        """Labels of the runner-up classes, shape (n_samples,)."""
        return self.classes[self.runner_up]

    def to_frame(self, row: int = 0, k: int | None = None) -> pd.DataFrame:
        """One row's contributions as a table, largest absolute contribution first.

        Parameters
        ----------
        row : int, default=0
        k : int, optional
            Keep only the ``k`` largest contributions.

        Returns
        -------
        DataFrame with columns ``feature``, ``value`` and ``contribution``, and ``given``
        (the features each term conditions on) for models beyond the naive assumption.
        """
        contrib = self.contributions[row]
        order = np.argsort(-np.abs(np.nan_to_num(contrib, nan=0.0)), kind="stable")
        if k is not None:
            order = order[:k]
        table = {
            "feature": self.feature_names[order],
            "value": self.values[row, order],
            "contribution": contrib[order],
        }
        if self.given is not None:
            table["given"] = self.given[row, order]
        return pd.DataFrame(table)


def explain(
    families: Sequence[Family],
    params: Sequence,
    log_prior: np.ndarray,
    blocks: Sequence,
    classes: np.ndarray,
    predicted: np.ndarray,
    names: np.ndarray,
    order: np.ndarray,
    values: np.ndarray,
    block_feature_names=None,
    block_columns=None,
) -> Explanation:
    """Build an :class:`Explanation` from the (unprepared) blocks of the rows.

    ``order`` permutes the concatenated group columns back into the user's column order;
    ``names`` and ``values`` are already in that order. ``block_columns`` gives the number of
    input columns of each block: a family that encodes a column into several block columns
    (the text family's word counts) has its terms added up per input column.
    """
    parts = engine.prepare(families, blocks, block_feature_names)
    per_block = [f.log_likelihood_terms(p, X) for f, p, X in zip(families, params, parts)]
    if block_columns is not None:
        per_block = [
            t if t.shape[2] == width else t.reshape(*t.shape[:2], width, -1).sum(axis=3)
            for t, width in zip(per_block, block_columns)
        ]
    terms = np.concatenate(per_block, axis=2)[:, :, order]
    n_classes = log_prior.shape[0]
    prior = log_prior if engine.uses_class_prior(families, n_classes) else np.zeros(n_classes)
    if n_classes == 1:
        runner_up = predicted
    else:
        scores = prior[None, :] + terms.sum(axis=2)
        scores[np.arange(len(predicted)), predicted] = -np.inf
        runner_up = np.argmax(scores, axis=1)
    return Explanation(
        classes=classes,
        feature_names=names,
        log_prior=prior,
        terms=terms,
        values=values,
        predicted=predicted,
        runner_up=runner_up,
    )
