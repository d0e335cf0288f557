"""What a fitted :class:`~._base.BaseNB` says about its features: the linear form
(``coef_``, ``intercept_``, ``linear_features``), per-row explanations, the top features of
a class and the class-conditional distribution of a column."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted

from .. import _engine as engine
from .._validation import show
from ..exceptions import ParameterError, UnknownLabelError
from . import _conditional, _explain, _linear


class _Interpretation:
    """The linear view, explanations, top features and feature distributions."""

    if TYPE_CHECKING:  # what the host (BaseNB) supplies
        classes_: np.ndarray
        families_: Any
        params_: list
        n_features_in_: int
        stats_: Any
        class_log_prior_: np.ndarray
        predict: Callable[..., Any]
        _validate_X: Callable[..., Any]
        _blocks: Callable[..., Any]
        _scoring_params: Callable[..., Any]
        _feature_names_per_block: Callable[..., Any]

    # -- linear form ----------------------------------------------------------------------------
    def _linear_form(self) -> tuple[np.ndarray, np.ndarray]:
        check_is_fitted(self, "stats_")
        if not _linear.is_linear(self.families_, self.params_):
            raise AttributeError(
                f"This {type(self).__name__} is not linear in its features: per-class Gaussian "
                "variances make the log-odds quadratic. Use var_pooling='shared' (and "
                "estimate='mle') for a linear model, or decision_function for the log-odds."
            )
        W, b = _linear.linear_form(self.families_, self.params_, self.class_log_prior_)
        return _linear.contrast(W, b)

    @property
    def coef_(self) -> np.ndarray:
        """Weights of the linear form, shape (1, n_linear) for two classes (log-odds of
        ``classes_[1]``), (n_classes, n_linear) otherwise; columns as in
        :meth:`linear_features`. Only for models that are linear (see :mod:`._linear`)."""
        return self._linear_form()[0]

    @property
    def intercept_(self) -> np.ndarray:
        """Offsets of the linear form (class log prior included), shape (1,) for two classes,
        (n_classes,) otherwise."""
        return self._linear_form()[1]

    def linear_features(self, X):
        """The feature map that ``coef_`` applies to: X itself for counts and Gaussian features,
        binarised X for Bernoulli, sparse one-hot codes for categorical features.

        Parameters
        ----------
        X : {array-like, sparse matrix} or DataFrame of shape (n_samples, n_features)
            The samples, with the columns the model was fitted on (by name for a DataFrame).

        Returns
        -------
        {ndarray, sparse matrix} of shape (n_samples, n_linear)
            Columns named by :meth:`linear_feature_names`.

        Examples
        --------
        >>> from nbayes import CategoricalNB
        >>> model = CategoricalNB().fit([["red", 1], ["blue", 2], ["red", 2]], [0, 1, 1])
        >>> model.linear_features([["blue", 2]]).toarray()
        array([[1., 0., 0., 1.]])
        """
        check_is_fitted(self, "stats_")
        X = self._validate_X(X, reset=False)
        blocks = engine.prepare(
            self.families_, self._blocks(X, "score"), self._feature_names_per_block()
        )
        return _linear.linear_design(self.families_, self.params_, blocks)

    def linear_feature_names(self) -> np.ndarray:
        """Names of the :meth:`linear_features` columns (``"x3=2"`` for a one-hot category).

        Returns
        -------
        ndarray of str, shape (n_linear,)
            One name per column of :meth:`linear_features`.

        Examples
        --------
        >>> from nbayes import CategoricalNB
        >>> model = CategoricalNB().fit([["red", 1], ["blue", 2], ["red", 2]], [0, 1, 1])
        >>> model.linear_feature_names().tolist()
        ['x0=blue', 'x0=red', 'x1=1', 'x1=2']
        """
        check_is_fitted(self, "stats_")
        return self._linear_names(self._block_names())

    def _linear_names(self, block_names) -> np.ndarray:
        """Names of the linear columns from each block's column names; models that know
        category values (MixedNB) override this to name one-hot columns by value."""
        return _linear.linear_names(self.families_, self.params_, block_names)

    # -- explanations -----------------------------------------------------------------------------
    def _block_columns(self) -> list[np.ndarray]:
        """Indices of the user's columns that each block holds, in block order; models with
        several column groups override this."""
        return [np.arange(self.n_features_in_)]

    def _column_labels(self) -> list[str]:
        """A name for every input column: ``feature_names_in_``, else ``x0, x1, ...``."""
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            return [f"x{j}" for j in range(self.n_features_in_)]
        return [str(n) for n in names]

    def _block_names(self, feature_names=None) -> list[list[str]]:
        """Column names per block: ``feature_names`` if given (one per input column), else
        :meth:`_column_labels`."""
        names: list[str] | np.ndarray
        if feature_names is None:
            names = self._column_labels()
        else:
            names = np.asarray(feature_names, dtype=str)
            if names.shape != (self.n_features_in_,):
                raise ParameterError(
                    f"feature_names must have one name per input column ({self.n_features_in_});"
                    f" got shape {names.shape}."
                )
        return [[str(names[j]) for j in cols] for cols in self._block_columns()]

    @staticmethod
    def _column_values(X) -> np.ndarray:
        """The validated input as a dense (n_samples, n_features) array, for display."""
        if isinstance(X, pd.DataFrame):
            return X.to_numpy(dtype=object)
        return np.asarray(X.toarray() if sp.issparse(X) else X)

    def explain(self, X, feature_names=None) -> _explain.Explanation:
        """Per-row, per-feature contributions to the prediction.

        ``terms`` holds log P(x_j | y) per row, class and feature; with the class log prior
        they add up to :meth:`predict_joint_log_proba`. ``contributions`` are the per-feature
        log-odds of the predicted class against the runner-up, and add up (with the prior's
        share) to that log-odds. Memory is n_samples x n_classes x n_features: explain a few
        rows at a time.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        feature_names : array-like of shape (n_features,), optional
            Names of the input columns, e.g. ``vectorizer.get_feature_names_out()``; by default
            ``feature_names_in_`` or ``x0, x1, ...``.

        Returns
        -------
        Explanation
            ``terms``, ``contributions``, ``predicted_class`` and ``to_frame(row)``.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> X = np.array([[3, 0, 1], [2, 1, 0], [0, 4, 2]]); y = ["a", "a", "b"]
        >>> ex = MultinomialNB().fit(X, y).explain([[0, 2, 1]])
        >>> ex.predicted_class.tolist(), ex.to_frame(0)["feature"].tolist()
        (['b'], ['x1', 'x2', 'x0'])
        """
        predicted = pd.Index(self.classes_).get_indexer(self.predict(X))
        X = self._validate_X(X, reset=False)
        # Terms come group by group; ``order`` puts them back in the user's column order.
        cols = np.concatenate(self._block_columns())
        order = np.argsort(cols, kind="stable")
        names = np.asarray(
            [n for block in self._block_names(feature_names) for n in block], dtype=str
        )
        values = self._column_values(X)[:, cols[order]]
        return _explain.explain(
            self.families_,
            self._scoring_params(),
            self.class_log_prior_,
            self._blocks(X, "score"),
            self.classes_,
            predicted,
            names[order],
            order,
            values,
            self._feature_names_per_block(),
            [len(c) for c in self._block_columns()],
        )

    def top_features(
        self, class_, k: int | None = 10, feature_names=None, by: str = "weight"
    ) -> pd.DataFrame:
        """The features whose presence (or one more unit) most favours ``class_``.

        The weight of a feature is the class's score weight minus that of its strongest rival
        class, per unit of the feature: for two classes exactly the log-odds weight ``coef_``
        (negated for ``classes_[0]``). Gaussian features with per-class variances have no single
        weight; they use the slope of the score at the feature's overall mean. Weights are per
        unit, so compare Gaussian features on a common scale.

        Ranking by weight favours features that are rare but nearly exclusive to the class
        ("claim", "prize" in spam); ``by="impact"`` multiplies the weight by the feature's mean
        in the class's training rows (for Gaussian features: its distance from the overall
        mean), the average share of the class's log-odds, which favours frequent indicators
        ("txt", "free").

        Parameters
        ----------
        class_ : label
            One of ``classes_``.
        k : int or None, default=10
            How many features to return; None returns all, best first.
        feature_names : array-like of shape (n_features,), optional
            Names of the input columns, e.g. ``vectorizer.get_feature_names_out()``; by default
            ``feature_names_in_`` or ``x0, x1, ...``.
        by : {"weight", "impact"}, default="weight"

        Returns
        -------
        DataFrame
            Columns ``feature`` and ``weight`` (and ``impact``), best first.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> X = np.array([[3, 0, 1], [2, 1, 0], [0, 4, 2]]); y = ["a", "a", "b"]
        >>> MultinomialNB().fit(X, y).top_features("b", k=2)["feature"].tolist()
        ['x1', 'x2']
        """
        check_is_fitted(self, "stats_")
        if by not in _linear.RANKINGS:
            raise ParameterError(f"Parameter 'by' must be one of {_linear.RANKINGS}; got {by!r}.")
        index = pd.Index(self.classes_).get_indexer([class_])[0]
        if index < 0:
            raise UnknownLabelError(
                f"class_={class_!r} is not among classes {self.classes_.tolist()!r}."
            )
        names = self._linear_names(self._block_names(feature_names))
        return _linear.top_features(self.families_, self.stats_, self.params_, index, names, k, by)

    def feature_distribution(
        self, feature, values=None, data=None
    ) -> _conditional.FeatureDistribution:
        """The class-conditional distribution P(x_j | y) of one input column, as the model
        scores it.

        Categorical, Bernoulli and Poisson columns give a probability per value (every
        category, 0 and 1, the counts up to the 99.9 % quantile); Gaussian columns a density on
        a grid; a document-term column of MultinomialNB its share P(word | y), of ComplementNB
        its mean count per row. What :class:`nbayes.plot.ClassConditionalDisplay` draws.

        Parameters
        ----------
        feature : str or int
            The column's name (``feature_names_in_``) or position.
        values : array-like, optional
            The values to evaluate (counts, codes, or points of a density); by default the
            family's own (see above).
        data : array-like, optional
            The column's values in some data set: a density is then drawn over their range.

        Returns
        -------
        FeatureDistribution
            ``values``, ``probability`` of shape (n_classes, n_values), ``kind`` and
            ``to_frame()``.

        Examples
        --------
        >>> import pandas as pd
        >>> from nbayes import MixedNB
        >>> df = pd.DataFrame({"city": ["Oslo", "Rome", "Rome", "Rome"], "t": [1., 2., 9., 8.]})
        >>> model = MixedNB().fit(df, ["a", "a", "b", "b"])
        >>> dist = model.feature_distribution("city")
        >>> dist.kind, dist.values.tolist(), dist.probability.round(3).tolist()
        ('pmf', ['Oslo', 'Rome'], [[0.5, 0.5], [0.25, 0.75]])
        >>> model.feature_distribution("t").kind
        'density'
        """
        check_is_fitted(self, "stats_")
        labels = self._column_labels()
        if isinstance(feature, (int, np.integer)) and not isinstance(feature, bool):
            if not 0 <= feature < len(labels):
                raise ParameterError(
                    f"feature={feature} is out of range: the model has {len(labels)} columns."
                )
            j = int(feature)
        elif str(feature) in labels:
            j = labels.index(str(feature))
        else:
            raise ParameterError(
                f"feature={feature!r} is not a column of the model; its columns are "
                f"{show(labels[:10])[:-1]}{', ...' if len(labels) > 10 else ''}]."
            )
        blocks = self._block_columns() if self.families_ else []
        for g, cols in enumerate(blocks):  # bounded by the column groups
            hits = np.flatnonzero(cols == j)
            if hits.size:
                family, params, local = self.families_[g], self.params_[g], int(hits[0])
                break
        else:  # a model whose scores do not split per column (AODE, TAN, JointBayes, ...)
            raise NotImplementedError(
                f"{type(self).__name__} does not model its columns one at a time: no "
                "class-conditional distribution per feature."
            )
        categories = None
        layout = getattr(self, "_layout", None)
        if family.name == "categorical" and layout is not None:
            from ..distributions.categorical import offsets_of

            n_cat = np.asarray(params["n_categories"])
            start = offsets_of(n_cat)[local]
            names = layout.linear_names(g, self._block_names()[g], n_cat)
            prefix = len(labels[j]) + 1  # "column=value"
            categories = [n[prefix:] for n in names[start : start + int(n_cat[local])]]
        return _conditional.feature_distribution(
            family,
            params,
            self.stats_["groups"][g],
            self.stats_["class_count"],
            len(cols),
            local,
            labels[j],
            self.classes_,
            categories,
            values,
            data,
        )
