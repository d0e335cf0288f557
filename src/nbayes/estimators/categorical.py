"""CategoricalNB: the preset of one categorical family over all columns, on category codes
or on category values (the shared column layout numbers them).
"""

from __future__ import annotations

from functools import partial
from itertools import pairwise
from numbers import Integral
from typing import ClassVar

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.utils.validation import check_is_fitted, validate_data

from .._params import Interval, StrOptions
from ..base import SurveyStep
from ..distributions import Categorical
from ..distributions.categorical import expand, offsets_of
from ..exceptions import ParameterError
from . import _survey
from ._columns import ColumnLayout
from ._discrete import _DISCRETE_FINALIZE, _DiscreteNB


class CategoricalNB(_DiscreteNB):
    """Naive Bayes for categorical features, Dirichlet(alpha) prior.

    Features are either integer codes 0 .. K_j - 1 (as in scikit-learn) or any hashable
    values -- strings, booleans, pandas categoricals, mixed objects -- for which a vocabulary
    per column is learned (``categories_``) and extended append-only by ``partial_fit``. Which
    of the two is decided by the first batch: numeric input means codes.

    Parameters
    ----------
    alpha : float, array-like of shape (n_features,), "auto" or "cv", default=1.0
        "cv" chooses alpha inside fit by the log-loss of 5-fold stratified cross-validation
        (weighted, pooled over the folds) among 13 values from 0.001 to 10, three per decade
        (1 + those for estimate="map"), from the statistics of one pass (no refit);
        ``cv_results_`` keeps the candidates and their losses. Needs all rows in ``fit``.
        "auto" chooses alpha at fit time by maximising the evidence (marginal likelihood of
        the training features under the Dirichlet / Beta / Gamma prior) from the counts alone.
        The posterior-mean estimate (n + a) / (N + K a) is already the Bayesian posterior
        predictive of the next observation, so no separate Bayesian mode is needed.
    force_alpha : bool, default=True
        Keep ``alpha`` as given even when it is below 1e-10 (scikit-learn's parameter; False
        raises such an alpha to 1e-10, as scikit-learn does).
    fit_prior : bool, default=True
        Learn the class prior from the class counts; False gives every class the same prior.
    class_prior : array-like of shape (n_classes,), optional
        Fixed prior probabilities of the classes (in ``classes_`` order); they override
        ``fit_prior``.
    min_categories : int or array-like of shape (n_features,), optional
        The least number of categories of each column, as scikit-learn's parameter: room
        for categories that no training row holds, which get their share of the smoothing.
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
        How a discrete parameter is estimated from its counts n out of N under the prior:
        "posterior_mean" (n + alpha) / (N + K alpha), Lidstone smoothing and scikit-learn's
        estimate; "map" (n + alpha - 1) / (N + K (alpha - 1)), the posterior mode, for
        alpha >= 1; "mle" n / N, where an unseen value has probability zero.
    prior_alpha : float, default=0.0
        Pseudo-observations of every class added to the class counts of the fitted class
        prior (0: the plain frequencies).
    missing : {"error", "ignore", "category"}, default="error"
        "ignore" skips missing cells (NaN, None, pd.NA; or the code -1 in integer input) at fit
        and marginalises them at predict. "category" (values, not codes) makes missingness a
        category of its own: code 0 of every column.
    unseen : {"error", "ignore", "smooth"}, default="error"
        A category at predict time that training never saw (a code >= ``n_categories_[j]``,
        or a value outside the vocabulary). "error" matches scikit-learn, which cannot score
        it either; "ignore" drops the factor; "smooth" gives it the prior mass of a category
        with no observations. With values, one of another type than every training value of
        its column is matched by what it stands for (the text "7" and the number 7, either
        way), and a column whose values are mostly unseen at predict gets a UserWarning.
    decision_threshold : float, optional
        Two classes only: predict ``classes_[1]`` when its log-odds exceed this value (or,
        with ``threshold_scale="proba"``, when its probability does). None is the usual
        most-probable-class rule (threshold 0). Raise it to make e.g. a spam filter less
        aggressive.
    threshold_scale : {"log_odds", "proba"}, default="log_odds"
        The scale of ``decision_threshold``: log-odds, or the probability of ``classes_[1]``.

    Attributes
    ----------
    n_categories_ : ndarray of shape (n_features,)
    category_count_ : list of n_features arrays of shape (n_classes, n_categories_[j])
    feature_log_prob_ : list of n_features arrays of shape (n_classes, n_categories_[j])
    alpha_ : float or ndarray of shape (n_features,)
        The smoothing used: ``alpha`` itself, or the evidence maximiser for ``alpha="auto"``.
    coef_, intercept_ : ndarray
        The linear form: log-odds ``linear_features(X) @ coef_[0] + intercept_[0]`` for two
        classes, per-class scores otherwise.
    categories_ : list of n_features arrays, or None
        The learned values of each column in code order, when fitted on values (None for
        codes). Under missing="category" code 0 is "missing" and values start at code 1.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import CategoricalNB
    >>> X = np.array([[0, 1], [0, 2], [1, 0], [2, 0]]); y = [0, 0, 1, 1]
    >>> CategoricalNB().fit(X, y).predict([[0, 2]]).tolist()
    [0]
    >>> X = [["red", "S"], ["red", "M"], ["blue", "L"], ["green", "L"]]
    >>> model = CategoricalNB().fit(X, ["a", "a", "b", "b"])
    >>> model.categories_[0].tolist(), model.predict([["red", "L"]]).tolist()
    (['blue', 'green', 'red'], ['a'])
    """

    _finalize_only = _DISCRETE_FINALIZE | {"min_categories", "unseen"}
    _parameter_constraints: ClassVar[dict] = {
        **_DiscreteNB._parameter_constraints,
        "min_categories": [Interval(Integral, 1, None, closed="left"), "array-like", None],
        "missing": [StrOptions({"error", "ignore", "category"})],
        "unseen": [StrOptions({"error", "ignore", "smooth"})],
    }

    def __init__(
        self,
        *,
        alpha=1.0,
        force_alpha=True,
        fit_prior=True,
        class_prior=None,
        min_categories=None,
        estimate="posterior_mean",
        prior_alpha=0.0,
        missing="error",
        unseen="error",
        decision_threshold=None,
        threshold_scale="log_odds",
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.min_categories = min_categories
        self.estimate = estimate
        self.prior_alpha = prior_alpha
        self.missing = missing
        self.decision_threshold = decision_threshold
        self.threshold_scale = threshold_scale
        self.unseen = unseen

    def _validate_X(self, X, reset):
        if reset:
            self._layout = None
        # Codes or values: decided by the first batch, then by whether it made a vocabulary.
        if _is_numeric(X) if reset else getattr(self, "_layout", None) is None:
            if self.missing == "category":
                raise ParameterError(
                    "missing='category' needs category values (strings, objects); got numeric "
                    "codes. Use missing='ignore', or pass the values themselves."
                )
            return validate_data(
                self, X, reset=reset, accept_sparse="csr", dtype="numeric", ensure_all_finite=False
            )
        values = validate_data(self, X, reset=reset, dtype=None, ensure_all_finite=False)
        if values.dtype != object:
            values = values.astype(object)
        if reset:
            self._layout = self._new_layout(values.shape[1])
        return values

    def _new_layout(self, n_features: int) -> ColumnLayout:
        """One categorical group of all columns."""
        names = getattr(self, "feature_names_in_", None)
        return ColumnLayout(
            [np.arange(n_features)],
            [True],
            None if names is None else list(names),
            self.missing,
            self.unseen,
        )

    # -- the estimator protocol: category values need a survey of their distinct values ------
    @staticmethod
    def _codes_in(meta) -> bool:
        return isinstance(meta, (int, np.integer)) or _is_numeric(meta)

    def survey_step(self, meta, summary=None):
        """Category values (not codes) need one pass for the distinct values of every column,
        so that codes come out as ``fit`` on all rows numbers them.

        Parameters
        ----------
        meta : DataFrame with no rows, or int
            The data's columns and dtypes (a table), or its number of columns (an array).
        summary : object, optional
            What the passes so far found (None before the first pass).

        Returns
        -------
        SurveyStep or None
            The pass to run over all the data, or None when :meth:`setup` can go ahead.

        Examples
        --------
        >>> import pandas as pd
        >>> from nbayes import CategoricalNB
        >>> CategoricalNB().survey_step(3) is None  # category codes: no pass
        True
        >>> meta = pd.DataFrame({"city": pd.Series(dtype=object), "size": pd.Series(dtype=object)})
        >>> CategoricalNB().survey_step(meta).columns  # category values: a pass for them
        ['city', 'size']
        """
        if summary is not None or self._codes_in(meta):
            return None
        return SurveyStep(
            list(meta.columns),
            partial(_survey.survey_partition, capped=frozenset(), cap=_survey.SURVEY_CAP),
            partial(_survey.merge_surveys, frozenset(), _survey.SURVEY_CAP),
        )

    def setup(self, meta, summary=None) -> None:
        """Get ready to :meth:`accumulate` batches, without learning from any.

        Discards any fitted state; sets the columns (``n_features_in_``, and
        ``feature_names_in_`` for a table with string column names), the families and any
        vocabulary, exactly as ``fit`` on all the rows would.

        Parameters
        ----------
        meta : DataFrame with no rows, or int
            As in :meth:`survey_step`.
        summary : object, optional
            The final summary of the survey passes, if :meth:`survey_step` asked for any.

        Examples
        --------
        >>> import numpy as np
        >>> import pandas as pd
        >>> from nbayes import CategoricalNB
        >>> from nbayes.distributions import Labels
        >>> df = pd.DataFrame({"city": ["Oslo", "Rome", "Oslo"]})
        >>> model = CategoricalNB()
        >>> model.setup(df.iloc[:0], model.survey_step(df.iloc[:0]).summarize(df))
        >>> stats = model.accumulate(df, Labels(np.array([0, 1, 0]), np.ones(3), 2))
        >>> stats["groups"][0]["n_counts"].tolist()  # Oslo, Rome
        [[2.0, 0.0], [0.0, 1.0]]
        """
        super().setup(meta, summary)
        self._layout = None
        if self._codes_in(meta):
            if self.missing == "category":
                raise ParameterError(
                    "missing='category' needs category values (strings, objects); got numeric "
                    "codes. Use missing='ignore', or pass the values themselves."
                )
            return
        if summary is None:
            raise ParameterError(
                "CategoricalNB on category values cannot number them without a survey of "
                "their distinct values: run the passes of survey_step() first."
            )
        _, found = summary
        self._layout = self._new_layout(self.n_features_in_)
        self._layout.learn_values({p: found.get(c) for p, c in enumerate(meta.columns)})

    def _blocks(self, X, mode="score", counted=None):
        if getattr(self, "_layout", None) is None:
            return [X]
        return [self._layout.encode(X, 0, mode, counted)]

    def _linear_names(self, block_names) -> np.ndarray:
        if getattr(self, "_layout", None) is None:
            return super()._linear_names(block_names)
        return np.asarray(
            self._layout.linear_names(0, block_names[0], self.params_[0]["n_categories"]),
            dtype=str,
        )

    def _get_layout(self):
        if self._layout is None:
            return None
        return {"vocabulary": self._layout.vocabulary_state()[0]}

    def _set_layout(self, layout, n_features: int) -> None:
        self._layout = None
        if layout is None:
            return
        spec = layout.get("vocabulary") if isinstance(layout, dict) else None
        if not isinstance(spec, dict):
            raise ValueError("the category vocabulary is malformed.")
        self._layout = self._new_layout(n_features)
        self._layout.set_vocabulary_state([spec])

    def recode_statistics(self, other) -> dict:
        """The statistics of fitted ``other`` (same kind, same settings) in this model's
        encoding, ready to merge with this model's (vocabularies are extended as needed).

        Parameters
        ----------
        other : estimator
            A fitted model of the same class and set-up parameters, over the same columns.

        Returns
        -------
        dict
            ``other``'s statistics, encoded as this model's (over ``other``'s classes).

        Examples
        --------
        >>> from nbayes import CategoricalNB
        >>> a = CategoricalNB().fit([["red", "S"], ["blue", "M"]], [0, 1])
        >>> b = CategoricalNB().fit([["green", "M"]], [0])
        >>> a.recode_statistics(b)["groups"][0]["n_counts"].tolist()  # blue red green | M S
        [[0.0, 0.0, 1.0, 1.0, 0.0]]
        """
        if (self._layout is None) != (other._layout is None):
            raise ParameterError(
                "Cannot merge a CategoricalNB fitted on category codes with one fitted on "
                "category values; fit both on the same kind of input."
            )
        if self._layout is None:
            return other.stats_
        return {
            **other.stats_,
            "groups": self._layout.recode(other._layout, other.stats_["groups"]),
        }

    def _vocabulary_snapshot(self):
        layout = getattr(self, "_layout", None)
        return None if layout is None else layout.copy()

    def _restore_vocabulary(self, snapshot) -> None:
        self._layout = snapshot

    def _remake_families(self):
        if self._layout is not None:
            self._layout = self._layout.with_unseen(self.unseen)
        return super()._remake_families()

    def _restrict(self, stats: dict) -> dict:
        if self._layout is None:
            return stats
        self._layout, groups = self._layout.restricted(stats["groups"])
        return {**stats, "groups": groups}

    def _make_families(self, n_features):
        # Under missing="category" missing cells arrive as code 0: none to skip.
        missing = "ignore" if self.missing == "ignore" else "error"
        return [
            Categorical(
                alpha=self._alpha(),
                estimate=self.estimate,
                min_categories=self.min_categories,
                missing=missing,
                unseen=self.unseen,
            )
        ]

    def _publish(self):
        self.n_categories_ = self.params_[0]["n_categories"]
        self._publish_alpha()

    # A table as wide as the vocabulary costs a pass over it to lay out, which partial_fit
    # does not pay per batch: these are computed from the statistics and parameters on each
    # read (views that change nothing; keep the result rather than read them in a loop).
    @property
    def category_count_(self) -> list:
        """Per column, the (n_classes, n_categories_[j]) weighted counts of each category;
        computed on each read."""
        check_is_fitted(self, "params_")
        stats, n_cat = self.stats_["groups"][0], self.params_[0]["n_categories"]
        counts = expand(stats["n_counts"], stats["n_categories"], n_cat)
        return [counts[:, a:b] for a, b in _pieces(n_cat)]

    @property
    def feature_log_prob_(self) -> list:
        """Per column, the (n_classes, n_categories_[j]) log probability of each category;
        computed from ``params_`` on each read."""
        check_is_fitted(self, "params_")
        params = self.params_[0]
        log_theta = self.families_[0].log_theta(params)
        return [log_theta[:, a:b] for a, b in _pieces(params["n_categories"])]

    @property
    def categories_(self) -> list | None:
        """The values of each column in code order (None when fitted on codes); computed
        from the vocabulary on each read."""
        if "_layout" not in self.__dict__:
            raise AttributeError("'CategoricalNB' object has no attribute 'categories_'")
        layout = self._layout
        return None if layout is None else list(layout.categories().values())

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.positive_only = True
        tags.input_tags.categorical = True
        return tags


def _is_numeric(X) -> bool:
    """True for input that holds numbers only (category codes), False for values."""
    if sp.issparse(X):
        return True
    if isinstance(X, pd.DataFrame):
        return all(
            getattr(t, "kind", "O") in "biuf" and not isinstance(t, pd.CategoricalDtype)
            for t in X.dtypes
        )
    arr = X if isinstance(getattr(X, "dtype", None), np.dtype) else np.asarray(X)
    if arr.dtype == object:  # numbers stored as objects are still codes
        try:
            arr[~pd.isna(arr)].astype(np.float64)
        except ValueError:  # text: category values
            return False
        except TypeError:  # neither numbers nor text: validation reports it as for codes
            return True
        return True
    return arr.dtype.kind in "biuf"


def _pieces(n_categories: np.ndarray) -> list[tuple[int, int]]:
    """(start, stop) of each column's categories in the flat (class, category) layout."""
    return list(pairwise([*offsets_of(n_categories).tolist(), int(n_categories.sum())]))
