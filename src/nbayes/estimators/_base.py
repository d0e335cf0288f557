"""The shared scikit-learn estimator around the engine.

Subclasses say which families cover which columns (``_make_families`` / ``_blocks``) and which
fitted attributes to publish; fitting, incremental fitting, label handling and prediction live
here once. ``BaseNB`` implements the estimator protocol (:mod:`nbayes.base`) that Dask, merge,
model files and the CLI use.
"""

from __future__ import annotations

import weakref

import numpy as np
import pandas as pd
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d, validate_data

from .. import _engine as engine
from .. import base
from .._accel import kernels
from .._params import check_params
from .._validation import row_offset, show
from ..base import EstimatorProtocol, Mode, check_mode
from ..distributions import Family, Labels
from ..distributions._arrays import compressed_view
from ..exceptions import DataError, NotFittedError, ParameterError, UnknownLabelError
from . import _conditional, _explain, _linear
from ._interval import IntervalMixin

THRESHOLD_SCALES = ("log_odds", "proba")

#: Candidates of ``alpha="cv"`` and ``var_smoothing="cv"`` (three per decade; the MAP estimate
#: takes 1 + the alphas), chosen by the cross-validated log-loss of CV_FOLDS stratified folds.
CV_CANDIDATES = {"alpha": np.logspace(-3, 1, 13), "var_smoothing": np.logspace(-12, 0, 13)}
CV_FOLDS = 5
#: Where the search starts from for the parameters chosen after the first.
CV_START = {"alpha": 1.0, "var_smoothing": 1e-9}
#: Scores (floats) that :meth:`BaseNB.joint_log_scores_of` stacks at most at a time: 32 MB.
_STACK_BUDGET = 2**22


def check_sample_weight(sample_weight, n_samples: int, allow_all_zero: bool = False) -> np.ndarray:
    """Return float64 weights of shape (n_samples,); reject negative or non-finite ones.

    All-zero weights are rejected too (nothing to learn from) unless ``allow_all_zero``: one
    Dask partition may legitimately hold only zero-weight rows.
    """
    if sample_weight is None:
        return np.ones(n_samples)
    w = np.asarray(sample_weight, dtype=np.float64)
    if w.ndim == 0:
        w = np.full(n_samples, float(w))
    if w.shape != (n_samples,):
        raise DataError(
            f"sample_weight must have one value per row ({n_samples}); got shape {w.shape}."
        )
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise DataError(
            f"sample_weight must be finite and non-negative; got {show(w[row])} at row "
            f"{row + row_offset()}. Use 0 to drop a row."
        )
    if n_samples and not w.any() and not allow_all_zero:
        raise DataError(
            "sample_weight is zero for every row: there is nothing to learn from. "
            "Give at least one row a positive weight."
        )
    return w


#: Scoring tables per fitted estimator, keyed weakly by the estimator and checked against its
#: ``params_``: kept outside the instance, whose ``__dict__`` predict must leave unchanged
#: (scikit-learn's contract), and gone with it.
_SCORING: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def fit_classes(y: np.ndarray) -> np.ndarray:
    """The sorted distinct labels of ``y``, after scikit-learn's check that they are classes.

    Integer labels are always valid classes; when their range is small (the usual 0..K-1),
    a bincount finds them in one pass, where ``np.unique`` and the check hash them three
    times.
    """
    if y.dtype.kind in "iu" and y.size:
        low, high = int(y.min()), int(y.max())
        if high - low <= 2 * y.size:
            wide = y if y.dtype.itemsize == 8 else y.astype(np.int64)
            # Exact: the difference fits even where the subtraction wraps around.
            present = np.bincount((wide - wide.dtype.type(low)).astype(np.intp)) > 0
            return (np.flatnonzero(present).astype(wide.dtype) + wide.dtype.type(low)).astype(
                y.dtype
            )
    if y.dtype.kind in "Of":
        missing = pd.isna(y)
        if missing.any():
            row = int(np.argmax(missing))
            raise DataError(
                f"The label at row {row + row_offset()} is missing ({show(y[row])}): every "
                "row a model learns from needs a label. Drop the rows without one, or train "
                "with nbayes.SemiSupervisedNB, which learns from unlabeled rows too (marked "
                "-1, None or NaN)."
            )
    check_classification_targets(y)
    return np.unique(y)


def label_codes(y, classes) -> tuple[np.ndarray, int | None]:
    """Index of each label in ``classes``, and the first row whose label is not there (or None)."""
    classes, y = np.asarray(classes), np.asarray(y)
    if classes.dtype.kind in "US" and y.dtype.kind in "US" and classes.size:
        # Binary search in the sorted classes: pandas would build an index of Arrow strings,
        # which for a few classes costs more than the search (partial_fit does this on every
        # batch). Numbers and objects go to pandas' hash table, faster for long y.
        order = np.argsort(classes, kind="stable")
        ranked = classes[order]
        pos = np.minimum(np.searchsorted(ranked, y), classes.size - 1)
        codes = np.where(ranked[pos] == y, order[pos], -1)
    elif classes.dtype.kind in "iu" and y.dtype.kind in "iu" and classes.size:
        codes = _integer_codes(y, classes)
    else:
        codes = pd.Index(classes).get_indexer(y)
    unknown = np.flatnonzero(codes < 0)
    return codes, (int(unknown[0]) if unknown.size else None)


def _integer_codes(y: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """:func:`label_codes` of integer labels: a lookup table over the classes' range when
    every label falls inside it (two fast passes to check), else pandas' hash table."""
    low, high = int(classes.min()), int(classes.max())
    if (
        y.size
        and high - low <= 2 * y.size
        and high < 2**63
        and int(y.min()) >= low
        and int(y.max()) <= high
    ):
        table = np.full(high - low + 1, -1, dtype=np.intp)
        table[classes.astype(np.int64) - low] = np.arange(classes.size)
        # Inside [low, high] the difference is exact in int64 whatever y's own width.
        return table.take(y.astype(np.int64, copy=False) - low)
    return pd.Index(classes).get_indexer(y)


def log_odds_threshold(
    threshold, scale: str = "log_odds", n_classes: int | None = None
) -> float | None:
    """A ``decision_threshold`` in log-odds, validated; None for the plain argmax rule.

    Parameters
    ----------
    threshold : float or None
        The estimators' ``decision_threshold``.
    scale : {"log_odds", "proba"}
        Its ``threshold_scale``: log-odds, or a probability of ``classes_[1]``.
    n_classes : int, optional
        The model's number of classes (a threshold needs two).

    Examples
    --------
    >>> round(log_odds_threshold(0.8, "proba"), 4)
    1.3863
    """
    if threshold is None:
        return None
    if scale not in THRESHOLD_SCALES:
        raise ParameterError(
            f"Parameter 'threshold_scale' must be one of {THRESHOLD_SCALES}; got {scale!r}."
        )
    value = float(threshold)
    if scale == "proba":
        if not 0.0 < value < 1.0:
            raise ParameterError(
                "With threshold_scale='proba', decision_threshold is a probability of "
                f"classes_[1] and must lie strictly between 0 and 1; got {threshold!r}."
            )
        value = float(np.log(value) - np.log1p(-value))
    elif np.isnan(value):
        raise ParameterError("Parameter 'decision_threshold' must not be NaN.")
    if n_classes is not None and n_classes != 2:
        raise ParameterError(
            f"decision_threshold applies to two classes; this model has "
            f"{n_classes}. Set decision_threshold=None."
        )
    return value


#: Where partial_fit keeps statistics and the batch counts not yet added to them (see
#: :class:`Statistics`); the trailing underscore makes it a fitted attribute that
#: ``_forget`` drops.
PENDING = "_pending_stats_"


def check_counts(stats: dict) -> None:
    """Counts in plain statistics (the class weights and every ``n_*`` table) must be
    non-negative numbers: a hand-edited or forged state with a negative or NaN count would
    finalize into parameters that predict without a word. ValueError names the first."""
    named = [("class_count", stats["class_count"])]
    for g, group in enumerate(stats["groups"]):  # bounded by the column groups
        named += [
            (f"{key!r} of column group {g}", v) for key, v in group.items() if key[:2] == "n_"
        ]
    for name, value in named:  # bounded: a few per group
        arr = np.asarray(value)
        if arr.dtype.kind in "fiu" and arr.size and not (arr >= 0).all():
            raise ValueError(
                f"the statistics' {name} holds a negative or NaN count; counts of rows and "
                "values cannot be, so the state was edited or corrupted."
            )


class Statistics:
    """``stats_``, the fitted statistics, declared on the class.

    ``partial_fit`` may keep the categorical counts of its latest batches apart
    (:func:`engine.accumulate_onto`): adding a batch to a table as wide as a large vocabulary
    copies the table, which costs more than the batch. Reading ``stats_`` adds them, once
    (:func:`engine.fold`); setting it drops them. Neither the statistics nor the batches
    kept are ever changed in place, so a copy of the model or of ``stats_`` is unaffected
    by later batches.
    """

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        state = obj.__dict__
        if "stats_" in state:
            return state["stats_"]
        kept = state.get(PENDING)
        if kept is None:
            raise AttributeError(f"{type(obj).__name__!r} object has no attribute 'stats_'")
        stats = engine.fold(obj.families_, *kept)
        state["stats_"] = stats
        state.pop(PENDING, None)
        return stats

    def __set__(self, obj, value) -> None:
        obj.__dict__.pop(PENDING, None)
        obj.__dict__["stats_"] = value

    def __delete__(self, obj) -> None:
        had = PENDING in obj.__dict__ or "stats_" in obj.__dict__
        obj.__dict__.pop(PENDING, None)
        if obj.__dict__.pop("stats_", None) is None and not had:
            raise AttributeError("stats_")


#: Held-out rows are scored over only the columns they hold (``Family.finalize_stacked``
#: with ``columns``) where they store fewer values than this many times the number of
#: columns. With more they touch nearly every column (a large text corpus's folds do), and
#: looking would be a wasted pass over them.
NARROW_FOLD_RATIO = 4
#: ... and where they hold at most this share of the columns.
NARROW_FOLD_SHARE = 0.5


def _held_columns(families, blocks: list, feature_names) -> tuple | None:
    """(the one CSR block over the columns it holds, their indices) when scoring it there
    saves most of the stacked tables of a grid search's candidates; None otherwise.

    The compiled pass lists the columns in the order they first appear in the block, which
    puts the words most rows hold near the start of the tables (in cache when the product
    reads them: a fifth faster on the held-out folds of Enron); the numpy code sorts them.
    Either order gives the same scores, bit for bit.

    The block is checked in full first (``prepare``), so that an error names the column
    of the user's data, not one of the narrowed block.
    """
    if len(blocks) != 1 or not sp.issparse(blocks[0]) or blocks[0].format != "csr":
        return None
    X = blocks[0]
    n_features = X.shape[1]
    if X.nnz >= NARROW_FOLD_RATIO * n_features:
        return None
    engine.prepare(families, blocks, feature_names, lazy=False)
    index = X.indices.dtype
    compiled = kernels()
    if compiled is not None and index in (np.int32, np.int64) and X.indices.flags.c_contiguous:
        # One compiled pass over the stored values instead of four numpy passes.
        position = np.full(n_features, -1, dtype=index)
        narrow_indices = np.empty_like(X.indices)
        columns = np.empty(n_features, dtype=index)
        n_held = compiled.held_columns(X.indices, position, narrow_indices, columns)
        columns = columns[:n_held].astype(np.intp)
    else:
        held = np.zeros(n_features, dtype=bool)
        held[X.indices] = True
        columns = np.flatnonzero(held)
        position = np.zeros(n_features, dtype=index)
        position[columns] = np.arange(columns.size, dtype=index)
        narrow_indices = position[X.indices]
    if columns.size > NARROW_FOLD_SHARE * n_features:
        return None
    narrow = compressed_view(
        sp.csr_matrix, X.data, narrow_indices, X.indptr, (X.shape[0], columns.size)
    )
    return narrow, columns


#: The parameters that decide a model's class prior in ``BaseNB._log_prior``.
PRIOR_PARAMS = ("class_prior", "fit_prior", "prior_alpha")


def _log_priors(shells: list, class_count: np.ndarray) -> list:
    """Each candidate's log class prior from ``class_count``; computed once for candidates
    whose prior parameters are the same objects (a grid that varies alpha, say), where the
    class derives its prior from those alone (``BaseNB._log_prior``)."""
    made: dict = {}
    out = []
    for i, shell in enumerate(shells):  # bounded by the candidates
        shared = type(shell)._log_prior is BaseNB._log_prior
        key = tuple(id(getattr(shell, name, None)) for name in PRIOR_PARAMS) if shared else i
        if key not in made:
            made[key] = shell._log_prior(class_count)
        out.append(made[key])
    return out


#: What a batch changes before it is finalized, put back if that fails (``BaseNB._learn``).
_LEARNED = ("classes_", "stats_", PENDING)


class BaseNB(IntervalMixin, ClassifierMixin, BaseEstimator, EstimatorProtocol):
    """Naive Bayes classifier over column groups, each modelled by one family."""

    stats_ = Statistics()

    # -- what subclasses provide --------------------------------------------------------------
    def _make_families(self, n_features: int) -> list[Family]:
        raise NotImplementedError

    def _validate_X(self, X, reset: bool):
        # Sparse integer counts (CountVectorizer's output) keep their dtype: converting them
        # copies the matrix and makes scipy sort and deduplicate its indices (a large share of
        # a predict); the families cast stored values where they need floats.
        if (
            not reset
            and sp.issparse(X)
            and X.format == "csr"
            and X.dtype.kind in "biuf"
            and X.shape[0] > 0
            and X.shape[1] == getattr(self, "n_features_in_", None)
            and not hasattr(self, "feature_names_in_")
        ):
            # What scikit-learn's checks would find of a numeric CSR matrix of the fitted
            # width is known already: it is returned as it is, without their per-call cost
            # (a grid search checks every held-out fold).
            return X
        dtype = "numeric" if sp.issparse(X) else (np.float64, np.float32)
        return validate_data(
            self, X, reset=reset, accept_sparse="csr", dtype=dtype, ensure_all_finite=False
        )

    def _blocks(self, X, mode: Mode = "score", counted: np.ndarray | None = None) -> list:
        """One matrix per family; presets use all columns in one block. ``mode`` says why the
        batch is read (see :mod:`nbayes.base`); encoders decide by it what an unseen value
        does. ``counted`` (learning only) marks the rows of non-zero weight: category
        vocabularies learn from those alone, so that a zero-weight row is a dropped row."""
        return [X]

    def _log_prior(self, class_count: np.ndarray) -> np.ndarray:
        return engine.log_class_prior(
            class_count,
            getattr(self, "class_prior", None),
            getattr(self, "fit_prior", True),
            getattr(self, "prior_alpha", 0.0),
        )

    def _publish(self) -> None:
        """Set the familiar fitted attributes (feature_log_prob_, theta_, ...)."""

    # -- fitting -------------------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None):
        """Fit the model to X, y in one pass.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            The class label of each row.
        sample_weight : array-like of shape (n_samples,), optional
            Weight of each row, 1 by default: an integer weight counts as that many copies of
            the row, and a zero weight as no row.

        Returns
        -------
        self
            The fitted estimator.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.classes_.tolist(), model.class_count_.tolist()
        (['a', 'b'], [2.0, 1.0])
        """
        check_params(self)
        for attr in ("classes_", "stats_", PENDING):
            self.__dict__.pop(attr, None)
        self.__dict__.pop("_cv_chosen", None)
        if self._cv_names():
            return self._fit_by_cv(X, y, sample_weight)
        X = self._validate_X(X, reset=True)
        y = self._check_y(y, X)
        return self._learn(X, y, sample_weight, classes=fit_classes(y))

    # -- alpha="cv", var_smoothing="cv": chosen by cross-validation inside fit ------------------
    def _cv_names(self) -> list[str]:
        """The parameters set to "cv", in the order they are chosen."""
        return [
            p
            for p in CV_CANDIDATES
            if isinstance(getattr(self, p, None), str) and getattr(self, p) == "cv"
        ]

    def _resolved(self, name: str):
        """Parameter ``name``, with "cv" replaced by the value that ``fit`` chose."""
        value = getattr(self, name)
        if not (isinstance(value, str) and value == "cv"):
            return value
        chosen = self.__dict__.get("_cv_chosen", {})
        if name not in chosen:
            raise ParameterError(
                f"{name}='cv' is chosen by cross-validation inside fit, which needs all the "
                "rows at once; partial_fit, nbayes.dask.fit and set-up from statistics cannot "
                f"choose it. Pass a number or 'auto' (evidence), or choose with "
                "nbayes.model_selection.GridSearchCV."
            )
        return chosen[name]

    def _fit_by_cv(self, X, y, sample_weight):
        """Fit with every "cv" parameter chosen by K-fold cross-validated log-loss.

        One counting pass gives the statistics of every fold; each candidate of each fold is
        a finalize of (total - fold) statistics scored on the fold's rows. Parameters are
        chosen one after the other (alpha first), each at the best value of those before.
        """
        from sklearn.base import clone
        from sklearn.model_selection import StratifiedKFold

        from ._folds import check_splits, count_folds, take_rows

        names = self._cv_names()
        start = {p: CV_START[p] for p in names}
        if "alpha" in names and getattr(self, "estimate", None) == "map":
            start["alpha"] = 1.0 + CV_CANDIDATES["alpha"][0]
        base = clone(self).set_params(**start)
        X = base._validate_X(X, reset=True)  # lists become arrays; nothing is learned here
        y = base._check_y(y, X)
        classes = fit_classes(y)
        codes, _ = label_codes(y, classes)
        weights = check_sample_weight(sample_weight, y.shape[0])
        per_class = np.bincount(codes, minlength=classes.size)
        smallest = int(per_class.min())
        if smallest < 2:
            rare = classes.tolist()[int(np.argmin(per_class))]
            raise DataError(
                f"{names[0]}='cv' cross-validates over {CV_FOLDS} stratified folds and needs at "
                f"least two rows of every class; class {rare!r} has one. Pass a number or "
                "'auto'."
            )
        folds = StratifiedKFold(min(CV_FOLDS, smallest), shuffle=True, random_state=0)
        splits = list(folds.split(np.zeros(y.shape[0]), codes))
        check_splits(splits, codes, classes, y.shape[0])
        parts = [take_rows(X, test) for _, test in splits]  # counted, then scored
        test_stats, total = count_folds(base, X, codes, weights, classes.size, splits, parts)
        base.install(classes, total)
        trains = [base.subtract_statistics(total, t) for t in test_stats]
        held_out = [(part, codes[test], weights[test]) for part, (_, test) in zip(parts, splits)]
        chosen: dict = {}
        scores: dict = {}
        for name in names:  # bounded: at most two parameters
            grid = CV_CANDIDATES[name]
            if name == "alpha" and getattr(self, "estimate", None) == "map":
                grid = 1.0 + grid  # the MAP estimate needs alpha >= 1
            losses = np.zeros(grid.size)
            for stats, (X_t, c_t, w_t) in zip(trains, held_out):  # bounded: the folds
                # Every candidate of the fold scored in one pass over its held-out rows.
                candidates = [{**chosen, name: v} for v in grid]
                for c, jll in enumerate(base.joint_log_scores_with(candidates, stats, X_t)):
                    log_p = engine.normalise(np.array(jll), log=True)
                    log_p = log_p[np.arange(c_t.size), c_t]
                    losses[c] -= np.dot(w_t[w_t > 0], log_p[w_t > 0])
            losses /= weights.sum()
            chosen[name] = float(grid[int(np.argmin(losses))])
            scores[name] = {"candidates": grid, "log_loss": losses}
        final = base.finalize_with(chosen)
        params = self.get_params(deep=False)
        self.__dict__.clear()
        self.__dict__.update(final.__dict__)
        self.__dict__.update(params)  # "cv" stays the parameter; the choice is cv_results_
        self._cv_chosen = chosen
        self.cv_results_ = scores
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Update the model with one batch; equals ``fit`` on all batches together.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            The class label of each row.
        classes : array-like of shape (n_classes,), optional
            All labels that will ever occur. Required on the first call; a later call may pass
            a longer list that contains the current ``classes_`` to add classes.
        sample_weight : array-like of shape (n_samples,), optional
            Weight of each row, 1 by default: an integer weight counts as that many copies of
            the row, and a zero weight as no row.

        Returns
        -------
        self
            The estimator, updated with the batch.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().partial_fit([[2, 0], [1, 1]], ["a", "a"], classes=["a", "b"])
        >>> model.partial_fit([[0, 3]], ["b"]).class_count_.tolist()
        [2.0, 1.0]
        """
        check_params(self)
        first = not hasattr(self, "classes_")
        if first and classes is None:
            raise ParameterError(
                "classes must be passed on the first call to partial_fit: the full list of "
                "labels, e.g. partial_fit(X, y, classes=np.unique(y_all))."
            )
        X = self._validate_X(X, reset=first)
        if first:
            self._start_partial_fit(X)
        y = self._check_y(y, X)
        if classes is not None:
            classes = np.asarray(classes)
            if first:
                classes = np.unique(classes)
        return self._learn(X, y, sample_weight, classes=classes)

    def _start_partial_fit(self, X) -> None:
        """Set-up that the first ``partial_fit`` batch needs beyond ``_validate_X`` (none
        here; the semi-naive models fix their bin edges)."""

    def _check_y(self, y, X):
        if isinstance(y, (list, tuple)):
            # numpy turns a NaN among strings into the text "nan", a class of its own: a list
            # with a missing label stays objects, for fit_classes to name the row.
            raw = np.array(y, dtype=object)
            if raw.ndim == 1 and pd.isna(raw).any():
                y = raw
        y = column_or_1d(y, warn=True)
        if y.shape[0] != X.shape[0]:
            raise DataError(
                f"X has {X.shape[0]} rows but y has {y.shape[0]} labels; they must match."
            )
        return y

    def _set_classes(self, classes: np.ndarray) -> int:
        """Set or enlarge classes_; return how many classes were added."""
        if not hasattr(self, "classes_"):
            if classes.size == 0:
                raise ParameterError("classes must not be empty.")
            self.classes_ = classes
            return 0
        old = self.classes_
        known, _ = label_codes(old, classes)
        if (known < 0).any():
            missing = old[known < 0]
            raise ParameterError(
                f"classes={classes.tolist()!r} drops the known class(es) {missing.tolist()!r}; "
                "a later partial_fit may only add classes. Pass every earlier class too."
            )
        new = np.asarray([c for c in classes if c not in set(old.tolist())], dtype=object)
        if new.size == 0:
            return 0
        self.classes_ = np.concatenate([old.astype(object), np.sort(new)]).astype(
            np.result_type(old, classes) if old.dtype != object else object
        )
        return new.size

    def _encode_labels(self, y, weights) -> Labels:
        codes, row = label_codes(y, self.classes_)
        if row is not None:
            raise UnknownLabelError(
                f"Label {show(y[row])} at row {row} is not among classes "
                f"{self.classes_.tolist()!r}. Pass the full label list in `classes` "
                "(a later partial_fit may enlarge it)."
            )
        return Labels(codes, weights, len(self.classes_))

    def _vocabulary_snapshot(self):
        """Copy of whatever category vocabularies encoding may grow (none for numeric input)."""
        return None

    def _restore_vocabulary(self, snapshot) -> None:
        """Put back the vocabularies of :meth:`_vocabulary_snapshot`."""

    def _learn(self, X, y, sample_weight, classes):
        # Encoding a batch may grow category vocabularies (append-only); a batch that fails
        # later (an unknown label, a bad value) must leave the model as it was.
        # So must one whose statistics cannot be finalized (a class with one row and no
        # variance floor): partial_fit finalizes, as fit does, and raises fit's error.
        snapshot = self._vocabulary_snapshot()
        state = {k: self.__dict__[k] for k in _LEARNED if k in self.__dict__}
        try:
            return self._learn_batch(X, y, sample_weight, classes)
        except BaseException:
            self._restore_vocabulary(snapshot)
            for name in _LEARNED:  # bounded: three names
                self.__dict__.pop(name, None)
            self.__dict__.update(state)
            raise

    def _learn_batch(self, X, y, sample_weight, classes):
        weights = check_sample_weight(sample_weight, X.shape[0])
        # (not hasattr: reading stats_ would add the batches kept apart, see Statistics)
        first = "stats_" not in self.__dict__ and PENDING not in self.__dict__
        if first:
            self._set_classes(classes)
            self.families_ = self._make_families(X.shape[1])
        added_classes = False
        if not first and classes is not None:
            added = self._set_classes(classes)
            if added:
                self.stats_ = engine.add_classes(self.families_, self.stats_, added)
                added_classes = True
        labels = self._encode_labels(y, weights)
        if first:
            self.stats_ = self._accumulate(X, labels, "learn")
            self.finalize()
            return self
        # One overflow check, of the sum: a batch that overflows makes it overflow too.
        # Only then is the batch checked alone, for an error that names its row.
        before, kept = self.__dict__.get(PENDING) or (self.stats_, ())
        stats, pending = self._accumulate_onto(before, kept, X, labels)
        try:
            engine.check_overflow(self.families_, stats, None, self._feature_names_per_block())
        except DataError:
            self._accumulate(X, labels, "learn")
            raise
        # Finalized at once, as fit is: the groups counted apart from the parameters before
        # this batch (engine.finalize_onto: the cost of the batch, not of the table), unless
        # classes were added. What can fail runs before the model changes.
        n_new = len(pending) - len(kept) if len(pending) > len(kept) else 0
        params = None
        before_params = self.__dict__.get("params_")
        if n_new and not added_classes and before_params is not None:
            params = engine.finalize_onto(self.families_, before_params, stats, pending, n_new)
        if params is None:
            if pending:
                stats, pending = engine.fold(self.families_, stats, pending), ()
            params = engine.finalize(self.families_, stats)
        log_prior = self._log_prior(stats["class_count"])
        if pending:
            self.__dict__.pop("stats_", None)
            self.__dict__[PENDING] = (stats, pending)
        else:
            self.stats_ = stats
        self._set_parameters(stats, params, log_prior)
        return self

    def _accumulate(self, X, labels: Labels, mode: Mode, check: bool = True) -> dict:
        """Statistics of one validated batch (``check``: see :func:`engine.accumulate`)."""
        return engine.accumulate(
            self.families_,
            self._blocks(X, mode, self._counted(labels, mode)),
            labels,
            self._feature_names_per_block(),
            check=check,
        )

    def _accumulate_onto(self, stats: dict, pending: tuple, X, labels: Labels) -> tuple:
        """``(stats, pending)`` with one validated batch that is learned from added, not
        checked for overflow (:func:`engine.accumulate_onto`)."""
        return engine.accumulate_onto(
            self.families_,
            stats,
            self._blocks(X, "learn", self._counted(labels, "learn")),
            labels,
            self._feature_names_per_block(),
            pending,
        )

    @staticmethod
    def _counted(labels: Labels, mode: Mode) -> np.ndarray | None:
        """Rows whose values a learning batch adds to the vocabularies (None: all)."""
        if mode == "learn" and not labels.weights.all():
            return labels.weights != 0
        return None

    # -- the estimator protocol (see nbayes.base) ------------------------------------------------
    def capabilities(self) -> frozenset[str]:
        """Explanations, candidate scoring, leaving features out, a generative joint
        probability; and a linear form once fitted where the families give one (see
        :meth:`EstimatorProtocol.capabilities`).

        Returns
        -------
        frozenset of str
            The capabilities this model declares.

        Examples
        --------
        >>> from nbayes import GaussianNB
        >>> sorted(GaussianNB().capabilities())[:3]
        ['candidate_scoring', 'explanations', 'feature_subsets']
        """
        found = {base.EXPLANATIONS, base.CANDIDATE_SCORING, base.FEATURE_SUBSETS}
        found.add(base.JOINT_PROBABILITY)
        if hasattr(self, "params_") and _linear.is_linear(self.families_, self.params_):
            found.add(base.LINEAR)
        return frozenset(found)

    def setup(self, meta, summary=None) -> None:
        """Get ready to accumulate batches without learning from any (see
        :meth:`EstimatorProtocol.setup`): ``meta`` is a DataFrame with no rows (a table's
        columns) or the number of columns.

        Parameters
        ----------
        meta : DataFrame with no rows, or int
            As in :meth:`survey_step`.
        summary : object, optional
            The final summary of the survey passes, if :meth:`survey_step` asked for any.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.distributions import Labels
        >>> model = MultinomialNB()
        >>> model.setup(2)
        >>> stats = model.accumulate(np.array([[1, 0], [0, 2]]), Labels([0, 1], [1.0, 1.0], 2))
        >>> model.install(np.array(["a", "b"]), stats).predict([[3, 0]]).tolist()
        ['a']
        """
        check_params(self)
        self._forget()
        if isinstance(meta, (int, np.integer)):
            self.n_features_in_ = int(meta)
        else:
            names = list(meta.columns)
            self.n_features_in_ = len(names)
            # As scikit-learn: feature names are kept only when every column name is a string.
            if names and all(isinstance(c, str) for c in names):
                self.feature_names_in_ = np.asarray(names, dtype=object)
        self.families_ = self._make_families(self.n_features_in_)

    def setup_from(self, X) -> None:
        """Get ready to accumulate batches from a first batch, as ``partial_fit``'s first
        call sets up: columns, families and readings from its rows; vocabularies then grow
        with ``accumulate(..., mode="learn")``. Nothing is learned from ``X`` here.

        Parameters
        ----------
        X : batch of rows, as the estimator's ``fit`` takes them
            The first batch (:mod:`nbayes._training` accumulates it next).

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.distributions import Labels
        >>> model = MultinomialNB()
        >>> model.setup_from([[1, 0], [0, 2]])
        >>> stats = model.accumulate([[1, 0], [0, 2]], Labels([0, 1], [1.0, 1.0], 2), mode="learn")
        >>> model.install(np.array(["a", "b"]), stats).predict([[3, 0]]).tolist()
        ['a']
        """
        check_params(self)
        for attr in ("classes_", "stats_", PENDING):  # a refit starts afresh
            self.__dict__.pop(attr, None)
        X = self._validate_X(X, reset=True)
        self._start_partial_fit(X)
        self.families_ = self._make_families(X.shape[1])

    def _forget(self) -> None:
        """Drop every fitted attribute (a fresh set-up follows)."""
        for name in [k for k in vars(self) if k.endswith("_") and not k.startswith("__")]:
            del self.__dict__[name]
        self.__dict__.pop("_finalized", None)

    def accumulate(self, X, labels: Labels, *, mode: Mode = "count") -> dict:
        """Statistics of one batch (see :meth:`EstimatorProtocol.accumulate`).

        ``mode="learn"`` may grow category vocabularies, as ``partial_fit`` does.

        Parameters
        ----------
        X : batch of rows, as the estimator's ``fit`` takes them
            The rows to count, with the columns of :meth:`setup`.
        labels : Labels
            Class codes (indices into the classes the statistics are laid out over), sample
            weights and the number of classes.
        mode : {"learn", "count", "unlearn", "score"}, default="count"
            Why the batch is read (the modes of :mod:`nbayes.base`); decides
            what an unseen value does.

        Returns
        -------
        dict
            Statistics (as :mod:`nbayes.base` lays them out), over
            ``labels.n_classes`` classes.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.distributions import Labels
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> stats = model.accumulate([[1, 1]], Labels(np.array([1]), np.array([2.0]), 2))
        >>> stats["class_count"].tolist(), stats["groups"][0]["n_counts"].tolist()
        ([0.0, 2.0], [[0.0, 0.0], [2.0, 2.0]])
        """
        check_mode(mode)
        return self._accumulate(self._validate_X(X, reset=False), labels, mode)

    def merge_statistics(self, a: dict, b: dict) -> dict:
        """Statistics of the rows of ``a`` and ``b`` together; a DataError names the column
        whose sum would overflow float64 (finite input gives finite statistics).

        Parameters
        ----------
        a, b : dict
            Statistics in this model's set-up, over the same classes.

        Returns
        -------
        dict
            The statistics of all their rows; ``a`` and ``b`` are left unchanged.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.distributions import Labels
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> more = model.accumulate([[1, 1]], Labels(np.array([0]), np.array([1.0]), 2))
        >>> model.merge_statistics(model.stats_, more)["class_count"].tolist()
        [3.0, 1.0]
        """
        merged = engine.merge(self.families_, a, b)
        engine.check_overflow(self.families_, merged, None, self._feature_names_per_block())
        return merged

    def subtract_statistics(self, a: dict, b: dict) -> dict:
        """Statistics of the rows of ``a`` without those of ``b`` (errors name the class and
        column that would go negative).

        Parameters
        ----------
        a : dict
            Statistics of some rows.
        b : dict
            Statistics of some of those rows, in the same set-up and classes.

        Returns
        -------
        dict
            The statistics of the rows of ``a`` that are not in ``b``.

        Raises
        ------
        DataError
            ``b`` cannot be part of ``a`` (a count would become negative); the message names
            the class and column.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> from nbayes.distributions import Labels
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> row = model.accumulate([[1, 1]], Labels(np.array([0]), np.array([1.0]), 2))
        >>> model.subtract_statistics(model.stats_, row)["groups"][0]["n_counts"].tolist()
        [[2.0, 0.0], [0.0, 3.0]]
        """
        classes = getattr(self, "classes_", None)
        return engine.subtract(
            self.families_,
            a,
            b,
            class_names=None if classes is None else classes.tolist(),
            feature_names=self._feature_names_per_block(),
        )

    def clear_statistics(self, stats: dict) -> dict:
        """``stats`` of no rows, with the category counts per column kept.

        Parameters
        ----------
        stats : dict
            Statistics in this model's set-up.

        Returns
        -------
        dict
            The statistics of no rows, laid out as ``stats``.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.clear_statistics(model.stats_)["class_count"].tolist()
        [0.0, 0.0]
        """
        return engine.clear(self.families_, stats)

    def scale_statistics(self, stats: dict, factor: float) -> dict:
        """``stats`` with every row's weight multiplied by ``factor`` (>= 0).

        Parameters
        ----------
        stats : dict
            Statistics in this model's set-up.
        factor : float
            The weight multiplier, >= 0.

        Returns
        -------
        dict
            The scaled statistics, laid out as ``stats``.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.scale_statistics(model.stats_, 0.5)["class_count"].tolist()
        [1.0, 0.5]
        """
        return engine.scale(self.families_, stats, factor)

    def align_statistics(self, stats: dict, positions, n_classes: int) -> dict:
        """``stats`` laid out over ``n_classes`` classes, class ``i`` at ``positions[i]``.

        Parameters
        ----------
        stats : dict
            Statistics over ``len(positions)`` classes.
        positions : ndarray of int
            The new index of each class of ``stats``, all different and below ``n_classes``.
        n_classes : int
            The number of classes of the result.

        Returns
        -------
        dict
            Statistics over ``n_classes`` classes.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.align_statistics(model.stats_, np.array([0, 2]), 3)["class_count"].tolist()
        [2.0, 0.0, 1.0]
        """
        return engine.align_classes(self.families_, stats, positions, n_classes)

    def recode_statistics(self, other) -> dict:
        """``other``'s statistics in this model's encoding, ready for :func:`nbayes.merge`.
        Models with learned category vocabularies (MixedNB, CategoricalNB on values) extend
        their vocabularies and re-code ``other``'s counts.

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
        >>> a = CategoricalNB().fit([["red"], ["blue"]], [0, 1])
        >>> b = CategoricalNB().fit([["green"]], [0])
        >>> a.recode_statistics(b)["groups"][0]["n_counts"].tolist()  # blue, red, green
        [[0.0, 0.0, 1.0]]
        """
        return other.stats_

    def install(self, classes, stats: dict, *, finalize: bool = True):
        """Become the fitted model of ``stats`` over ``classes`` and finalize; with
        ``finalize=False``, hold the statistics only, until :meth:`finalize` is called.
        Returns self.

        Parameters
        ----------
        classes : ndarray of shape (n_classes,)
            The class labels, sorted, in the order of the statistics' class axis.
        stats : dict
            Statistics in this model's set-up.
        finalize : bool, default=True
            False: hold the statistics only, without parameters (the model then makes
            :meth:`finalize_with` models and scores nothing itself until :meth:`finalize`
            is called; nothing is derived on reading an attribute). For a model just
            :meth:`setup`, by a caller that makes other finalizes of the statistics (a grid
            search's candidates) and never uses this model's own.

        Returns
        -------
        self
            The fitted model.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> twin = MultinomialNB()
        >>> twin.setup(2)
        >>> twin.install(model.classes_, model.stats_).predict([[0, 1]]).tolist()
        ['b']
        """
        self.classes_ = np.asarray(classes)
        self.stats_ = stats
        if finalize:
            self.finalize()
        else:
            for name in self._finalized_names():
                self.__dict__.pop(name, None)
        return self

    # -- other finalizes of the same statistics (model selection) -------------------------------
    #: Constructor parameters that only change finalize or scoring (see finalize_params).
    _finalize_only: frozenset[str] = frozenset()

    def finalize_params(self) -> frozenset[str]:
        """Names of the constructor parameters that only change finalize or scoring (see
        :meth:`EstimatorProtocol.finalize_params`).

        Returns
        -------
        frozenset of str
            The parameter names (empty when none can be changed this way).

        Raises
        ------
        ParameterError
            Where this model's set-up depends on which rows it learned in a way statistics do
            not undo (so a model of part of the rows cannot be made from statistics).

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> sorted(MultinomialNB().finalize_params())[:3]
        ['alpha', 'class_prior', 'decision_threshold']
        """
        return self._finalize_only

    def finalize_with(self, params: dict | None = None, stats: dict | None = None):
        """A new fitted model with other finalize-time parameters, over ``stats`` (default:
        this model's statistics), without reading any data (see
        :meth:`EstimatorProtocol.finalize_with`).

        Parameters
        ----------
        params : dict, optional
            New values of some of :meth:`finalize_params`.
        stats : dict, optional
            Statistics over ``classes_`` in this model's set-up, e.g. this model's minus
            those of some rows (:meth:`subtract_statistics`).

        Returns
        -------
        estimator
            A new estimator of the same class, fitted; ``get_params()`` shows ``params``.

        Raises
        ------
        ParameterError
            A name in ``params`` that is not in :meth:`finalize_params`.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> X = np.array([[3, 0], [2, 1], [0, 4]]); y = [0, 0, 1]
        >>> model = MultinomialNB().fit(X, y).finalize_with({"alpha": 0.5})
        >>> refit = MultinomialNB(alpha=0.5).fit(X, y)
        >>> np.allclose(model.feature_log_prob_, refit.feature_log_prob_)
        True
        """
        check_is_fitted(self, "stats_")
        model = self._candidate_shell(dict(params or {}))
        model.install(self.classes_, self.stats_ if stats is None else model._restrict(stats))
        return model

    def _remake_families(self) -> list[Family]:
        """The families of the current parameters for the fitted columns (finalize_with)."""
        return self._make_families(self.n_features_in_)

    def _restrict(self, stats: dict) -> dict:
        """``stats`` ready to install: models with category vocabularies drop the values
        that no row of ``stats`` holds (and re-code the counts); others take them as they
        are."""
        return stats

    def unlearn(self, X, y, sample_weight=None):
        """Remove rows learned earlier, exactly: the model becomes the one never shown them.

        Statistics are additive, so unlearning subtracts the rows' statistics (counts
        directly, Gaussian moments with the inverse of the Chan update) and finalizes again.
        The result equals ``partial_fit`` on the remaining rows with the same ``classes_``
        to floating-point rounding; a class whose rows are all unlearned stays in
        ``classes_`` with weight zero.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Rows the model was trained on.
        y : array-like of shape (n_samples,)
            Their labels.
        sample_weight : array-like of shape (n_samples,), optional
            The weights the rows were learned with.

        Returns
        -------
        self
            The estimator, as if it had never seen those rows.

        Raises
        ------
        UnknownLabelError
            A label the model never learned.
        DataError
            The rows cannot all have been learned: a count or weight would become negative,
            a category code or a spread was never seen, or nothing would be left. Statistics
            are sufficient, so rows consistent with them cannot be told from learned ones.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> X = np.array([[3, 0], [2, 1], [0, 4]]); y = np.array([0, 0, 1])
        >>> model = MultinomialNB().fit(X, y).unlearn(X[1:2], y[1:2])
        >>> model.feature_count_.tolist()
        [[3.0, 0.0], [0.0, 4.0]]
        """
        check_is_fitted(self, "stats_")
        X = self._validate_X(X, reset=False)
        y = self._check_y(y, X)
        weights = check_sample_weight(sample_weight, X.shape[0])
        codes, row = label_codes(y, self.classes_)
        if row is not None:
            raise UnknownLabelError(
                f"Cannot unlearn row {row}: its label {show(y[row])} is not among classes "
                f"{self.classes_.tolist()!r}, so the model never learned it."
            )
        removed = self._accumulate(X, Labels(codes, weights, len(self.classes_)), "unlearn")
        stats = self.subtract_statistics(self.stats_, removed)
        if not stats["class_count"].any():
            raise DataError(
                "Cannot unlearn: these rows are everything the model learned, so nothing "
                "would be left to predict with. Start again with a new model instead."
            )
        old = self.stats_
        self.stats_ = stats
        try:
            self.finalize()
        except Exception:
            self.stats_ = old  # leave the model as it was if the remaining data is unusable
            self.finalize()
            raise
        return self

    def log_prior(self) -> float:
        """log p(parameters) under the priors whose modes the estimates are, up to a constant
        (see :meth:`EstimatorProtocol.log_prior`): each family's Dirichlet / Beta / Gamma
        pseudo-counts, and ``prior_alpha`` on a fitted class prior.

        Returns
        -------
        float
            The log prior density of the fitted parameters, up to a constant.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> X, y = [[2, 0], [1, 1], [0, 3]], ["a", "a", "b"]
        >>> round(MultinomialNB(alpha=2.0).fit(X, y).log_prior(), 3)
        -6.08
        """
        check_is_fitted(self, "stats_")
        # The scoring tables of this fitted state (made once, see _scoring_params) hold the
        # count families' log tables: EM scores a state and takes its prior, one layout.
        params = self._scoring_params()
        total = sum(fam.log_prior(p) for fam, p in zip(self.families_, params))
        prior_alpha = getattr(self, "prior_alpha", 0.0) or 0.0
        if getattr(self, "class_prior", None) is None and getattr(self, "fit_prior", True):
            total += prior_alpha * float(np.sum(self.class_log_prior_))
        return float(total)

    def _feature_names_per_block(self):
        names = getattr(self, "feature_names_in_", None)
        return None if names is None else [list(names)]

    def finalize(self) -> None:
        """Derive the parameters and the published attributes from ``stats_`` now.

        ``fit``, every ``partial_fit``, ``install``, ``unlearn`` and ``set_state`` finalize;
        nothing is derived later, on reading an attribute. Published tables that would cost
        a pass over a large vocabulary to lay out (CategoricalNB's ``feature_log_prob_``) are
        read-only properties computed from ``params_`` on each read, changing nothing.

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [0, 3]], ["a", "b"])
        >>> twin = MultinomialNB()
        >>> twin.setup(2)
        >>> _ = twin.install(model.classes_, model.stats_, finalize=False)
        >>> twin.finalize()
        >>> twin.feature_log_prob_.shape
        (2, 2)
        """
        stats = self.stats_
        # What can fail (a zero variance, a bad class prior) runs before anything is set.
        params = engine.finalize(self.families_, stats)
        self._set_parameters(stats, params, self._log_prior(stats["class_count"]))

    def _set_parameters(self, stats: dict, params: list, log_prior: np.ndarray) -> None:
        """Set the parameters of ``stats`` and publish the familiar attributes, noting their
        names (``install(..., finalize=False)`` drops them all, not just ``params_``)."""
        before = set(self.__dict__)
        self.params_, self.class_log_prior_ = params, log_prior
        self.class_count_ = stats["class_count"]
        self._publish()
        added = set(self.__dict__) - before - {"_finalized"}
        self._finalized = tuple(sorted(added.union(self.__dict__.get("_finalized", ()))))

    def _finalized_names(self) -> tuple[str, ...]:
        """What :meth:`finalize` sets (``install(..., finalize=False)`` leaves them out)."""
        return ("params_", "class_log_prior_", "class_count_", *self.__dict__.get("_finalized", ()))

    # -- state as plain data (model files in nbayes.io are built on it) -----------------------
    def _group_widths(self) -> list[int]:
        """Number of columns in each family's block; presets have one block of all columns.

        Estimators with several column groups (MixedNB) override this.
        """
        return [int(self.n_features_in_)]

    def _storable_params(self) -> dict:
        """Constructor parameters as data (MixedNB swaps code for what it resolved to)."""
        return self.get_params(deep=False)

    def _get_layout(self):
        """Plain description of how columns become blocks (vocabularies, groups); None for
        estimators that take columns as they come."""
        return None

    def _set_layout(self, layout, n_features: int) -> None:
        """Install the layout of :meth:`_get_layout`; raise ValueError if it is inconsistent."""
        if layout is not None:
            raise ValueError(f"{type(self).__name__} has no column layout; got {layout!r}.")

    def get_state(self) -> dict:
        """The fitted state as plain data: numbers, strings, lists, dicts, numpy arrays and
        registered families.

        Statistics, not only final parameters, are included, so :meth:`set_state` gives back
        a model that predicts identically, keeps learning and can be merged.

        Returns
        -------
        dict
            Keys ``params`` (constructor parameters), ``n_features_in``,
            ``feature_names_in`` (array or None), ``classes``, ``families`` (list of Family),
            ``statistics`` (``{"class_count": (n_classes,), "groups": [dict of arrays, ...]}``,
            one group per family) and ``layout`` (None, or the estimator's column layout).

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> state = MultinomialNB().fit([[1, 0], [0, 2]], ["a", "b"]).get_state()
        >>> MultinomialNB().set_state(state).predict([[3, 0]]).tolist()
        ['a']
        """
        check_is_fitted(self, "stats_")
        return {
            "params": self._storable_params(),
            "n_features_in": int(self.n_features_in_),
            "feature_names_in": getattr(self, "feature_names_in_", None),
            "classes": self.classes_,
            "families": list(self.families_),
            "statistics": self.stats_,
            "layout": self._get_layout(),
        }

    def set_state(self, state: dict):
        """Become the fitted model of :meth:`get_state` output (``params`` is not applied:
        build the estimator with them first).

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
            The parts do not fit together (families for other column groups, a layout for
            another number of columns, statistics that cannot be finalized).

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> state = MultinomialNB().fit([[1, 0], [0, 2]], ["a", "b"]).get_state()
        >>> MultinomialNB().set_state(state).classes_.tolist()
        ['a', 'b']
        """
        n_features = int(state["n_features_in"])
        self.__dict__.pop("feature_names_in_", None)
        self.n_features_in_ = n_features
        names = state.get("feature_names_in")
        if names is not None:
            self.feature_names_in_ = np.asarray(names).astype(object)
        self._set_layout(state.get("layout"), n_features)
        families = list(state["families"])
        widths = self._group_widths()
        if len(widths) != len(families):
            raise ValueError(f"{len(families)} families for {len(widths)} column groups.")
        self.families_ = families
        check_counts(state["statistics"])
        return self.install(state["classes"], state["statistics"])

    # -- prediction -----------------------------------------------------------------------------
    def _scoring_params(self) -> list:
        """``params_`` with each family's scoring tables, made once per fitted state: they
        cost a pass over the parameters (the whole vocabulary of a large model), which every
        prediction call, one row or a million, would otherwise pay again."""
        params = self.__dict__.get("params_")
        if params is None:
            raise NotFittedError(
                f"This {type(self).__name__} holds statistics without parameters (installed "
                "with finalize=False); call finalize() before scoring."
            )
        cached = _SCORING.get(self)
        if cached is None or cached[0] is not params:
            cached = (params, [fam.ready(p) for fam, p in zip(self.families_, params)])
            _SCORING[self] = cached
        return cached[1]

    def _jll(self, X, normalised: bool) -> np.ndarray:
        check_is_fitted(self, "stats_")
        X = self._validate_X(X, reset=False)
        return engine.joint_log_likelihood(
            self.families_,
            self._scoring_params(),
            self.class_log_prior_,
            self._blocks(X, "score"),
            self._feature_names_per_block(),
            normalised=normalised,
        )

    def predict_joint_log_proba(self, X) -> np.ndarray:
        """log P(x, y) for every class, shape (n_samples, n_classes), columns in ``classes_``
        order. Includes class-independent terms, so it is a true log-probability.

        Parameters
        ----------
        X : batch of rows, as the estimator's ``fit`` takes them
            The samples to score.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.predict_joint_log_proba([[1, 1]]).round(3)
        array([[-1.216, -2.238]])
        """
        return self._jll(X, normalised=True)

    def joint_log_scores(self, X) -> np.ndarray:
        """log P(x, y) without the families' class-independent normalisers, shape
        (n_samples, n_classes) (see :meth:`EstimatorProtocol.joint_log_scores`).

        Parameters
        ----------
        X : batch of rows, as the estimator's ``fit`` takes them
            The samples to score.

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order; differences between columns are exact log-odds.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> scores = model.joint_log_scores([[1, 1]])
        >>> joint = model.predict_joint_log_proba([[1, 1]])
        >>> bool(abs((scores[0, 0] - scores[0, 1]) - (joint[0, 0] - joint[0, 1])) < 1e-12)
        True
        """
        return self._jll(X, normalised=False)

    def joint_log_scores_of(self, models, X):
        """:meth:`joint_log_scores` of X under each of ``models``, in order, from one pass
        over X where their families allow (see :meth:`EstimatorProtocol.joint_log_scores_of`).

        ``models`` are :meth:`finalize_with` of one model over the same statistics (the
        candidates of a grid search on one fold). Where every family can lay their parameter
        tables side by side (``Family.stack_params``), the candidates are scored together: one
        matrix product over X gives every candidate's scores, and X is checked once, not once
        per candidate. The scores are those of each model's own :meth:`joint_log_scores`.
        Candidates are stacked in groups whose scores take at most about 32 MB at a time.

        Parameters
        ----------
        models : iterable of estimators
            Fitted models made by :meth:`finalize_with` of one model over the same
            statistics (the candidates of a grid search on one fold).
        X : batch of rows, as the estimator's ``fit`` takes them
            The samples to score.

        Yields
        ------
        ndarray of shape (n_samples, n_classes), one per model

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> models = [model.finalize_with({"alpha": a}) for a in (0.5, 2.0)]
        >>> scores = list(model.joint_log_scores_of(models, [[1, 1]]))
        >>> [bool(np.allclose(s, m.joint_log_scores([[1, 1]]))) for s, m in zip(scores, models)]
        [True, True]
        """
        models = list(models)
        if not self._stackable(models):
            yield from EstimatorProtocol.joint_log_scores_of(self, models, X)
            return
        first = models[0]
        X = first._validate_X(X, reset=False)
        blocks = first._blocks(X, "score")
        n_classes = len(first.classes_)
        size = max(1, blocks[0].shape[0] * n_classes)
        per_group = max(1, _STACK_BUDGET // size)
        for start in range(0, len(models), per_group):  # bounded by the memory budget
            group = models[start : start + per_group]
            params = [
                fam.stack_params([m.params_[g] for m in group])
                for g, fam in enumerate(first.families_)
            ]
            jll = engine.joint_log_likelihood(
                first.families_,
                params,
                np.concatenate([m.class_log_prior_ for m in group]),
                blocks,
                first._feature_names_per_block(),
                normalised=False,
            )
            for i in range(len(group)):  # bounded by the group
                yield jll[:, i * n_classes : (i + 1) * n_classes]  # a view: no copy

    def joint_log_scores_with(self, params_list, stats: dict, X):
        """:meth:`joint_log_scores` of X under ``finalize_with(params, stats)`` for each of
        ``params_list``, in order (see :meth:`EstimatorProtocol.joint_log_scores_with`).

        Where every family finalizes several candidates in one vectorised pass
        (``Family.finalize_stacked``), no model is made: the candidates' tables are computed
        together, already laid out for one matrix product over X; where X is sparse and holds
        a small share of the columns (a held-out fold of a large vocabulary) and the family
        can (``Family.stacks_columns``), the tables of the columns X holds alone, and X is
        scored over those columns (the same scores: the other columns add nothing). Otherwise
        :meth:`finalize_with` per candidate and :meth:`joint_log_scores_of`.

        Parameters
        ----------
        params_list : list of dict
            Finalize-time parameters of each candidate (see :meth:`finalize_params`).
        stats : dict
            Statistics over ``classes_`` in this model's set-up (e.g. all rows minus a fold).
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            The held-out rows to score.

        Yields
        ------
        ndarray of shape (n_samples, n_classes), one per candidate (views of one stacked
        array where the candidates were scored together)

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> X = np.array([[3, 0], [2, 1], [0, 4]])
        >>> model = MultinomialNB().fit(X, [0, 0, 1])
        >>> grid = [{"alpha": 0.1}, {"alpha": 2.0}]
        >>> scores = list(model.joint_log_scores_with(grid, model.stats_, X))
        >>> bool(np.allclose(scores[1], model.finalize_with(grid[1]).joint_log_scores(X)))
        True
        """
        check_is_fitted(self, "stats_")
        params_list = [dict(p or {}) for p in params_list]
        shells = [self._candidate_shell(p) for p in params_list]
        stacked = blocks = None
        names = self._feature_names_per_block()

        def finalize(columns=None) -> list | None:
            tables = [
                fam.finalize_stacked(s, [shell.families_[g] for shell in shells], columns)
                for g, (fam, s) in enumerate(zip(self.families_, stats["groups"]))
            ]
            return None if any(t is None for t in tables) else tables

        if len(shells) > 1 and len(self.classes_) > 1 and type(self)._restrict is BaseNB._restrict:
            if len(self.families_) == 1 and self.families_[0].stacks_columns:
                X = self._validate_X(X, reset=False)
                blocks = self._blocks(X, "score")
                held = _held_columns(self.families_, blocks, names)
                if held is not None and (stacked := finalize(held[1])) is not None:
                    blocks = [held[0]]  # the held-out rows over the columns they hold
            if stacked is None:
                stacked = finalize()
        if stacked is None:
            models = [self.finalize_with(p, stats) for p in params_list]
            yield from self.joint_log_scores_of(models, X)
            return
        if blocks is None:
            X = self._validate_X(X, reset=False)
            blocks = self._blocks(X, "score")
        log_prior = np.concatenate(_log_priors(shells, stats["class_count"]))
        n_classes = len(self.classes_)
        jll = engine.joint_log_likelihood(
            self.families_, stacked, log_prior, blocks, names, normalised=False
        )
        for i in range(len(shells)):  # bounded by the candidates
            yield jll[:, i * n_classes : (i + 1) * n_classes]  # a view: no copy

    def _candidate_shell(self, params: dict):
        """This model's set-up with ``params`` set and its families remade, not finalized:
        what :meth:`finalize_with` builds before it installs the statistics."""
        allowed = self.finalize_params()
        refused = sorted(set(params) - allowed)
        if refused:
            raise ParameterError(
                f"{type(self).__name__}'s parameter(s) {refused!r} change what is counted, not "
                "only how the statistics are finalized, so a model with other values must be "
                "fitted again (scikit-learn's sklearn.model_selection.GridSearchCV does). "
                f"Parameters that only change the finalize: {sorted(allowed)!r}."
            )
        model = type(self).__new__(type(self))
        model.__dict__.update(self.__dict__)
        if any("__" in name for name in params):
            model.set_params(**params)
        else:  # names checked above; set_params would inspect the signature every time
            for name, value in params.items():  # bounded by the parameters
                setattr(model, name, value)
        model.families_ = model._remake_families()
        return model

    def _stackable(self, models: list) -> bool:
        """Whether :meth:`joint_log_scores_of` can score ``models`` in one product: fitted
        models of this class with the same classes (two or more, so that the class prior
        enters every stacked score as it enters each model's) and families that stack."""
        if len(models) < 2 or any(type(m) is not type(self) for m in models):
            return False
        for m in models:  # bounded by the candidates
            check_is_fitted(m, "stats_")
        first = models[0]
        if len(first.classes_) < 2:
            return False
        kinds = [type(f) for f in first.families_]
        for m in models:  # bounded by the candidates
            if not np.array_equal(m.classes_, first.classes_):
                return False
            if [type(f) for f in m.families_] != kinds:
                return False
        return all(f.stackable_params is not None for f in first.families_)

    def _posterior(self, X, log: bool) -> np.ndarray:
        check_is_fitted(self, "stats_")
        X = self._validate_X(X, reset=False)
        return engine.posterior(
            self.families_,
            self._scoring_params(),
            self.class_log_prior_,
            self._blocks(X, "score"),
            self._feature_names_per_block(),
            log=log,
        )

    def predict_log_proba(self, X) -> np.ndarray:
        """Log posterior log P(y | x) of every class, for each sample.

        Computed in log space (log-sum-exp), so a class far less probable than another keeps a
        finite log-probability where :meth:`predict_proba` would round it to 0.

        Parameters
        ----------
        X : {array-like, sparse matrix} or DataFrame of shape (n_samples, n_features)
            The samples, with the columns the model was fitted on (by name for a DataFrame).

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order; ``exp`` of each row sums to one.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.predict_log_proba([[3, 0]]).round(2)
        array([[-0.01, -4.32]])
        """
        return self._posterior(X, log=True)

    def predict_proba(self, X) -> np.ndarray:
        """Posterior probability P(y | x) of every class, for each sample.

        Parameters
        ----------
        X : {array-like, sparse matrix} or DataFrame of shape (n_samples, n_features)
            The samples, with the columns the model was fitted on (by name for a DataFrame).

        Returns
        -------
        ndarray of shape (n_samples, n_classes)
            Columns in ``classes_`` order; each row sums to one.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.predict_proba([[3, 0], [0, 2]]).round(2)
        array([[0.99, 0.01],
               [0.26, 0.74]])
        """
        return self._posterior(X, log=False)

    def predict(self, X) -> np.ndarray:
        """Most probable class of each sample.

        Where the model has a ``decision_threshold`` (two classes only; for a wrapper, its
        inner model's), ``classes_[1]`` is predicted exactly when its log-odds exceed the
        threshold; otherwise the most probable class (ties go to the first class, as
        ``argmax``), which is the threshold 0.

        Parameters
        ----------
        X : {array-like, sparse matrix} or DataFrame of shape (n_samples, n_features)
            The samples, with the columns the model was fitted on (by name for a DataFrame).

        Returns
        -------
        ndarray of shape (n_samples,)
            One of ``classes_`` per sample.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.predict([[3, 0], [0, 2]]).tolist()
        ['a', 'b']
        """
        threshold = self._log_odds_threshold()
        jll = self._jll(X, normalised=False)
        if threshold is None:
            return self.classes_[np.argmax(jll, axis=1)]
        return self.classes_[(engine.log_odds(jll) > threshold).astype(np.intp)]

    def _log_odds_threshold(self) -> float | None:
        """``decision_threshold`` in log-odds, validated; None for the plain argmax rule."""
        return log_odds_threshold(
            getattr(self, "decision_threshold", None),
            getattr(self, "threshold_scale", "log_odds"),
            len(self.classes_) if hasattr(self, "classes_") else None,
        )

    def decision_function(self, X) -> np.ndarray:
        """Log-odds for two classes, the posterior otherwise.

        Two classes: log P(classes_[1] | x) - log P(classes_[0] | x), shape (n_samples,); its
        sign gives ``predict`` (threshold 0) and its logistic sigmoid ``predict_proba[:, 1]``.
        For a linear model it equals ``linear_features(X) @ coef_[0] + intercept_[0]``. Exact
        within log(1 / eps) of float64, about 36.04, where the probabilities are resolved,
        and clipped to it beyond (``engine.bound_decision``), where the likelier class's
        probability rounds to 1: the tools see tied rows there, as around scikit-learn's
        naive Bayes.
        More classes: the posterior P(y | x), equal to ``predict_proba``, shape (n_samples,
        n_classes); its argmax gives ``predict``. scikit-learn's tools prefer
        ``decision_function`` to ``predict_proba`` and read it one column at a time
        (``CalibratedClassifierCV`` fits a sigmoid or an isotonic map per class, the
        one-vs-rest curves rank the rows per class); on the posterior they fit what they fit
        around scikit-learn's naive Bayes, which has ``predict_proba`` only. Temperature
        scaling recognises probabilities and takes their log. A log-scale score (the log
        posterior, the one-vs-rest log-odds) leaves Platt's per-class sigmoid a different
        family of maps, which calibrates overconfident models worse.

        Parameters
        ----------
        X : {array-like, sparse matrix} or DataFrame of shape (n_samples, n_features)
            The samples, with the columns the model was fitted on (by name for a DataFrame).

        Returns
        -------
        ndarray of shape (n_samples,) or (n_samples, n_classes)
            The log-odds of ``classes_[1]`` (two classes) or the posterior of every class.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "a", "b"])
        >>> model.decision_function([[3, 0], [0, 2]]).round(2)
        array([-4.31,  1.06])
        >>> three = MultinomialNB().fit([[2, 0], [1, 1], [0, 3]], ["a", "b", "c"])
        >>> bool((three.decision_function([[3, 0]]) == three.predict_proba([[3, 0]])).all())
        True
        """
        if len(getattr(self, "classes_", ())) > 2:
            return self.predict_proba(X)
        return engine.bound_decision(engine.log_odds(self._jll(X, normalised=False)))

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

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        try:
            tags.input_tags.sparse = all(f.sparse_ok for f in self._make_families(1))
        except ValueError:  # invalid parameters are reported by fit, not when asked for tags
            tags.input_tags.sparse = True
        tags.input_tags.allow_nan = getattr(self, "missing", "error") == "ignore"
        return tags
