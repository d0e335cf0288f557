"""The statistics of every cross-validation fold of one data set, counted in one pass:
the model of the rows outside a fold is the total minus the fold.
"""

from __future__ import annotations

import warnings
from functools import reduce

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.utils.validation import _num_samples, column_or_1d

from .._labels import fit_classes, label_codes
from .._validation import user_stacklevel
from ..estimators._base import check_sample_weight
from ..estimators._folds import check_splits, count_splits, take_rows
from ..exceptions import DataError


class FoldStatistics:
    """Statistics of every cross-validation fold of one data set, counted in one pass.

    ``model`` is the estimator set up on all rows and holding their statistics, ``total``
    (the merged ``test_stats`` of the folds), not finalized: a search never uses its own
    settings (``model.finalize()`` makes it a fitted model of them);
    ``train_model(i, params)`` is the model of the rows outside test fold ``i`` with the
    finalize-time ``params``, made without reading the data.

    Parameters
    ----------
    estimator : nbayes estimator
        The model to count with (unfitted; cloned).
    X : array-like, sparse matrix, DataFrame or texts, n_samples long
        The samples, as the estimator takes them.
    y : array-like of shape (n_samples,)
        The class label of each row.
    splits : list of (train, test) index arrays
        Every split must train on all the rows outside its test fold.
    sample_weight : array-like of shape (n_samples,), optional
        Weight of each row, 1 by default: an integer weight counts as that many copies of
        the row, and a zero weight as no row.
    test_parts : list, optional
        The test rows of each split already taken from X (``_safe_indexing(X, test)``), so
        that a caller that scores them too takes them once.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.model_selection import KFold
    >>> from nbayes import MultinomialNB
    >>> X = np.array([[3, 0], [0, 4], [2, 1], [1, 3]]); y = np.array([0, 1, 0, 1])
    >>> folds = FoldStatistics(MultinomialNB(), X, y, list(KFold(2).split(X)))
    >>> fold0 = folds.train_model(0, {"alpha": 0.5})
    >>> np.allclose(fold0.feature_log_prob_,
    ...             MultinomialNB(alpha=0.5).fit(X[2:], y[2:]).feature_log_prob_)
    True
    """

    def __init__(self, estimator, X, y, splits, sample_weight=None, test_parts=None):
        y = column_or_1d(y, warn=True)
        n = _num_samples(X)
        if y.shape[0] != n:
            raise DataError(f"X has {n} rows but y has {y.shape[0]} labels; they must match.")
        self.classes = fit_classes(y)
        codes, _ = label_codes(y, self.classes)
        weights = check_sample_weight(sample_weight, n)
        check_splits(splits, codes, self.classes, n)
        model = clone(estimator)
        model.finalize_params()  # refuses models whose folds statistics cannot give
        _warn_on_families_of_parts(estimator, X, splits)
        self.test_stats, total = count_splits(
            model, X, codes, weights, self.classes.size, splits, test_parts
        )
        self.total = total
        # Not finalized: a search finalizes candidates (finalize_with), never this model's own
        # settings (as in scikit-learn's search, an estimator setting that every candidate
        # replaces, alpha=-1 under an alpha grid, is never used).
        self.model = model.install(self.classes, total, finalize=False)
        self.splits = splits

    @classmethod
    def from_statistics(cls, model, classes, test_stats: list) -> FoldStatistics:
        """Fold statistics counted elsewhere (:func:`nbayes.dask.fold_statistics`).

        Parameters
        ----------
        model : nbayes estimator
            Set up (:meth:`EstimatorProtocol.setup`) for the statistics; it comes to hold
            those of all the rows, not finalized.
        classes : array-like of shape (n_classes,)
            The classes the statistics are laid out over, sorted.
        test_stats : list of dict
            The statistics of the rows of each test fold.

        Returns
        -------
        FoldStatistics
            With ``splits`` None (the rows were never in memory).

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.model_selection import KFold
        >>> from nbayes import MultinomialNB
        >>> from nbayes.model_selection import FoldStatistics
        >>> X = np.array([[3, 0], [0, 4], [2, 1], [1, 3]]); y = np.array([0, 1, 0, 1])
        >>> folds = FoldStatistics(MultinomialNB(), X, y, list(KFold(2).split(X)))
        >>> model = MultinomialNB()
        >>> model.setup(2)
        >>> again = FoldStatistics.from_statistics(model, folds.classes, folds.test_stats)
        >>> again.train_model(0).feature_count_.tolist()
        [[2.0, 1.0], [1.0, 3.0]]
        """
        self = cls.__new__(cls)
        self.classes = np.asarray(classes)
        self.test_stats = list(test_stats)
        self.total = reduce(model.merge_statistics, self.test_stats)
        self.model = model.install(self.classes, self.total, finalize=False)
        self.splits = None
        return self

    def train_statistics(self, i: int) -> dict:
        """Statistics of the rows outside test fold ``i``: the total minus the fold's.

        Parameters
        ----------
        i : int
            The index of the test fold in ``splits``.

        Returns
        -------
        dict
            Statistics over ``classes`` in the set-up of ``model``.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.model_selection import KFold
        >>> from nbayes import MultinomialNB
        >>> from nbayes.model_selection import FoldStatistics
        >>> X = np.array([[3, 0], [0, 4], [2, 1], [1, 3]]); y = np.array([0, 1, 0, 1])
        >>> folds = FoldStatistics(MultinomialNB(), X, y, list(KFold(2).split(X)))
        >>> folds.train_statistics(0)["groups"][0]["n_counts"].tolist()  # rows 2 and 3
        [[2.0, 1.0], [1.0, 3.0]]
        """
        return self.model.subtract_statistics(self.total, self.test_stats[i])

    def train_model(self, i: int, params: dict | None = None, stats: dict | None = None):
        """The model of the rows outside test fold ``i`` with finalize-time ``params``.

        Parameters
        ----------
        i : int
            The index of the test fold in ``splits``.
        params : dict, optional
            Values of some of the estimator's finalize-time parameters
            (:meth:`EstimatorProtocol.finalize_params`).
        stats : dict, optional
            :meth:`train_statistics` of ``i``, when already at hand.

        Returns
        -------
        estimator
            A fitted model equal to one fitted on the training rows with ``params``.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.model_selection import KFold
        >>> from nbayes import MultinomialNB
        >>> from nbayes.model_selection import FoldStatistics
        >>> X = np.array([[3, 0], [0, 4], [2, 1], [1, 3]]); y = np.array([0, 1, 0, 1])
        >>> folds = FoldStatistics(MultinomialNB(), X, y, list(KFold(2).split(X)))
        >>> folds.train_model(0, {"alpha": 0.5}).get_params()["alpha"]
        0.5
        """
        return self.model.finalize_with(
            params, self.train_statistics(i) if stats is None else stats
        )


def _warn_on_families_of_parts(estimator, X, splits) -> None:
    """Folds counted once share the set-up of all rows. A model that infers its columns'
    families (MixedNB) may infer others from a split's training rows, as scikit-learn's
    search, which fits them afresh, would: say so, with the way to make both agree."""
    infer = getattr(estimator, "infer_families", None)
    dtypes = X.dtypes if isinstance(X, pd.DataFrame) else [getattr(X, "dtype", None)]
    if infer is None or not any(getattr(t, "kind", "O") in "iu" for t in dtypes):
        return  # only an integer column's family depends on the rows
    if isinstance(X, pd.DataFrame) and estimator.get_params().get("columns") == "auto":
        # Each column is then read on its own: reading the text columns six times over
        # (dates, strings) would cost more than the counting itself.
        X = X.loc[:, [getattr(t, "kind", "O") in "iu" for t in X.dtypes]]
    whole = infer(X)
    for i, (train, _) in enumerate(splits):  # bounded by the number of splits
        part = infer(take_rows(X, train))
        changed = [c for c in whole if part[c] != whole[c]]
        if not changed:
            continue
        named: dict[str, list] = {}
        for c in changed:  # bounded by the columns
            named.setdefault(whole[c], []).append(c)
        fix = ", ".join(f"({family!r}, {cols!r})" for family, cols in named.items())
        c = changed[0]
        warnings.warn(
            f"{type(estimator).__name__} reads column {c!r} as {whole[c]} over all "
            f"{_num_samples(X):,} rows but as {part[c]} over the {len(train):,} training rows "
            f"of split {i}"
            + (f" ({len(changed)} columns differ)" if len(changed) > 1 else "")
            + ": an integer column's family follows its number of distinct values (and, "
            "under max_int_categories='auto', the number of rows). The scores are those of "
            "the families of all rows, which the refit keeps; scikit-learn's GridSearchCV "
            "would infer them again on each split's training rows and score differently. "
            f"Name the families to make both agree: columns=[{fix}].",
            UserWarning,
            stacklevel=user_stacklevel(),
        )
        return
