"""MixedNB: one Naive Bayes model over a table whose columns need different families.

Columns are gathered into groups, each modelled by one family (Gaussian for measurements,
Categorical for labels, Bernoulli for flags, Poisson for counts, ...). Under the naive
assumption the groups are independent given the class, so the joint log-likelihood is the sum
of the groups' and everything -- fit, partial_fit, merge, missing values -- works group by group
on the same engine as the presets.

How a table's columns become groups is in ``_mixed_groups``; reading a batch into the groups'
blocks, set-up from a survey and the layout's state in ``_mixed_protocol``.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np
import pandas as pd

from .._params import Interval, StrOptions
from ..distributions.categorical import UNSEEN
from ..exceptions import NotFittedError, ParameterError
from ._base import BaseNB
from ._columns import MISSING_POLICIES
from ._constraints import ALPHA_MESSAGE, CLASS_PRIOR, SMOOTHING, VAR_SMOOTHING_MESSAGE
from ._mixed_groups import _MixedGroups
from ._mixed_protocol import _MixedProtocol

REMAINDER = ("auto", "drop", "error")


class MixedNB(_MixedGroups, _MixedProtocol, BaseNB):
    """Naive Bayes over a table of mixed columns: one family per column group.

    Fits straight from a pandas DataFrame (or a pyarrow Table, or an array): strings and
    pandas categoricals are categories, booleans are flags, floats are measurements, and missing
    values (NaN, None, pd.NA) need no imputation.

    Parameters
    ----------
    columns : "auto" or list of (family, selector), default="auto"
        The column groups, in the spirit of scikit-learn's ``make_column_transformer``.
        ``family`` is a registered family name (``"gaussian"``, ``"categorical"``,
        ``"bernoulli"``, ``"poisson"``, ``"multinomial"``, ``"complement"``, ``"text"``), a
        family instance carrying its own parameters (``Categorical(alpha=0.5)``,
        ``Text(n_buckets=2**18)``), or ``"auto"``. A ``"text"`` group reads each of its columns
        as short texts (addresses, names, product titles): their words, hashed into buckets,
        are counts of a multinomial per class and column (see
        :class:`nbayes.distributions.Text`), modelled together with the other columns. ``selector``
        is a column name, a position, a list of either, a slice, a boolean mask, or a callable
        that takes the DataFrame and returns column names (e.g. scikit-learn's
        ``make_column_selector``). Columns in no group follow ``remainder``. With ``"auto"``
        every column is read by the typology of :mod:`nbayes.columns` (one kind per column,
        with its evidence), which gives its family:

        * identifier (whole numbers or codes distinct in every row, named like a row index
          or filling their range like row numbers) -> left out, with a
          :class:`~nbayes.exceptions.ColumnWarning` that names it and how to keep it (name
          it in a group)
        * timestamp (a datetime dtype, or dates and times written in the common forms) ->
          calendar features ``"<column>.year"``, ``.month``, ``.dayofweek`` and ``.hour``
          where times are written, each categorical; predict reads the raw column. A
          ``("calendar", [...])`` group names such columns explicitly.
        * boolean (numpy, pandas ``boolean``, Arrow bool, Python booleans with gaps) ->
          ``"bernoulli"``
        * category, short text, free text (object, string, category dtypes) ->
          ``"categorical"``
        * number: float -> ``"gaussian"``; integer -> ``"categorical"`` when it has at most
          ``max_int_categories`` distinct values in the first batch fitted, ``"gaussian"``
          otherwise. Integer counts that should be Poisson must be named:
          ``columns=[("poisson", ["visits"])]``. A number column that codes missing values
          with a number (999999, -99, ...) gets a ColumnWarning with the fix.

        The choice is made once, on the first batch (``fit`` or the first ``partial_fit``),
        and reported by ``column_families_``, ``column_choices_`` (column, kind, family,
        why), :meth:`summary` and :meth:`infer_families`.

        Durations and complex numbers raise a ParameterError asking for a family.
    remainder : {"auto", "drop", "error"}, default="auto"
        What happens to columns in no group: infer their family as above, leave them out of
        the model, or raise.
    missing : {"ignore", "error", "category"}, default="ignore"
        Missing cells (NaN, None, pd.NA, NaT) in any column. "ignore" leaves them out of the
        statistics at fit (weights are kept per class and feature) and out of the product at
        predict -- exact marginalisation under the naive assumption. "error" raises a
        DataError naming the column and first row. "category" makes "missing" a category of
        its own (code 0) in categorical columns and ignores it in the others. Applies to every
        group, including families given as instances.
    unseen : {"smooth", "ignore", "error"}, default="smooth"
        A category at predict time that no training batch contained. "smooth" gives it the
        prior mass of a category with no observations, alpha / (n_kj + K_j alpha) in class k;
        "ignore" drops that factor, as for a missing value; "error" raises a DataError naming
        the column, the value and the row. The default is "smooth" because it is what the
        Dirichlet prior already says about a category never observed, keeps batch scoring
        running when new values appear in production, and still uses the evidence: a new
        value is less likely under classes with much data. Applies to every categorical group.
        Values whose type differs from that of every training value of their column are
        matched by what they stand for at predict (the text "7" and the number 7, either
        way), and a column whose values are mostly unseen at predict (over half, at least
        10 values) gets a UserWarning that names it.
    max_int_categories : int or "auto", default="auto"
        Integer columns with at most this many distinct values are categorical under "auto".
        "auto" is ``max(20, sqrt(n_rows))`` of the first batch: an integer column becomes
        categorical when its categories would hold about sqrt(n) rows each on average, so
        small ages, ratings or hour counts are modelled exactly while ids and amounts with
        many distinct values stay Gaussian. (On UCI Adult this makes age, hours-per-week and
        the capital columns categorical: their spikes at 0, 40, 99999 are not normal).
    alpha : float or "cv", default=1.0
        Dirichlet / Beta / Gamma prior concentration of the discrete families named by string.
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
        Estimate of the discrete families named by string.
    var_smoothing : float or "cv", default=1e-9
        Variance floor of Gaussian groups named by string, relative to the largest variance
        in the group.
        "cv" (either or both) chooses by 5-fold cross-validated log-loss inside fit, as in
        the presets (alpha first, then var_smoothing at the chosen alpha).
    fit_prior : bool, default=True
        Learn the class prior; False uses a uniform prior.
    class_prior : array-like of shape (n_classes,), optional
        Fixed class prior.
    prior_alpha : float, default=0.0
        Hallucinated observations of every class in the fitted prior.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features,)
        Column names, when fitted on a table whose column names are all strings. At predict,
        a DataFrame's columns are matched by name (reordered as needed); a missing column is
        a DataError, extra columns are ignored with a UserWarning.
    column_groups_ : list of (str, list)
        Family name and column labels of each group, as fitted.
    column_families_ : dict
        Column label -> family name.
    categories_ : dict
        Column label -> ndarray of the categories of each categorical column, in code order.
        Vocabularies only grow: partial_fit appends new values.
    families_ : list of Family
    stats_ : dict
        Mergeable sufficient statistics per group.

    See Also
    --------
    MixedNB.summary : One row per column with its family, categories and missing share.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from nbayes import MixedNB
    >>> df = pd.DataFrame({"colour": ["red", "red", "blue", None],
    ...                    "size": [1.0, 1.2, 3.1, 2.9],
    ...                    "spots": [True, True, False, False]})
    >>> model = MixedNB().fit(df, ["apple", "apple", "plum", "plum"])
    >>> model.column_families_
    {'colour': 'categorical', 'size': 'gaussian', 'spots': 'bernoulli'}
    >>> new = pd.DataFrame({"spots": [False], "colour": ["green"], "size": [np.nan]})
    >>> model.predict(new).tolist()  # columns matched by name; unseen and missing handled
    ['plum']
    """

    _finalize_only = frozenset(
        {"alpha", "estimate", "var_smoothing", "fit_prior", "class_prior", "prior_alpha", "unseen"}
    )
    #: The fitted table's column labels, then the labels of its calendar features.
    _columns: list

    _parameter_constraints: ClassVar[dict] = {
        "columns": [StrOptions({"auto"}), list, tuple],
        "remainder": [StrOptions(set(REMAINDER))],
        "missing": [StrOptions(set(MISSING_POLICIES))],
        "unseen": [StrOptions(set(UNSEEN))],
        "max_int_categories": [StrOptions({"auto"}), Interval(Integral, 0, None, closed="left")],
        **SMOOTHING,
        "var_smoothing": [Real, StrOptions({"auto", "cv"})],
        **CLASS_PRIOR,
    }
    _parameter_messages: ClassVar[dict] = {
        "alpha": ALPHA_MESSAGE,
        "var_smoothing": VAR_SMOOTHING_MESSAGE,
        "columns": (
            "Parameter 'columns' must be 'auto' or a list of (family, selector) pairs, e.g. "
            "[('gaussian', ['age']), ('categorical', ['city'])]; got {value}."
        ),
    }

    def __init__(
        self,
        columns="auto",
        *,
        remainder="auto",
        missing="ignore",
        unseen="smooth",
        max_int_categories="auto",
        alpha=1.0,
        estimate="posterior_mean",
        var_smoothing=1e-9,
        fit_prior=True,
        class_prior=None,
        prior_alpha=0.0,
    ):
        self.columns = columns
        self.remainder = remainder
        self.missing = missing
        self.unseen = unseen
        self.max_int_categories = max_int_categories
        self.alpha = alpha
        self.estimate = estimate
        self.var_smoothing = var_smoothing
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.prior_alpha = prior_alpha

    # -- explanations (hooks of BaseNB.explain / top_features / linear form) ---------------------
    def _block_columns(self) -> list[np.ndarray]:
        return list(self._layout.positions)

    def _column_labels(self) -> list[str]:
        if self._from_table:
            return [str(c) for c in self._columns]
        inputs = super()._column_labels()  # x0, x1, ...
        return inputs + self._calendar_of().names(inputs)

    def _block_names(self, feature_names=None) -> list[list[str]]:
        """As :meth:`BaseNB._block_names`; a name given per input column names its calendar
        features too (``"W.month"`` for a date column named ``"W"``)."""
        if feature_names is None:
            return super()._block_names()
        names = np.asarray(feature_names, dtype=str)
        if names.shape != (self.n_features_in_,):
            raise ParameterError(
                f"feature_names must have one name per input column ({self.n_features_in_}); "
                f"got shape {names.shape}."
            )
        full = [str(n) for n in names]
        full += self._calendar_of().names(full)
        return [[full[j] for j in cols] for cols in self._block_columns()]

    def _linear_names(self, block_names) -> np.ndarray:
        """One-hot columns of categorical groups are named by value: ``"city=Rome"``."""
        names: list[str] = []
        for g, (fam, p, cols, vocab) in enumerate(
            zip(self.families_, self.params_, block_names, self._layout.vocabularies)
        ):  # bounded by the number of groups
            names.extend(
                fam.linear_feature_names(p, cols)
                if vocab is None
                else self._layout.linear_names(g, cols, p["n_categories"])
            )
        return np.asarray(names, dtype=str)

    def __sklearn_tags__(self):
        tags = super(BaseNB, self).__sklearn_tags__()
        tags.input_tags.allow_nan = self.missing != "error"
        tags.input_tags.string = True
        tags.input_tags.categorical = True
        tags.input_tags.sparse = False
        return tags

    # -- reporting -----------------------------------------------------------------------------
    def summary(self) -> pd.DataFrame:
        """One row per modelled column (in table order): kind, family, group, number of
        categories and missing share.

        Returns
        -------
        DataFrame
            Indexed by column label (a timestamp's calendar features as ``"when.month"``),
            with columns ``kind`` (see :mod:`nbayes.columns`; ``"named"`` for a column
            named in a group, empty for a model loaded from a file), ``family`` (with the
            reading chosen per column by a ``"density"`` group, e.g. ``"density (kde)"``),
            ``group``,
            ``n_categories`` (categorical columns; excludes the reserved missing code) and
            ``missing`` (share of the training weight where the value was missing; NaN for
            families that do not track it).

        Examples
        --------
        >>> import pandas as pd
        >>> from nbayes import MixedNB
        >>> df = pd.DataFrame({"city": ["Oslo", None, "Rome", "Rome"], "t": [1., 2., 9., 8.]})
        >>> MixedNB().fit(df, [0, 0, 1, 1]).summary()
                  kind       family  group  n_categories  missing
        city  category  categorical      0           2.0     0.25
        t       number     gaussian      1           NaN     0.00
        """
        if not hasattr(self, "stats_"):
            raise NotFittedError("This MixedNB instance is not fitted yet; call 'fit' first.")
        total = float(self.class_count_.sum())
        frames = []
        for g, (fam, pos, stats, vocab, params) in enumerate(
            zip(
                self.families_,
                self._layout.positions,
                self.stats_["groups"],
                self._layout.vocabularies,
                self.params_,
            )
        ):
            readings = fam.column_readings(params)
            family = fam.name if readings is None else [f"{fam.name} ({r})" for r in readings]
            observed = fam.observed_weight(stats)
            if observed.shape[0] != len(pos):  # a text column's words: not told apart
                observed = np.full(len(pos), np.nan)
            n_cat = np.full(len(pos), np.nan)
            if vocab is not None:
                n_cat = vocab.n_categories().astype(float) - vocab.first_code
                if vocab.first_code:  # code 0 is "missing": count it as missing
                    observed = observed - stats["n_counts"][:, offsets(stats)].sum(axis=0)
            with np.errstate(invalid="ignore", divide="ignore"):
                missing = 1.0 - observed / total if total > 0 else np.full(len(pos), np.nan)
            kinds = self._kind_of()
            frames.append(
                pd.DataFrame(
                    {
                        "kind": [kinds.get(self._columns[p], "") for p in pos],
                        "family": family,
                        "group": g,
                        "n_categories": n_cat,
                        "missing": np.round(missing, 12),
                    },
                    index=pd.Index([self._columns[p] for p in pos]),
                )
            )
        table = pd.concat(frames)
        return table.iloc[np.argsort(np.concatenate(self._layout.positions), kind="stable")]

    # -- model files (the layout's own state: _mixed_protocol) ----------------------------------
    def set_state(self, state: dict):
        """Become the fitted model of :meth:`get_state` output (the constructor parameters in
        it are not applied: build the estimator with them first).

        Parameters
        ----------
        state : dict
            What :meth:`get_state` returned, for an estimator of this class.

        Returns
        -------
        self
            The fitted model.

        Raises
        ------
        ValueError
            The parts do not fit together.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> state = MultinomialNB().fit([[1, 0], [0, 2]], ["a", "b"]).get_state()
        >>> MultinomialNB().set_state(state).classes_.tolist()
        ['a', 'b']
        """
        super().set_state(state)
        # A vocabulary may hold values beyond the statistics' categories (values seen only in
        # rows of weight zero count as never seen), but each group needs one iff categorical.
        for g, (fam, vocab) in enumerate(zip(self.families_, self._layout.vocabularies)):
            if (fam.name == "categorical") != (vocab is not None):
                raise ValueError(f"the vocabulary of column group {g} does not match its family.")
        return self


def offsets(stats) -> np.ndarray:
    """Column of category 0 of each feature in a categorical group's flat count array."""
    from ..distributions.categorical import offsets_of

    return offsets_of(stats["n_categories"])


__all__ = ["MixedNB"]
