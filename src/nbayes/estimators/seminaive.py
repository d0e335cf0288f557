"""Beyond the naive assumption: AODE / A2DE, TAN, KDB and the full-joint Bayes classifier.

The estimators here are thin: they turn a table into integer codes (categories through the
shared column layout :class:`~._columns.ColumnLayout`, as CategoricalNB and MixedNB do, so a
value seen only in rows of weight zero gets no code; numbers through bins) and hand the codes to
the pure core in :mod:`nbayes.seminaive`, which counts (class, value, parent value) tuples,
merges them by addition and chooses the structure at finalize. So ``fit``, ``partial_fit``
over any chunking, :func:`nbayes.merge` of shards, ``unlearn`` and model files agree for these
models exactly as for naive Bayes.

Numeric columns are cut into bins (supervised MDL cuts, or ``n_bins`` quantile bins, or where
the :class:`~nbayes.distributions.Binned` family cuts them on its bounded grid). The
edges must be the same for every batch, so they come from all the rows: ``fit`` computes
:func:`value_weights` (the weight of every distinct value per class) of each numeric column
-- or, with a ``Binned`` family, that family's statistics (:class:`GridSummary`) -- and the
edges from it; :func:`nbayes.dask.fit` and ``nbayes train`` compute the same
summary in a survey pass (:meth:`survey_step`, which sees the labels) and add the partitions'
summaries up, so their edges equal ``fit``'s exactly (with integer weights; float weights
may differ in the last bit of a sum, which moves an edge only at an exact tie).
``partial_fit`` never sees all rows, so it needs the edges fixed beforehand: pass
``bin_edges`` (for instance a fitted model's ``bin_edges_``, or :func:`quantile_edges` of a
sample), or declare the column categorical. A first ``partial_fit`` with a numeric column
and no edges is refused rather than binned on the first batch, which would make chunked
fits disagree with ``fit``.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import ClassVar

import numpy as np

from .._discretise import mdl_edges as mdl_edges  # public here, where it is documented
from .._discretise import quantile_edges as quantile_edges
from .._params import Interval, Options
from ..seminaive import _counts, _feature_terms, aode, network
from ._seminaive_base import BINNINGS as BINNINGS
from ._seminaive_base import MISSING as MISSING
from ._seminaive_base import _SemiNaiveNB
from ._seminaive_survey import GridSummary as GridSummary
from ._seminaive_survey import value_weights as value_weights
from .joint_bayes import JointBayes as JointBayes


class AODE(_SemiNaiveNB):
    """Averaged one-dependence estimators (Webb, Boughton & Wang 2005); ``n=2`` is A2DE.

    Every feature (every pair of features for ``n=2``) whose value in the row was seen at
    least ``min_parent_count`` times in training is a super-parent: its estimator models every
    other feature given the class and the super-parent, and the estimates of P(y, x) are
    averaged. A row with no qualifying parent falls back to the level below (A2DE -> AODE ->
    naive Bayes). Missing cells leave their child factor out and cannot be parents.

    Parameters
    ----------
    n : {1, 2}, default=1
        Number of super-parents of each estimator.
    min_parent_count : float, default=1
        A parent value qualifies when its training weight is at least this. The default 1
        (Weka's too) keeps every parent value that was seen: the conditional tables are
        smoothed by ``alpha`` toward uniform, so a rarely seen parent's estimator is already
        shrunk, and the original paper's 30 throws information away on large data (on Adult
        it changes accuracy by less than 0.1 point).

    alpha : float or array of shape (n_features,), default=1.0
        Dirichlet pseudo-count of every conditional table.
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
        (n + alpha) / (N + K alpha), (n + alpha - 1) / (N + K (alpha - 1)), or n / N.
    missing : {"ignore", "category"}, default="category" for TAN and KDB, "ignore" else
        Missing cells (NaN, None): "ignore" leaves them out of the counts and sums them out
        at predict (exact for TAN and KDB; AODE leaves out the factor of a missing child and
        never uses a missing parent), right when values are missing at random; "category"
        makes "missing" a value of its own (code 0 of categorical columns, the bin after the
        last of numeric ones), which keeps what the fact of being missing says about the
        class. The defaults follow what 20 stratified 70/30 splits of UCI Mushroom (missing
        stalk-root: 31 % of rows, most of them poisonous) and Adult's test split measured:
        TAN's mean test errors on Mushroom fall from 2.95 to 0.20 rows with "category"
        (KDB(2) from 0.40 to 0), Adult's accuracy is unchanged (TAN 0.8614 -> 0.8617, KDB
        0.8590 -> 0.8608); AODE's (1.3 -> 1.0 errors, Adult 0.8534 -> 0.8531), A2DE's and
        JointBayes' figures do not favour it, and AODE then skips missing values as Webb's
        AODE and Weka's do.
    binning : {"mdl", "quantile"} or Binned, default="mdl"
        How ``fit`` cuts numeric columns: Fayyad & Irani's supervised MDL discretisation
        (what Weka applies before AODE), or ``n_bins`` equal-frequency bins, both from the
        weight of every distinct value per class; or a
        :class:`~nbayes.distributions.Binned` family (MDL or equal-frequency cuts of its
        per-class counts on a grid of ``bins`` bins): the same cuts as that family in
        :class:`~nbayes.MixedNB` or :class:`~nbayes.DensityNB`, and a survey whose memory is
        bounded by ``bins`` per class and column, whatever the number of distinct values
        (the distinct-value summaries hold one row per distinct value: for Dask fits of
        many distinct floats), at the grid's resolution (cuts fall on grid boundaries; on
        Adult and Spambase 256 bins cost AODE about one point of accuracy, 1024 bins
        0.0 to 0.1).
    n_bins : int, default=5
        Quantile bins of each numeric column under ``binning="quantile"``.
    bin_edges : dict, optional
        Fixed inner edges per numeric column, ``{column: increasing edges}``; needed by
        ``partial_fit`` (``fit``, ``nbayes.dask.fit`` and ``nbayes train`` find them from
        all the rows).
    categorical : list, optional
        Columns to treat as categories although they hold numbers. A DataFrame is read by
        the typology of :mod:`nbayes.columns`, as ``MixedNB(columns="auto")`` reads it:
        identifiers are left out (with one ColumnWarning) and timestamps become calendar
        features (``"when.month"``, categories); a column named here is not read so, which
        keeps an identifier, or dates as their written values. The choices are in
        ``column_choices_``; arrays are modelled as they are.
    fit_prior : bool, default=True
        Learn the class prior from the class counts; False gives every class the same prior.
    class_prior : array-like of shape (n_classes,), optional
        Fixed prior probabilities of the classes (in ``classes_`` order); they override
        ``fit_prior``.
    prior_alpha : float, default=0.0
        Pseudo-observations of every class added to the class counts of the fitted class
        prior (0: the plain frequencies).
    max_table_bytes : int, default=2**30
        Refuse inputs whose count tables would be larger (a DataError names the size).

    Attributes
    ----------
    classes_, class_count_, class_log_prior_, n_features_in_, feature_names_in_,
    categories_, bin_edges_, stats_ (additive count tables)

    Examples
    --------
    >>> import pandas as pd
    >>> from nbayes import AODE
    >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
    >>> AODE().fit(df, [0, 1, 1, 0]).predict(df).tolist()
    [0, 1, 1, 0]
    """

    _parameter_constraints: ClassVar[dict] = {
        **_SemiNaiveNB._parameter_constraints,
        "n": [Options(Integral, {1, 2})],
        # inf: no parent qualifies, which is naive Bayes
        "min_parent_count": [Interval(Real, 0, np.inf, closed="both")],
    }
    _parameter_messages: ClassVar[dict] = {
        **_SemiNaiveNB._parameter_messages,
        "n": "Parameter 'n' must be 1 (AODE) or 2 (A2DE); got {value}.",
    }

    def __init__(
        self,
        n=1,
        *,
        min_parent_count=1,
        alpha=1.0,
        estimate="posterior_mean",
        missing="ignore",
        binning="mdl",
        n_bins=5,
        bin_edges=None,
        categorical=None,
        fit_prior=True,
        class_prior=None,
        prior_alpha=0.0,
        max_table_bytes=_counts.MAX_TABLE_BYTES,
    ):
        self.n = n
        self.min_parent_count = min_parent_count
        self.alpha = alpha
        self.estimate = estimate
        self.missing = missing
        self.binning = binning
        self.n_bins = n_bins
        self.bin_edges = bin_edges
        self.categorical = categorical
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.prior_alpha = prior_alpha
        self.max_table_bytes = max_table_bytes

    def _order(self) -> int:
        return self.n + 1

    def _build(self, stats, a):
        m = float(self.min_parent_count)
        # Scoring holds about n + 1 normalisations of every cell of the top table.
        _counts.check_size(
            stats["n_categories"] + 1,
            stats["class_count"].size,
            self._order(),
            int(self.max_table_bytes),
            type(self).__name__,
            factor=self._order(),
        )
        return {"levels": aode.finalize(stats, self.n, a, m)}

    def _score(self, codes):
        return aode.log_joint(codes, self.tables_["levels"], self.class_log_prior_)

    def _terms(self, df, codes, names):
        # Each feature's factors averaged over the qualifying super-parents with their
        # share of the average (see nbayes.seminaive._feature_terms); ``given`` lists the
        # super-parents used in the row.
        prior = self.class_log_prior_
        terms, parents = _feature_terms.aode_terms(codes, self.tables_["levels"], prior)
        return prior + terms.sum(axis=2), terms, _feature_terms.given_text(parents, names)


class _Network(_SemiNaiveNB):
    """TAN and KDB: a Bayesian network whose structure is chosen at finalize."""

    def _k(self):
        raise NotImplementedError

    def _build(self, stats, a):
        parents = network.structure(stats, self._k())
        return {"network": network.finalize(stats, parents, a)}

    def _publish(self) -> None:
        names = self._columns
        self.structure_ = {
            names[j]: [names[p] for p in pa]
            for j, pa in enumerate(self.tables_["network"]["parents"])
        }

    def _score(self, codes):
        return network.log_joint(codes, self.tables_["network"], self.class_log_prior_)

    def _terms(self, df, codes, names):
        # log P(x_j | y, parents of j); in a row with missing cells the tables that involve
        # them are summed out together and their joint log value is shared equally among
        # the missing columns.
        net = self.tables_["network"]
        jll = network.log_joint(codes, net, self.class_log_prior_)
        terms = network.feature_terms(codes, net, jll - self.class_log_prior_)
        d = codes.shape[1]
        parents = np.zeros((1, d, d), dtype=bool)
        for j, pa in enumerate(net["parents"]):  # bounded by the features
            parents[0, j, list(pa)] = True
        given = _feature_terms.given_text(parents, names)
        return jll, terms, np.broadcast_to(given, codes.shape)


class TAN(_Network):
    """Tree-augmented naive Bayes (Friedman, Geiger & Goldszmidt 1997).

    Each feature has the class and at most one other feature as parents; the feature tree
    is the maximum spanning tree of I(X_i; X_j | Y), computed from the merged pair counts at
    finalize, rooted at the feature with the largest I(X_j; Y). Missing values are a category
    of their own by default; ``missing="ignore"`` sums them out exactly.

    Parameters
    ----------

    alpha : float or array of shape (n_features,), default=1.0
        Dirichlet pseudo-count of every conditional table.
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
        (n + alpha) / (N + K alpha), (n + alpha - 1) / (N + K (alpha - 1)), or n / N.
    missing : {"ignore", "category"}, default="category" for TAN and KDB, "ignore" else
        Missing cells (NaN, None): "ignore" leaves them out of the counts and sums them out
        at predict (exact for TAN and KDB; AODE leaves out the factor of a missing child and
        never uses a missing parent), right when values are missing at random; "category"
        makes "missing" a value of its own (code 0 of categorical columns, the bin after the
        last of numeric ones), which keeps what the fact of being missing says about the
        class. The defaults follow what 20 stratified 70/30 splits of UCI Mushroom (missing
        stalk-root: 31 % of rows, most of them poisonous) and Adult's test split measured:
        TAN's mean test errors on Mushroom fall from 2.95 to 0.20 rows with "category"
        (KDB(2) from 0.40 to 0), Adult's accuracy is unchanged (TAN 0.8614 -> 0.8617, KDB
        0.8590 -> 0.8608); AODE's (1.3 -> 1.0 errors, Adult 0.8534 -> 0.8531), A2DE's and
        JointBayes' figures do not favour it, and AODE then skips missing values as Webb's
        AODE and Weka's do.
    binning : {"mdl", "quantile"} or Binned, default="mdl"
        How ``fit`` cuts numeric columns: Fayyad & Irani's supervised MDL discretisation
        (what Weka applies before AODE), or ``n_bins`` equal-frequency bins, both from the
        weight of every distinct value per class; or a
        :class:`~nbayes.distributions.Binned` family (MDL or equal-frequency cuts of its
        per-class counts on a grid of ``bins`` bins): the same cuts as that family in
        :class:`~nbayes.MixedNB` or :class:`~nbayes.DensityNB`, and a survey whose memory is
        bounded by ``bins`` per class and column, whatever the number of distinct values
        (the distinct-value summaries hold one row per distinct value: for Dask fits of
        many distinct floats), at the grid's resolution (cuts fall on grid boundaries; on
        Adult and Spambase 256 bins cost AODE about one point of accuracy, 1024 bins
        0.0 to 0.1).
    n_bins : int, default=5
        Quantile bins of each numeric column under ``binning="quantile"``.
    bin_edges : dict, optional
        Fixed inner edges per numeric column, ``{column: increasing edges}``; needed by
        ``partial_fit`` (``fit``, ``nbayes.dask.fit`` and ``nbayes train`` find them from
        all the rows).
    categorical : list, optional
        Columns to treat as categories although they hold numbers. A DataFrame is read by
        the typology of :mod:`nbayes.columns`, as ``MixedNB(columns="auto")`` reads it:
        identifiers are left out (with one ColumnWarning) and timestamps become calendar
        features (``"when.month"``, categories); a column named here is not read so, which
        keeps an identifier, or dates as their written values. The choices are in
        ``column_choices_``; arrays are modelled as they are.
    fit_prior : bool, default=True
        Learn the class prior from the class counts; False gives every class the same prior.
    class_prior : array-like of shape (n_classes,), optional
        Fixed prior probabilities of the classes (in ``classes_`` order); they override
        ``fit_prior``.
    prior_alpha : float, default=0.0
        Pseudo-observations of every class added to the class counts of the fitted class
        prior (0: the plain frequencies).
    max_table_bytes : int, default=2**30
        Refuse inputs whose count tables would be larger (a DataError names the size).

    Attributes
    ----------
    structure_ : dict
        Column -> list of its feature parents (empty for the root).

    Examples
    --------
    >>> import pandas as pd
    >>> from nbayes import TAN
    >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
    >>> TAN().fit(df, [0, 1, 1, 0]).structure_
    {'a': [], 'b': ['a']}
    """

    def __init__(
        self,
        *,
        alpha=1.0,
        estimate="posterior_mean",
        missing="category",
        binning="mdl",
        n_bins=5,
        bin_edges=None,
        categorical=None,
        fit_prior=True,
        class_prior=None,
        prior_alpha=0.0,
        max_table_bytes=_counts.MAX_TABLE_BYTES,
    ):
        self.alpha = alpha
        self.estimate = estimate
        self.missing = missing
        self.binning = binning
        self.n_bins = n_bins
        self.bin_edges = bin_edges
        self.categorical = categorical
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.prior_alpha = prior_alpha
        self.max_table_bytes = max_table_bytes

    def _order(self):
        return 2

    def _k(self):
        return None


class KDB(_Network):
    """k-dependence Bayesian classifier (Sahami 1996).

    Features are taken in order of decreasing I(X_j; Y); each takes as parents (besides the
    class) the up to ``k`` earlier features with the largest I(X_j; X_p | Y). Counts of
    (class, k + 1 values) are kept for every (k + 1)-subset of features, so the structure can
    be chosen at finalize from merged statistics. ``k=0`` is naive Bayes.

    Parameters
    ----------
    k : int, default=2
        The most parents of a feature besides the class.

    alpha : float or array of shape (n_features,), default=1.0
        Dirichlet pseudo-count of every conditional table.
    estimate : {"posterior_mean", "map", "mle"}, default="posterior_mean"
        (n + alpha) / (N + K alpha), (n + alpha - 1) / (N + K (alpha - 1)), or n / N.
    missing : {"ignore", "category"}, default="category" for TAN and KDB, "ignore" else
        Missing cells (NaN, None): "ignore" leaves them out of the counts and sums them out
        at predict (exact for TAN and KDB; AODE leaves out the factor of a missing child and
        never uses a missing parent), right when values are missing at random; "category"
        makes "missing" a value of its own (code 0 of categorical columns, the bin after the
        last of numeric ones), which keeps what the fact of being missing says about the
        class. The defaults follow what 20 stratified 70/30 splits of UCI Mushroom (missing
        stalk-root: 31 % of rows, most of them poisonous) and Adult's test split measured:
        TAN's mean test errors on Mushroom fall from 2.95 to 0.20 rows with "category"
        (KDB(2) from 0.40 to 0), Adult's accuracy is unchanged (TAN 0.8614 -> 0.8617, KDB
        0.8590 -> 0.8608); AODE's (1.3 -> 1.0 errors, Adult 0.8534 -> 0.8531), A2DE's and
        JointBayes' figures do not favour it, and AODE then skips missing values as Webb's
        AODE and Weka's do.
    binning : {"mdl", "quantile"} or Binned, default="mdl"
        How ``fit`` cuts numeric columns: Fayyad & Irani's supervised MDL discretisation
        (what Weka applies before AODE), or ``n_bins`` equal-frequency bins, both from the
        weight of every distinct value per class; or a
        :class:`~nbayes.distributions.Binned` family (MDL or equal-frequency cuts of its
        per-class counts on a grid of ``bins`` bins): the same cuts as that family in
        :class:`~nbayes.MixedNB` or :class:`~nbayes.DensityNB`, and a survey whose memory is
        bounded by ``bins`` per class and column, whatever the number of distinct values
        (the distinct-value summaries hold one row per distinct value: for Dask fits of
        many distinct floats), at the grid's resolution (cuts fall on grid boundaries; on
        Adult and Spambase 256 bins cost AODE about one point of accuracy, 1024 bins
        0.0 to 0.1).
    n_bins : int, default=5
        Quantile bins of each numeric column under ``binning="quantile"``.
    bin_edges : dict, optional
        Fixed inner edges per numeric column, ``{column: increasing edges}``; needed by
        ``partial_fit`` (``fit``, ``nbayes.dask.fit`` and ``nbayes train`` find them from
        all the rows).
    categorical : list, optional
        Columns to treat as categories although they hold numbers. A DataFrame is read by
        the typology of :mod:`nbayes.columns`, as ``MixedNB(columns="auto")`` reads it:
        identifiers are left out (with one ColumnWarning) and timestamps become calendar
        features (``"when.month"``, categories); a column named here is not read so, which
        keeps an identifier, or dates as their written values. The choices are in
        ``column_choices_``; arrays are modelled as they are.
    fit_prior : bool, default=True
        Learn the class prior from the class counts; False gives every class the same prior.
    class_prior : array-like of shape (n_classes,), optional
        Fixed prior probabilities of the classes (in ``classes_`` order); they override
        ``fit_prior``.
    prior_alpha : float, default=0.0
        Pseudo-observations of every class added to the class counts of the fitted class
        prior (0: the plain frequencies).
    max_table_bytes : int, default=2**30
        Refuse inputs whose count tables would be larger (a DataError names the size).

    Attributes
    ----------
    structure_ : dict
        Column -> list of its feature parents, strongest first.

    Examples
    --------
    >>> import pandas as pd
    >>> from nbayes import KDB
    >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"],
    ...                    "c": ["s", "s", "s", "t"]})
    >>> sorted(len(p) for p in KDB(k=2).fit(df, [0, 1, 1, 0]).structure_.values())
    [0, 1, 2]
    """

    _parameter_constraints: ClassVar[dict] = {
        **_SemiNaiveNB._parameter_constraints,
        "k": [Interval(Integral, 0, None, closed="left")],
    }

    def __init__(
        self,
        k=2,
        *,
        alpha=1.0,
        estimate="posterior_mean",
        missing="category",
        binning="mdl",
        n_bins=5,
        bin_edges=None,
        categorical=None,
        fit_prior=True,
        class_prior=None,
        prior_alpha=0.0,
        max_table_bytes=_counts.MAX_TABLE_BYTES,
    ):
        self.k = k
        self.alpha = alpha
        self.estimate = estimate
        self.missing = missing
        self.binning = binning
        self.n_bins = n_bins
        self.bin_edges = bin_edges
        self.categorical = categorical
        self.fit_prior = fit_prior
        self.class_prior = class_prior
        self.prior_alpha = prior_alpha
        self.max_table_bytes = max_table_bytes

    def _order(self):
        return min(int(self.k), max(self.n_features_in_ - 1, 0)) + 1

    def _k(self):
        return int(self.k)
