"""JointBayes: the Bayes classifier that counts whole feature vectors, with a naive Bayes
backoff (one of the semi-naive models of :mod:`nbayes.estimators.seminaive`).
"""

from __future__ import annotations

import copy
from numbers import Real
from typing import ClassVar

import numpy as np
import pandas as pd
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from .. import base
from .._params import HasMethods, Interval
from ..distributions._estimates import check_alpha, pseudo_count
from ..exceptions import ParameterError
from ..seminaive import _counts, _feature_terms, aode, joint
from ._seminaive_base import _SemiNaiveNB


class JointBayes(_SemiNaiveNB):
    """The Bayes classifier that counts whole feature vectors, with a naive Bayes backoff.

    A row whose complete feature vector was seen at least ``min_count`` times is classified
    by the smoothed class distribution of that vector, (n(y, x) + alpha) / (n(x) + C alpha);
    any other row (a rarer vector, an unseen category, a missing value) by the backoff
    model: naive Bayes from the same counts, or ``backoff``, an nbayes estimator fitted on the
    same batches. With few features and many rows this is the optimal classifier; as
    features grow the vectors become unique and it needs vastly more rows than naive Bayes.

    Parameters
    ----------
    min_count : float, default=1
        Training weight a vector needs to be scored by its own counts.
    backoff : estimator, optional
        An unfitted nbayes estimator (e.g. ``TAN()``) for the other rows; it receives every
        batch. Default: naive Bayes over the same codes.

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

    Examples
    --------
    >>> import pandas as pd
    >>> from nbayes import JointBayes
    >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
    >>> JointBayes().fit(df, [0, 1, 1, 0]).predict(df).tolist()
    [0, 1, 1, 0]
    """

    def capabilities(self) -> frozenset[str]:
        """The semi-naive models', and ``holds_model``: a ``backoff`` model may be part of
        it (see :meth:`EstimatorProtocol.capabilities`).

        Returns
        -------
        frozenset of str
            The capabilities this model declares.

        Examples
        --------
        >>> from nbayes import JointBayes
        >>> sorted(JointBayes().capabilities())
        ['explanations', 'holds_model', 'joint_probability']
        """
        return super().capabilities() | {base.HOLDS_MODEL}

    _parameter_constraints: ClassVar[dict] = {
        **_SemiNaiveNB._parameter_constraints,
        "min_count": [Interval(Real, 0, None, closed="left")],
        "backoff": [None, HasMethods(["partial_fit", "predict_joint_log_proba", "explain"])],
    }
    _parameter_messages: ClassVar[dict] = {
        **_SemiNaiveNB._parameter_messages,
        "backoff": (
            "Parameter 'backoff' must be None (naive Bayes from the same counts) or an nbayes "
            "estimator such as MixedNB(); got {value}."
        ),
    }

    def __init__(
        self,
        *,
        min_count=1,
        backoff=None,
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
        self.min_count = min_count
        self.backoff = backoff
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
        return 1

    def _extra_stats(self, codes, labels, stats):
        return {**stats, **joint.accumulate(codes, labels)}

    def _statistics(self):
        return _counts.slots(self._order(), vectors=True)

    def _build(self, stats, a):
        m = float(self.min_count)
        return {
            "joint": joint.finalize(stats, float(np.mean(a)) if a.size else 1.0, m),
            "naive": aode.finalize_level(stats, 0, a, 1.0),
        }

    def _learn_onto(self, df, classes, labels, n_added):
        super()._learn_onto(df, classes, labels, n_added)
        if self.backoff is not None:
            if not hasattr(self, "backoff_"):
                self.backoff_ = clone(self.backoff)
                reading = self.__dict__.get("_reading")
                if "categorical" in self.backoff_.get_params() and reading is not None:
                    # The calendar features of this model's table are categories there too.
                    own = list(self.backoff_.get_params()["categorical"] or [])
                    self.backoff_.set_params(categorical=own + reading.calendar_names())
                if "bin_edges" in self.backoff_.get_params() and self._edges:
                    # A semi-naive backoff learns batch by batch too, so it cuts numeric
                    # columns at this model's edges (those it was not given itself).
                    own = self.backoff_.get_params()["bin_edges"] or {}
                    self.backoff_.set_params(bin_edges={**self._edges, **own})
            self.backoff_.partial_fit(
                df, classes[labels.codes], classes=classes, sample_weight=labels.weights
            )

    def _jll(self, X, normalised):
        check_is_fitted(self, "stats_")
        df = self._validate_X(X, reset=False)
        codes = self._codes(df, "score")

        def fallback(rows):
            if self.backoff is None:
                return aode.log_joint(codes[rows], [self.tables_["naive"]], self.class_log_prior_)
            out = self.backoff_.predict_joint_log_proba(df.iloc[rows])
            order = pd.Index(self.backoff_.classes_).get_indexer(self.classes_)
            return out[:, order]

        return joint.log_joint(codes, self.stats_, self.tables_["joint"], fallback)

    def scored_by_joint(self, X) -> np.ndarray:
        """Which rows of X the joint table scores (their whole vector was seen at least
        ``min_count`` times); the others are scored by the backoff model.

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Rows as ``predict`` takes them.

        Returns
        -------
        ndarray of bool, shape (n_samples,)
            True where the joint table scores the row.

        Examples
        --------
        >>> from nbayes import JointBayes
        >>> model = JointBayes().fit([["a", "x"], ["a", "x"], ["b", "y"]], [0, 0, 1])
        >>> model.scored_by_joint([["a", "x"], ["b", "x"]]).tolist()
        [True, False]
        """
        check_is_fitted(self, "stats_")
        return self._joint_rows(self._codes(self._validate_X(X, reset=False), "score"))

    def _joint_rows(self, codes: np.ndarray) -> np.ndarray:
        where = joint.find(self.stats_, codes)
        own = where >= 0
        own[own] = self.tables_["joint"]["usable"][where[own]]
        return own

    def _terms(self, df, codes, names):
        # Rows scored by their own vector: the chain rule over the columns in order, each
        # step the model's smoothed estimate of one more column given the earlier ones.
        # Other rows: the backoff model's terms (its class prior's difference from this
        # model's, zero when both are fitted on the same rows, shared equally).
        prior = self.class_log_prior_
        jll = self._jll(df, normalised=False)
        own = self._joint_rows(codes)
        d = codes.shape[1]
        terms = np.zeros((len(codes), prior.size, d))
        given = np.empty(codes.shape, dtype=object)
        a = pseudo_count(check_alpha(self.alpha, d, self.estimate), self.estimate)
        terms[own] = _feature_terms.joint_terms(
            codes[own], self.stats_, float(np.mean(a)) if a.size else 1.0, prior, jll[own]
        )
        earlier = np.tril(np.ones((d, d), dtype=bool), -1)[None]
        given[own] = _feature_terms.given_text(earlier, names)
        rest = np.flatnonzero(~own)
        if rest.size and self.backoff is None:
            naive, _ = _feature_terms.aode_terms(codes[rest], [self.tables_["naive"]], prior)
            terms[rest], given[rest] = naive, ""
        elif rest.size:
            ex = self.backoff_.explain(df.iloc[rest], feature_names=names)
            order = pd.Index(self.backoff_.classes_).get_indexer(self.classes_)
            shift = (ex.log_prior[order] - prior) / d
            terms[rest] = ex.terms[:, order, :] + shift[None, :, None]
            given[rest] = "" if ex.given is None else ex.given
        return jll, terms, given

    # -- with a backoff estimator: what follows it and what does not ---------------------------
    def _refuse_backoff(self, what: str) -> None:
        if self.backoff is not None:
            raise ParameterError(
                f"JointBayes with a backoff estimator cannot be {what} yet: the protocol "
                "carries JointBayes' statistics only, so the backoff model would not follow. "
                "Use the default naive Bayes backoff (backoff=None), or fit on one machine."
            )

    def survey_step(self, meta, summary=None):
        """The next pass over the data needed before :meth:`setup`, or None when none is.

        Most estimators need none: their columns and families follow from ``meta``. MixedNB
        needs what its column reading reads and the distinct values of its categorical
        columns (to read columns and number categories as ``fit`` on all rows would); TextNB
        with a CountVectorizer needs word counts (its vocabulary).

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
        >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
        >>> from nbayes import JointBayes
        >>> JointBayes().survey_step(df.iloc[:0]).columns
        ['a', 'b']
        """
        self._refuse_backoff("fitted through the estimator protocol (nbayes.dask.fit)")
        return super().survey_step(meta, summary)

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
        >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
        >>> from nbayes import JointBayes
        >>> from nbayes.distributions import Labels
        >>> model = JointBayes()
        >>> model.setup(df.iloc[:0], model.survey_step(df.iloc[:0]).summarize(df, None, None))
        >>> stats = model.accumulate(df, Labels(np.array([0, 1, 1, 0]), np.ones(4), 2))
        >>> stats["class_count"].tolist()
        [2.0, 2.0]
        """
        self._refuse_backoff("fitted through the estimator protocol (nbayes.dask.fit)")
        super().setup(meta, summary)

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
        >>> import pandas as pd
        >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
        >>> from nbayes import JointBayes
        >>> a = JointBayes().fit(df, [0, 1, 1, 0])
        >>> b = JointBayes().fit(pd.DataFrame({"a": ["z"], "b": ["u"]}), [0])
        >>> a.recode_statistics(b)["n_categories"].tolist()  # "z" joins column a's codes
        [3, 2]
        """
        self._refuse_backoff("merged (nbayes.merge)")
        return super().recode_statistics(other)

    def unlearn(self, X, y, sample_weight=None):
        """Remove rows learned earlier, exactly (see :meth:`BaseNB.unlearn`); a backoff
        estimator unlearns them too (both or neither: a failure leaves the model as it was).

        Parameters
        ----------
        X : DataFrame or array-like of shape (n_samples, n_features)
            Rows the model was trained on.
        y : array-like of shape (n_samples,)
            Their labels.
        sample_weight : array-like of shape (n_samples,), optional
            The weights the rows were learned with.

        Returns
        -------
        self
            The estimator, as if it had never seen those rows.

        Examples
        --------
        >>> import pandas as pd
        >>> from nbayes import JointBayes
        >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
        >>> model = JointBayes().fit(df, [0, 1, 1, 0])
        >>> model.unlearn(df.iloc[:1], [0]).class_count_.tolist()
        [1.0, 2.0]
        """
        if self.backoff is None:
            return super().unlearn(X, y, sample_weight)
        backoff = copy.deepcopy(self.backoff_)
        backoff.unlearn(X, y, sample_weight)
        super().unlearn(X, y, sample_weight)
        self.backoff_ = backoff
        return self

    def get_state(self) -> dict:
        """The fitted state (see :meth:`BaseNB.get_state`); with a ``backoff`` estimator,
        ``backoff`` holds the fitted backoff model's own state.

        Returns
        -------
        dict
            The state; :meth:`set_state` of it gives back a model that predicts identically,
            keeps learning and can be merged.

        Examples
        --------
        >>> import pandas as pd
        >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
        >>> from nbayes import JointBayes
        >>> state = JointBayes().fit(df, [0, 1, 1, 0]).get_state()
        >>> sorted(state["statistics"])
        ['class_count', 'n1', 'n_categories', 'n_vectors', 'vectors']
        """
        state = super().get_state()
        if self.backoff is not None:
            if isinstance(self.backoff, JointBayes) and self.backoff.backoff is not None:
                raise ParameterError(
                    "A JointBayes whose backoff is a JointBayes with a backoff of its own "
                    "cannot be saved; give the inner JointBayes no backoff."
                )
            state["backoff"] = self.backoff_.get_state()
        return state

    def set_state(self, state: dict):
        """Become the fitted model of :meth:`get_state` output, the backoff model included;
        ValueError if the parts do not fit together.

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
        >>> import pandas as pd
        >>> df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
        >>> from nbayes import JointBayes
        >>> model = JointBayes().fit(df, [0, 1, 1, 0])
        >>> JointBayes().set_state(model.get_state()).predict(df).tolist()
        [0, 1, 1, 0]
        """
        inner = state.get("backoff")
        if (inner is None) != (self.backoff is None):
            raise ValueError(
                "the backoff model's state is missing"
                if inner is None
                else "a backoff model's state is stored, but the parameters name no backoff."
            )
        if (
            inner is not None
            and inner.get("estimator", type(self.backoff).__name__) != type(self.backoff).__name__
        ):
            raise ValueError(
                f"the stored backoff model is a {inner['estimator']}, but the parameters name "
                f"a {type(self.backoff).__name__}."
            )
        super().set_state(state)
        self.__dict__.pop("backoff_", None)
        if inner is not None:
            backoff = clone(self.backoff).set_state(inner)
            if backoff.n_features_in_ != self.n_features_in_ or sorted(
                np.asarray(backoff.classes_).tolist()
            ) != sorted(np.asarray(self.classes_).tolist()):
                raise ValueError("the backoff model has other classes or columns than JointBayes.")
            self.backoff_ = backoff
        return self

    def _check_extra_stats(self, stats: dict) -> None:
        # Shapes, signs and weights are the types' checks; the codes are the columns'.
        if np.any(stats["vectors"] >= stats["n_categories"]):
            raise ValueError("the JointBayes table of feature vectors is inconsistent.")
