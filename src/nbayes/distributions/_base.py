"""What every feature family provides, and the pieces they share.

A family is a small object holding hyperparameters (``alpha``, ``estimate``, ``missing``) and
pure methods over two kinds of plain dicts of numpy arrays:

* *statistics* -- additive sufficient statistics, class axis first. ``zeros`` is the identity of
  ``merge``; ``accumulate`` turns one batch into statistics.
* *parameters* -- log-space parameters made by ``finalize`` from the merged statistics.

Keeping both as ``dict[str, ndarray]`` makes them trivially mergeable, serialisable without
pickle, and shippable between Dask workers. :class:`Family` is the contract (an abstract base
class); CONTRIBUTING.md walks through adding one.
"""

from __future__ import annotations

import abc
import math
from collections.abc import Iterator, Sequence
from functools import cached_property
from typing import Any

import numpy as np
import scipy.sparse as sp

from .._accel import kernels
from .._validation import check_finite, check_finite_from, column_label
from ..exceptions import DataError, ParameterError

#: Additive sufficient statistics: arrays, class axis first for the keys in ``class_keys``.
Stats = dict[str, np.ndarray]
#: Parameters from ``finalize``: mostly arrays, plus what ``scoring_params`` derives for
#: scoring (tables that may be None, compiled-loop tables, the ``scoring_ready`` flag).
Params = dict[str, Any]

ESTIMATES = ("posterior_mean", "map", "mle")
MISSING = ("error", "ignore")

#: Bytes of temporaries one row chunk may allocate; bounds peak memory of fit and predict.
CHUNK_BYTES = 16 * 2**20

#: In ``subtract``, a difference smaller than this times the operands' magnitude is rounding
#: error of float64 sums (about n * 2**-53 relative for n rows), so it counts as exactly zero;
#: a more negative one means the rows were never learned.
SUBTRACT_RTOL = 1e-9


class Labels:
    """Class codes and sample weights of one batch.

    Parameters
    ----------
    codes : ndarray of shape (n_samples,)
        Integer class index in ``[0, n_classes)`` for each row.
    weights : ndarray of shape (n_samples,)
        Non-negative sample weights (float64).
    n_classes : int
        Number of classes K.
    """

    def __init__(self, codes: np.ndarray, weights: np.ndarray, n_classes: int):
        self.codes = np.asarray(codes, dtype=np.intp)
        self.weights = np.asarray(weights, dtype=np.float64)
        self.n_classes = int(n_classes)

    def __len__(self) -> int:
        return self.codes.shape[0]

    def __getitem__(self, rows: slice) -> Labels:
        return Labels(self.codes[rows], self.weights[rows], self.n_classes)

    @cached_property
    def onehot(self) -> np.ndarray:
        """Dense (n_samples, n_classes) one-hot matrix scaled by the weights (Yw)."""
        Y = np.zeros((len(self), self.n_classes))
        Y[np.arange(len(self)), self.codes] = self.weights
        return Y

    @cached_property
    def onehot_t(self) -> sp.csc_matrix:
        """Yw.T, the transposed :attr:`onehot`, as a sparse (n_classes, n_samples) matrix with
        one stored value per column. Built over the codes without scipy's checks and copies,
        which cost more than the product on a chunk of a few thousand rows."""
        n = len(self)
        return compressed_view(
            sp.csc_matrix,
            self.weights,
            self.codes,
            np.arange(n + 1, dtype=self.codes.dtype),
            (self.n_classes, n),
        )

    @cached_property
    def class_weight(self) -> np.ndarray:
        """Total weight per class, shape (n_classes,)."""
        return np.bincount(self.codes, weights=self.weights, minlength=self.n_classes)


class SoftLabels(Labels):
    """Fractional class memberships of one batch: row ``i`` counts as ``weights[i, k]`` rows
    of class ``k`` (the E-step of EM, :class:`nbayes.SemiSupervisedNB`).

    A row spread over several classes is counted once per class with a fraction of its weight,
    without copying the row: the per-class sums are one product ``W.T @ X`` with the dense
    (n_samples, n_classes) weight matrix where a hard label has its one-hot matrix. Families
    whose statistics are such products (``soft_labels = True``) take these labels directly;
    the others are given one hard-labelled pass per class (:func:`accumulate_by_class`).

    Parameters
    ----------
    weights : ndarray of shape (n_samples, n_classes)
        Non-negative weight of each row in each class (the responsibilities times the row's
        own weight).

    Examples
    --------
    >>> import numpy as np
    >>> soft = SoftLabels(np.array([[1.0, 0.0], [0.25, 0.75]]))
    >>> soft.class_weight.tolist(), soft.weights.tolist()
    ([1.25, 0.75], [1.0, 1.0])
    """

    def __init__(self, weights: np.ndarray):
        matrix = np.asarray(weights, dtype=np.float64)
        if matrix.ndim != 2:
            raise ValueError(f"soft label weights must be 2-d; got shape {matrix.shape}.")
        self.matrix = matrix
        self.n_classes = matrix.shape[1]
        # A row's total weight: what zero-weight and overflow checks look at. A product
        # with ones: numpy's sum over the short class axis of many rows is several times
        # slower (EM's E-step makes these labels for every row on every iteration).
        self.weights = matrix @ np.ones(self.n_classes)

    # Soft labels have no code per row: a counter that reads them is a bug, so it fails.
    @property
    def codes(self) -> np.ndarray:  # type: ignore[override]
        raise TypeError(
            "SoftLabels have no class code per row; count them with accumulate_by_class."
        )

    def __len__(self) -> int:
        return self.matrix.shape[0]

    def __getitem__(self, rows: slice) -> SoftLabels:
        part = SoftLabels.__new__(SoftLabels)
        part.matrix, part.n_classes = self.matrix[rows], self.n_classes
        part.weights = self.weights[rows]  # already summed
        return part

    @property
    def onehot(self) -> np.ndarray:
        return self.matrix

    @property
    def onehot_t(self) -> np.ndarray:
        return self.matrix.T

    @cached_property
    def class_weight(self) -> np.ndarray:
        return np.ones(self.matrix.shape[0]) @ self.matrix  # as ``weights``: not sum(axis=0)

    def by_class(self) -> Iterator[Labels]:
        """One hard-labelled :class:`Labels` per class, all rows in class ``k`` with their
        weight in ``k`` (zero elsewhere): ``n_classes`` passes that add up to these labels."""
        n = len(self)
        for k in range(self.n_classes):  # bounded by the number of classes
            yield Labels(np.full(n, k, dtype=np.intp), self.matrix[:, k], self.n_classes)


def accumulate_by_class(accumulate, merge, X, labels: Labels):
    """``accumulate(X, labels)``, for counters that need a class code per row: soft labels
    become one hard-labelled pass per class, merged (each pass reads X without copying it)."""
    if not isinstance(labels, SoftLabels):
        return accumulate(X, labels)
    out = None
    for hard in labels.by_class():
        stats = accumulate(X, hard)
        out = stats if out is None else merge(out, stats)
    return out


def class_sums(X, labels: Labels) -> np.ndarray:
    """Per-class weighted column sums ``Yw.T @ X`` as a dense float64 (n_classes, n_features).

    The sparse one-hot product touches each stored value once whatever the number of classes.
    For dense X it also beats a BLAS product with the dense one-hot: that product is
    memory-bound, costs K times the work, and its threads stall on a busy machine.
    """
    if sp.issparse(X):
        return _sparse_class_sums(X, labels)
    if isinstance(labels, SoftLabels):
        # Dense weights by dense X: one BLAS product (K columns, usually a handful).
        return labels.onehot_t @ np.asarray(X).astype(np.float64, copy=False)
    return np.asarray(labels.onehot_t @ np.asarray(X).astype(np.float64, copy=False))


def compressed_view(kind, data, indices, indptr, shape):
    """A CSR / CSC matrix over the given arrays, without copying them.

    scipy's constructor copies arrays that are small views of larger ones (it "prunes" them),
    which would copy every chunk of a large matrix; the public attributes are set instead.
    """
    out = kind(shape, dtype=data.dtype)
    out.data, out.indices, out.indptr = data, indices, indptr
    return out


#: Up to this many classes, sparse class sums multiply by the dense one-hot instead.
FEW_CLASSES = 4


def _sparse_class_sums(X, labels: Labels) -> np.ndarray:
    """``Yw.T @ X`` for sparse X as one bincount keyed by (class, column) of each stored value.

    O(nnz) whatever the number of classes, and several times faster than a sparse-sparse
    product, which sorts its output, or a product with the dense one-hot, which costs K
    multiply-adds per stored value.
    """
    X = X.tocsr()
    if labels.n_classes <= FEW_CLASSES or isinstance(labels, SoftLabels):
        # A handful of classes: X.T @ Yw is one pass over the stored values with K
        # multiply-adds each, cheaper than building bincount keys.
        X_t = compressed_view(sp.csc_matrix, X.data, X.indices, X.indptr, X.shape[::-1])
        return np.ascontiguousarray(np.asarray(X_t @ labels.onehot).T, dtype=np.float64)
    n_features = X.shape[1]
    compiled = kernels()
    if compiled is not None and _compiled_sparse(X):
        # The same sums in one compiled pass, without the keys and weighted values that
        # bincount needs (nine times faster over Enron's 456k stored values in 10 classes).
        sums = np.zeros((labels.n_classes, n_features))
        codes = np.ascontiguousarray(labels.codes, dtype=np.intp)
        weights = np.ascontiguousarray(labels.weights, dtype=np.float64)
        compiled.csr_class_sums(X.data, X.indices, X.indptr, codes, weights, sums)
        return sums
    per_row = np.diff(X.indptr)
    key = np.repeat(labels.codes * n_features, per_row)
    key += X.indices
    values = X.data.astype(np.float64, copy=False)
    if not np.all(labels.weights == 1.0):
        values = values * np.repeat(labels.weights, per_row)
    sums = np.bincount(key, weights=values, minlength=labels.n_classes * n_features)
    return sums.reshape(labels.n_classes, n_features)


def row_chunks(n_rows: int, row_bytes: int, budget: int | None = None) -> Iterator[slice]:
    """Slices of at most ``budget // row_bytes`` rows covering ``range(n_rows)``.

    ``budget`` defaults to :data:`CHUNK_BYTES`, read at call time.
    """
    budget = CHUNK_BYTES if budget is None else budget
    step = max(1, budget // max(int(row_bytes), 1))
    for start in range(0, n_rows, step):
        yield slice(start, min(start + step, n_rows))


def check_alpha(alpha, n_features: int, estimate: str, name: str = "alpha") -> np.ndarray:
    """Validate a scalar or per-feature smoothing parameter; return it as (n_features,)."""
    if estimate not in ESTIMATES:
        raise ParameterError(f"Parameter 'estimate' must be one of {ESTIMATES}; got {estimate!r}.")
    try:
        a = np.asarray(alpha, dtype=np.float64)
    except (TypeError, ValueError):
        chosen = isinstance(alpha, str) and alpha in ("auto", "cv")
        raise ParameterError(
            f"Parameter {name!r} must be a non-negative number or one per feature; got "
            f"{alpha!r}."
            + (
                f" This model does not choose {name} itself ('auto' and 'cv' are for the "
                "naive Bayes estimators); compare values with "
                "sklearn.model_selection.GridSearchCV."
                if chosen
                else ""
            )
        ) from None
    if a.ndim == 0:  # the usual case, judged without array passes (a grid search asks often)
        value = float(a)
        if math.isfinite(value) and value >= 0 and (estimate != "map" or value >= 1):
            return np.full(n_features, value)
    if a.ndim > 1 or (a.ndim == 1 and a.shape[0] != n_features):
        raise ParameterError(
            f"Parameter {name!r} must be a scalar or have one value per feature "
            f"({n_features}); got shape {a.shape}."
        )
    if not np.all(np.isfinite(a)) or np.any(a < 0):
        raise ParameterError(f"Parameter {name!r} must be finite and non-negative; got {alpha!r}.")
    if estimate == "map" and np.any(a < 1):
        raise ParameterError(
            f"estimate='map' needs {name} >= 1 (the Dirichlet mode is undefined below 1); "
            f"got {alpha!r}. Use alpha=1 for the MLE or estimate='posterior_mean'."
        )
    return np.broadcast_to(a, (n_features,)).astype(np.float64)


def pseudo_count(alpha: np.ndarray, estimate: str) -> np.ndarray:
    """Counts added to every outcome: the Dirichlet estimate written once.

    posterior_mean: (n + a) / (N + K a);  map: (n + a - 1) / (N + K (a - 1));  mle: n / N.
    """
    if estimate == "posterior_mean":
        return alpha
    if estimate == "map":
        return alpha - 1.0
    return np.zeros_like(alpha)


def weighted_log_sum(weight, log_values) -> float:
    """``sum(weight * log_values)`` where the weight is non-zero (a zero pseudo-count times a
    log-probability of -inf, the MLE of an unseen value, counts 0)."""
    weight = np.broadcast_to(weight, np.shape(log_values))
    return float(np.sum(np.where(weight != 0, weight * log_values, 0.0)))


def by_class(values: np.ndarray, n_features: int) -> np.ndarray:
    """A read-only (classes, features) table whose every column is ``values``, one per
    class, held as that one column: what a count family observes per class and feature
    when no cell is missing (the class weights). :func:`add_tables` keeps it one column."""
    return np.broadcast_to(np.asarray(values, dtype=np.float64)[:, None], (len(values), n_features))


def _one_column(table) -> bool:
    """Whether ``table`` is a :func:`by_class` table (a broadcast column)."""
    return isinstance(table, np.ndarray) and table.ndim == 2 and table.strides[1] == 0


def add_tables(a, b):
    """``a + b``; two :func:`by_class` tables add up to one, without a table of cells."""
    if _one_column(a) and _one_column(b) and a.shape == b.shape:
        return by_class(a[:, 0] + b[:, 0], a.shape[1])
    return a + b


def same_columns(table: np.ndarray) -> bool:
    """Whether every column of a (classes, features) table is the same: known at once for a
    :func:`by_class` table, else one comparison pass."""
    if table.size == 0 or _one_column(table):
        return True
    return bool((table == table[:, :1]).all())


def log_normalise(
    counts: np.ndarray, totals: np.ndarray, n_outcomes, own: bool = False
) -> np.ndarray:
    """``log(counts / totals)``; 0/0 (no data and no pseudo-count) becomes uniform 1/K.

    A zero count over a positive total stays ``-inf``: that is the MLE, documented as such.
    ``own``: ``counts`` is a new float64 array the caller gives up, which then holds the
    result (no allocation of a table: partial_fit finalizes every batch).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        log_totals = np.log(totals)
        out = np.log(counts, out=counts) if own else np.log(counts)
        if isinstance(out, np.ndarray) and out.shape == np.broadcast_shapes(
            out.shape, np.shape(log_totals)
        ):
            out -= log_totals  # in place: a large vocabulary's finalize is these passes
        else:
            out = out - log_totals
    empty = np.asarray(totals) == 0
    if empty.any():  # tested on the (small) totals, not on their broadcast over every cell
        empty = np.broadcast_to(empty, out.shape)
        out = np.where(empty, -np.log(np.broadcast_to(n_outcomes, out.shape)), out)
    return out


#: Tables smaller than this many cells take numpy's logarithms (:func:`lookup_log`).
LOOKUP_CELLS = 2**18


def one_pseudo_count(a: np.ndarray) -> float | None:
    """The pseudo-count every feature shares, or None where they differ (or there are none)."""
    a = np.asarray(a, dtype=np.float64)
    if a.size == 0 or not np.isfinite(a.flat[0]) or (a.ndim and np.ptp(a) != 0):
        return None
    return float(a.flat[0])


def lookup_log(counts: np.ndarray, cell, minus: np.ndarray) -> np.ndarray | None:
    """``log(cell(counts, k)) - minus[k]`` per class row k, where ``cell`` is the caller's own
    elementwise arithmetic from a count to the value it takes the logarithm of, as a new
    table; or None where the compiled loops are off or the table is small (the caller
    takes numpy's logarithms itself).

    On a large vocabulary, laying a log table out is passes over the class x word table:
    numpy's ``log(cell) - minus`` makes a temporary and three passes. Most cells are small
    whole counts, so one compiled pass looks their logarithms up in a (classes, small
    counts) table of numpy's logarithms of the very values ``cell`` gives and subtracts
    ``minus``: every cell equals numpy's, and the few other cells take numpy's log after
    the loop (every cell, where most are not whole: fractional weights).
    Where no temporary is saved (a table numpy can take the logarithm of in place), numpy's
    vectorised log is as fast as the look-up.
    """
    compiled = kernels()
    n_classes, n_features = counts.shape
    if compiled is None or counts.size < LOOKUP_CELLS or counts.dtype != np.float64:
        return None  # (numpy's log is as fast where the Python overhead counts)
    small = int(np.clip(n_features // 4, 64, 4096))
    classes = np.arange(n_classes)[:, None]
    minus = np.ascontiguousarray(minus, dtype=np.float64).ravel()
    with np.errstate(divide="ignore", invalid="ignore"):
        table = np.log(cell(np.arange(small, dtype=np.float64)[None, :], classes))
    table = np.ascontiguousarray(np.broadcast_to(table, (n_classes, small)))
    out = np.empty((n_classes, n_features))
    rest = np.empty(max(counts.size // 8, 1024), dtype=np.int64)
    n_rest = compiled.lookup_log_cells(np.ascontiguousarray(counts), table, minus, out, rest)
    if n_rest < 0:  # most cells are not small whole counts: numpy's log of every one
        with np.errstate(divide="ignore", invalid="ignore"):
            np.log(cell(counts, classes), out=out)
        out -= minus[:, None]
        return out
    if n_rest:
        flat, k = rest[:n_rest], rest[:n_rest] // n_features
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.log(cell(counts.ravel()[flat], k))
            values -= minus[k]
        out.ravel()[flat] = values
    return out


class Family(abc.ABC):
    """The contract of a feature family: one kind of per-feature distribution, its conjugate
    prior, and everything the engine, the estimators, model files and Dask need from it.

    A family object holds hyperparameters only; every method is a pure function of its
    arguments, over *statistics* (additive, class axis first) and *parameters* (made by
    :meth:`finalize`), both plain ``dict[str, ndarray]``. The engine calls, per column group:

    1. :meth:`prepare` on each batch (domain check, conversion);
    2. :meth:`zeros`, :meth:`accumulate` and :meth:`merge` to build statistics, and
       :meth:`subtract` to unlearn rows;
    3. :meth:`finalize` once on the merged statistics (smoothing, floors, anything that depends
       on all the data happens here, never per batch);
    4. :meth:`joint_log_likelihood` (+ :meth:`log_normalizer`) to score a batch and
       :meth:`log_likelihood_terms` to explain one.

    To add a family, subclass, set :attr:`name` and :attr:`class_keys`, implement every
    abstract method (including the two conformance hooks :meth:`example_data` and
    :meth:`reference_log_density`) and add the class to ``nbayes.distributions.REGISTRY``; the
    shared conformance suite (tests/conformance.py) then checks it. See CONTRIBUTING.md.
    """

    #: Registry key: ``MixedNB(columns=[(name, ...)])``, model files and error messages use it.
    name: str = ""
    #: Whether :meth:`prepare` accepts scipy sparse matrices (and keeps them sparse).
    sparse_ok: bool = True
    #: Keys of the statistics that carry a class axis first (others are metadata, e.g. the
    #: number of categories); the default :meth:`subtract` and :meth:`add_classes` use them.
    class_keys: tuple[str, ...] = ()
    #: Those of :attr:`class_keys` that are averages over the rows (Gaussian means), which
    #: :meth:`scale` keeps; every other class key is a weighted sum.
    intensive_keys: tuple[str, ...] = ()
    #: Hyperparameters of MixedNB that this family receives when a column group names it by
    #: string (``MixedNB(alpha=0.5, columns=[("poisson", ...)])``); each must also be a keyword
    #: of the family's ``__init__``.
    shared_params: tuple[str, ...] = ()
    #: False for families whose scores already ignore the class prior (ComplementNB).
    uses_class_prior: bool = True
    #: Whether :meth:`accumulate` takes :class:`SoftLabels` (its class sums are products with
    #: the weight matrix); otherwise the engine counts soft labels one class at a time.
    soft_labels: bool = False
    #: Whether NaN and inf in X always show in this family's statistics and scores; then
    #: ``prepare(lazy=True)`` skips the scan of X and :meth:`check_result` looks at the
    #: (much smaller) output instead.
    finite_shows_in_result: bool = False
    #: The parameters that scoring reads, each with the class axis first, where they are all
    #: it reads (no hyperparameter that a finalize may change, nothing without a class axis):
    #: then :meth:`stack_params` lays several models' tables side by side. None otherwise.
    stackable_params: tuple[str, ...] | None = None
    #: Whether :meth:`finalize_stacked` makes the tables of some columns alone (its
    #: ``columns``): a grid search then scores sparse held-out rows over the columns they
    #: hold. A subclass that finalizes otherwise sets it False again.
    stacks_columns: bool = False

    def __init__(self, alpha=1.0, estimate: str = "posterior_mean", missing: str = "error"):
        if missing not in MISSING:
            raise ParameterError(f"Parameter 'missing' must be one of {MISSING}; got {missing!r}.")
        self.alpha = alpha
        self.estimate = estimate
        self.missing = missing

    def get_params(self) -> dict:
        """Hyperparameters, as needed to rebuild the family (for model files): the keywords
        of ``__init__`` with plain JSON-able values. Subclasses with more add theirs."""
        return {"alpha": self.alpha, "estimate": self.estimate, "missing": self.missing}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    def __sklearn_clone__(self) -> Family:
        # scikit-learn's clone (of a MixedNB whose 'columns' hold family instances, as Dask
        # and model selection do) copies a family by its hyperparameters, as a fresh family.
        return type(self)(**self.get_params())

    def __eq__(self, other) -> bool:
        # Families are value objects: two with the same hyperparameters are interchangeable
        # (clone() copies them, and merge() compares the models' parameters).
        return type(other) is type(self) and repr(other) == repr(self)

    def __hash__(self) -> int:
        return hash(repr(self))

    # -- input -----------------------------------------------------------------------------
    @abc.abstractmethod
    def prepare(self, X, feature_names: Sequence[str] | None = None, lazy: bool = False):
        """Check the family's domain and return X in the form the other methods use.

        Bad values raise a DataError naming the column (``feature_names`` when given), the
        first bad row and the value, via :func:`nbayes._validation.raise_at` or
        :meth:`check_finite`. NaN is a missing value: allowed only with
        ``missing="ignore"``. With ``lazy=True`` checks that the output reveals may be left
        out; the caller then passes each statistic or score made from X to
        :meth:`check_result`.
        """

    def check_finite(self, X, feature_names=None, lazy: bool = False) -> None:
        """Reject inf, and NaN unless missing values are ignored (later, if ``lazy`` allows)."""
        if not (lazy and self.finite_shows_in_result):
            check_finite(X, type(self).__name__, feature_names, allow_nan=self.missing == "ignore")

    def check_result(self, X, result, feature_names=None) -> None:
        """After ``prepare(X, lazy=True)``: raise for bad values of X that ``result`` shows."""
        if self.finite_shows_in_result:
            check_finite_from(
                result, X, type(self).__name__, feature_names, allow_nan=self.missing == "ignore"
            )

    def _missing(self, X) -> np.ndarray | None:
        """NaN mask of prepared dense X, or None. Only looked for where missing values are
        allowed: otherwise prepare() has rejected them, and a scan would be a wasted pass."""
        return missing_mask(X) if self.missing == "ignore" else None

    def _zero_missing(self, X):
        """X with missing cells set to 0, which drops their factor (marginalises them)."""
        nan = self._missing(X)
        return X if nan is None else np.where(nan, 0.0, X)

    def block_width(self, n_columns: int) -> int:
        """Columns of the block that ``n_columns`` input columns of this family make (the
        text family encodes one column into many)."""
        return n_columns

    # -- statistics --------------------------------------------------------------------------
    @abc.abstractmethod
    def zeros(self, n_classes: int, n_features: int) -> Stats:
        """Statistics of no data: the identity of :meth:`merge`."""

    @abc.abstractmethod
    def accumulate(self, X, labels: Labels) -> Stats:
        """Statistics of one prepared batch. ``labels`` gives each row's class code and
        weight; per-class sums are one product, :func:`class_sums` (``Yw.T @ X``). A row of
        weight w must count exactly as w copies of the row (so weight 0 drops it), and missing
        cells (NaN, under ``missing="ignore"``) must leave no trace."""

    def log_prior(self, params: Params) -> float:
        """log p(parameters) under the prior whose mode :meth:`finalize` returns, up to a
        constant: the term that makes EM over these parameters maximise the posterior
        (:class:`nbayes.SemiSupervisedNB`). 0 for maximum-likelihood estimates; families with
        pseudo-counts ``a`` (:func:`pseudo_count`) give ``sum(a * log theta)``."""
        return 0.0

    def merge(self, a: Stats, b: Stats) -> Stats:
        """Statistics of the union of two batches: pure, associative and commutative, with
        :meth:`zeros` as identity. Adds every key; families with non-additive moments
        (Gaussian: Chan et al.) or metadata (Categorical: vocabulary sizes) override this."""
        return {k: add_tables(a[k], b[k]) for k in a}

    #: Whether every array :meth:`accumulate` returns is a new float64 table that no other
    #: key shares, so that :meth:`merge_batch` may add into it. Only for families whose
    #: :meth:`merge` adds every key.
    fresh_batches = False

    def merge_batch(self, stats: Stats, batch: Stats) -> Stats:
        """``merge(stats, batch)`` where ``batch`` is what :meth:`accumulate` just returned
        and the caller gives up (a partial_fit batch): with :attr:`fresh_batches`, ``stats``
        is added into the batch's own tables, which saves making and filling a table as
        large as the statistics per batch. ``stats`` stays untouched either way."""
        if not self.fresh_batches:
            return self.merge(stats, batch)
        out = {}
        for key, held in stats.items():  # bounded: a family's few keys
            new = batch[key]
            if new.dtype == np.float64 and new.flags.writeable and new.shape == held.shape:
                out[key] = np.add(new, held, out=new)  # the same sums: addition commutes
            else:
                out[key] = add_tables(held, new)
        return out

    def scale(self, stats: Stats, factor: float) -> Stats:
        """Statistics of the same rows with every weight multiplied by ``factor`` >= 0: sums
        scale, averages (:attr:`intensive_keys`) and metadata stay. What EM's unlabeled
        weight lambda does to the unlabeled rows' statistics."""
        return {
            k: v * factor if k in self.class_keys and k not in self.intensive_keys else v
            for k, v in stats.items()
        }

    def subtract(self, a: Stats, b: Stats, class_names=None, feature_names=None) -> Stats:
        """Statistics of the data in ``a`` without the data in ``b``: the inverse of ``merge``.

        ``b`` must describe rows that ``a`` learned; a count that would turn negative raises a
        DataError naming the class and column. ``class_names`` / ``feature_names`` only
        improve that message. Families with non-additive moments override this.
        """
        return {
            k: subtract_nonnegative(a[k], b[k], k, class_names, feature_names)
            if k in self.class_keys
            else a[k]
            for k in a
        }

    #: How this family's statistics overflow, for :meth:`overflowed`'s error message.
    overflow_reason: str = "sums of the values exceed it"

    def cannot_overflow(self, stats: Stats, total_weight: float) -> bool:
        """Whether ``stats`` of rows whose weights sum to ``total_weight`` (finite) are
        finite for certain, by a bound that spares :meth:`overflowed` its pass over them
        (False here: no bound known)."""
        return False

    def overflowed(self, stats: Stats) -> int | None:
        """Feature whose statistics are not finite (-1: only a total over features is), or
        None when all are finite.

        Finite input can still sum past the float64 range (about 1.8e308), and the model
        would then score every row alike and fail to save. Counts are non-negative, so a
        finite grand total bounds every per-class and per-feature total that ``finalize``
        forms; only when it is infinite are the columns looked at.
        """
        with np.errstate(over="ignore", invalid="ignore"):
            for key in self.class_keys:
                arr = stats[key]
                if arr.dtype.kind != "f" or np.isfinite(arr.sum()):
                    continue
                bad = ~np.isfinite(arr.sum(axis=0))
                return int(np.argmax(bad)) if bad.any() else -1
        return None

    def add_classes(self, stats: Stats, n_new: int) -> Stats:
        """Append ``n_new`` empty classes to the statistics (for enlarged ``classes``)."""
        out = dict(stats)
        for k in self.class_keys:
            pad = np.zeros((n_new, *stats[k].shape[1:]), dtype=stats[k].dtype)
            out[k] = np.concatenate([stats[k], pad], axis=0)
        return out

    @abc.abstractmethod
    def n_samples(self, stats: Stats) -> np.ndarray:
        """Total weight seen per class, shape (n_classes,) -- used for sanity checks."""

    def observed_weight(self, stats: Stats) -> np.ndarray:
        """Training weight per feature where the value was observed (not missing), shape
        (n_features,); ``MixedNB.summary()`` reports one minus its share. NaN where the family
        does not keep it (the default)."""
        return np.full(next(iter(stats.values())).shape[-1], np.nan)

    def column_readings(self, params: Params) -> list[str] | None:
        """How the family reads each column when it chooses per column (the grid family's
        ``reading="auto"``), for ``MixedNB.summary()``; None for families that read every
        column alike (the default)."""
        return None

    # -- parameters --------------------------------------------------------------------------
    @abc.abstractmethod
    def finalize(self, stats: Stats) -> Params:
        """Parameters from the merged statistics, under the family's prior and ``estimate``
        (posterior mean, MAP or MLE; see DESIGN.md section 3). Everything that depends on the
        whole data (smoothing, ``alpha="auto"``, variance floors) is decided here."""

    @abc.abstractmethod
    def joint_log_likelihood(self, params: Params, X) -> np.ndarray:
        """Class-dependent part of log P(x | y) for every class, shape (n_samples, n_classes).

        Vectorised over rows (no Python loop over samples); a missing cell contributes
        nothing. A new array the caller may overwrite; it may be class-major (Fortran
        order), which the engine keeps while it normalises each row.
        """

    def joint_log_likelihood_into(self, params: Params, X, out: np.ndarray, base) -> bool:
        """Write ``base + joint_log_likelihood(params, X)`` into ``out`` and return True; or
        return False, having written nothing, where the family has no faster way than
        :meth:`joint_log_likelihood` (the default).

        ``out`` is a C-contiguous (n_samples, n_classes) float64 array (the engine's output
        rows), ``base`` a scalar or one value per class. Writing there directly saves a
        temporary and a pass over it.
        """
        return False

    def stack_params(self, params_list: Sequence[Params]) -> Params | None:
        """Parameters of several models of this family over the same columns, laid side by
        side along the class axis (model 0's classes first), so that one
        :meth:`joint_log_likelihood` call scores every model: its column block ``i * K + k``
        is model ``i``'s class ``k``. A grid search scores all candidates of a fold this
        way, in one matrix product over the held-out rows. None where the family cannot
        (:attr:`stackable_params` is None); the caller then scores the models one by one.
        """
        if self.stackable_params is None or not params_list:
            return None
        laid = [self.laid_out(p) for p in params_list]
        stacked = {k: np.concatenate([p[k] for p in laid]) for k in self.stackable_params}
        return {**laid[0], **stacked}

    def laid_out(self, params: Params) -> Params:
        """``params`` holding the tables :attr:`stackable_params` names: families whose
        finalize keeps its parameters factored (the count families) lay them out here."""
        return params

    def finalize_stacked(
        self, stats: Stats, families: Sequence[Family], columns: np.ndarray | None = None
    ) -> Params | None:
        """``stack_params`` of ``[f.finalize(stats) for f in families]`` (families of this
        type with other finalize-time hyperparameters: the candidates of a grid search), made
        in one vectorised pass and laid out for scoring without a copy; None where the family
        has no such pass (the candidates are then finalized one by one).

        With ``columns`` (distinct feature indices, in any order: those the rows to score
        hold, in the order they first appear there), the tables of those features only, in
        that order, for scoring the rows with their other columns
        left out; each is still the full model's parameter (normalised over every feature).
        None where the family cannot restrict its tables (the caller then asks again
        without ``columns``)."""
        return None

    def canonical_params(self, params: Params) -> Params:
        """``params`` as :meth:`finalize` of the merged statistics lays them out. A family
        that finalizes batch by batch (``finalize_onto``) may hold the same values in
        another layout; comparisons of models (fit against partial_fit) use this form."""
        return params

    def scoring_params(self, params: Params) -> Params:
        """``params`` plus whatever scoring derives from them (transposed weight tables, say:
        a sparse product copies a transposed view on every call). Use :meth:`ready`."""
        return params

    def ready(self, params: Params) -> Params:
        """``params`` with :meth:`scoring_params` added once: the engine calls this once per
        prediction call, and :meth:`joint_log_likelihood` again, which then costs nothing."""
        if params.get("scoring_ready") is True:
            return params
        return {**self.scoring_params(params), "scoring_ready": True}

    def log_normalizer(self, params: Params, X) -> np.ndarray:
        """Class-independent part of log P(x | y), shape (n_samples,); zero for most families."""
        return np.zeros(X.shape[0])

    @abc.abstractmethod
    def log_likelihood_terms(self, params: Params, X) -> np.ndarray:
        """Per-feature terms of log P(x | y), shape (n_samples, n_classes, n_features).

        They add up to ``joint_log_likelihood + log_normalizer`` (broadcast over classes);
        a missing cell's term is 0. Memory is n*K*d: meant for explanations and tests, not
        for bulk prediction.
        """

    # -- conformance hooks -------------------------------------------------------------------
    @abc.abstractmethod
    def example_data(self, rng: np.random.Generator, n_samples: int, n_features: int):
        """Random data in the family's domain, shape (n_samples, n_features), with a scale
        that differs per feature: what the conformance suite (and examples) fit on.

        Dense; the suite makes a sparse copy itself where :attr:`sparse_ok`.
        """

    @abc.abstractmethod
    def reference_log_density(self, params: Params, X) -> np.ndarray | None:
        """log P(x | y = k) computed independently with ``scipy.stats`` from ``params``: the
        reference the conformance suite checks :meth:`log_likelihood_terms` against.

        Shape (n_samples, n_classes, n_features) where the density factorises over the
        features, else (n_samples, n_classes) for the whole block (Multinomial). Return None
        only for a family whose scores are not a normalised density (Complement), and say
        why in a comment. ``X`` is prepared, dense and complete.
        """

    # -- linear form -------------------------------------------------------------------------
    def is_linear(self, params: Params) -> bool:
        """Whether the class scores are linear in :meth:`linear_features` (see
        :meth:`linear_weights`)."""
        return True

    def linear_weights(self, params: Params) -> tuple[np.ndarray, np.ndarray]:
        """Weights ``W`` (n_classes, n_linear) and offsets ``b`` (n_classes,) of the linear form.

        ``joint_log_likelihood(params, X) == linear_features(params, X) @ W.T + b`` up to a
        term that is the same for every class (so it cancels in log-odds and posteriors), for
        complete rows (a missing cell drops its factor, which no fixed weight can express).
        Zero probabilities under ``estimate="mle"`` give infinite weights. Optional: without
        it ``coef_``, ``decision_function`` and ``top_features`` are unavailable.
        """
        raise NotImplementedError(f"The {self.name} family has no linear form.")

    def linear_features(self, params: Params, X):
        """The design matrix the linear weights apply to; ``X`` itself for most families."""
        return X

    def linear_feature_names(self, params: Params, names: Sequence[str]) -> list[str]:
        """Names of the :meth:`linear_features` columns, given the block's column names."""
        return list(names)

    def feature_weights(self, params: Params) -> np.ndarray:
        """How much one unit of each linear feature moves each class score, (n_classes, n_linear).

        The linear weights for linear families; families that are not linear override this with
        the slope of their scores at a documented reference point.
        """
        return self.linear_weights(params)[0]

    def feature_means(self, stats: Stats, params: Params, class_count: np.ndarray) -> np.ndarray:
        """Training mean of each linear feature per class, (n_classes, n_linear).

        ``class_count`` is the total weight per class (rows). Used to rank features by their
        average contribution to a class's log-odds (``top_features(by="impact")``). Optional.
        """
        raise NotImplementedError(f"The {self.name} family does not report feature means.")

    # -- automatic smoothing -----------------------------------------------------------------
    def evidence_function(self, stats: Stats):
        """A function ``alpha -> log P(X | y, alpha)``, the marginal likelihood (evidence) of
        the training features under the family's conjugate prior, computed from ``stats``.

        Used by ``alpha="auto"``. Constant terms that do not depend on alpha may be left out.
        By the chain rule the evidence equals the prequential score sum_i log P(x_i | y_i,
        rows before i) under the posterior-mean estimate, so maximising it is a
        leave-future-out cross-validation done in closed form.

        Sample weights enter as frequency counts: an integer weight equals duplicated rows,
        and fractional counts go through the Gamma function's continuous extension. The
        evidence grows with the total weight, so scaling every weight by c (like seeing the
        data c times) moves the chosen alpha; normalise weights to the number of rows if they
        are only relative importances.
        """
        raise ParameterError(f"alpha='auto' is not available for the {self.name} family.")

    def resolve_alpha(self, stats: Stats, n_features: int) -> np.ndarray:
        """Validated alpha of shape (n_features,); ``alpha="auto"`` maximises the evidence."""
        if isinstance(self.alpha, str):
            if self.alpha != "auto":
                raise ParameterError(
                    f"Parameter 'alpha' must be a number, an array or 'auto'; got {self.alpha!r}."
                )
            check_alpha(1.0, n_features, self.estimate)  # validates ``estimate``
            lower = 1.0 if self.estimate == "map" else AUTO_ALPHA_RANGE[0]
            best = maximise_log_scalar(self.evidence_function(stats), lower, AUTO_ALPHA_RANGE[1])
            return np.full(n_features, best)
        return check_alpha(self.alpha, n_features, self.estimate)


def safe_ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` with 0 where ``den`` is 0 (a class or feature with no data)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


#: Search range of ``alpha="auto"``: from almost the MLE to almost uniform.
AUTO_ALPHA_RANGE = (1e-5, 1e5)


def maximise_log_scalar(fun, lower: float, upper: float, per_decade: int = 4) -> float:
    """Maximiser of ``fun`` over ``[lower, upper]``, searched on a log scale.

    A grid of ``per_decade`` points per decade finds the best cell, then Brent's method refines
    it between the neighbouring grid points. Evidence curves are smooth and unimodal in
    practice; the grid guards against a poor start. A maximum at a bound returns that bound.
    """
    from scipy.optimize import minimize_scalar

    lo, hi = np.log(lower), np.log(upper)
    n_grid = max(2, int(np.ceil((hi - lo) / np.log(10) * per_decade)) + 1)
    grid = np.linspace(lo, hi, n_grid)
    values = np.array([fun(float(np.exp(t))) for t in grid])  # bounded: ~40 grid points
    values = np.where(np.isnan(values), -np.inf, values)
    i = int(np.argmax(values))
    a, b = grid[max(i - 1, 0)], grid[min(i + 1, n_grid - 1)]
    res = minimize_scalar(
        lambda t: -fun(float(np.exp(t))), bounds=(a, b), method="bounded", options={"xatol": 1e-6}
    )
    best = res.x if res.success and -res.fun >= values[i] else grid[i]
    return float(np.exp(best))


def sum_shifted_lgamma(values: np.ndarray):
    """``alpha -> sum(lgamma(v + alpha) - lgamma(alpha))`` over ``values``, fast.

    Count tables repeat few distinct values (text is mostly 0, 1, 2, ...), so the sum is taken
    over the distinct values times their multiplicity; zeros contribute nothing.
    """
    from scipy.special import gammaln

    values = np.asarray(values, dtype=np.float64).ravel()
    uniq, mult = np.unique(values[values != 0], return_counts=True)
    mult = mult.astype(np.float64)

    def fun(alpha: float) -> float:
        return float(mult @ (gammaln(uniq + alpha) - gammaln(alpha)))

    return fun


def describe_cell(
    k: int, j: int | None, class_names=None, feature_names=None, column_of=None
) -> str:
    """Name a (class, column) cell of the statistics for an error message."""
    cls = f"class {class_names[k]!r}" if class_names is not None else f"class index {k}"
    if j is None:
        return cls
    col = column_of(j) if column_of is not None else column_label(j, feature_names)
    return f"{cls}, {col}"


def unlearn_error(what: str, where: str, held, removed) -> DataError:
    """The one message for statistics that unlearning would make impossible."""
    return DataError(
        f"Cannot unlearn: {what} for {where} would become negative (the model holds "
        f"{float(held):.6g}, the rows to unlearn hold {float(removed):.6g}). Some of these rows "
        "were never learned or were already unlearned; pass only rows the model was trained "
        "on, with the same sample weights."
    )


def subtract_nonnegative(
    a: np.ndarray, b: np.ndarray, what: str, class_names=None, feature_names=None, column_of=None
) -> np.ndarray:
    """``a - b`` for non-negative statistics, with rounding residue snapped to zero.

    Raises a DataError at the first cell where the difference is negative beyond rounding
    (see :data:`SUBTRACT_RTOL`); ``a`` has the class axis first.
    """
    out = np.asarray(a, dtype=np.float64) - b
    if out.size and out.min() >= 0:
        # The usual case, judged in a few passes without temporaries as large as ``a``: no
        # cell is negative, and none but the exact zeros is within the largest slack any
        # cell has (SUBTRACT_RTOL times the largest operands), so nothing is residue.
        bound = SUBTRACT_RTOL * sum(max(np.max(v), -np.min(v)) for v in (a, b))
        if np.count_nonzero(out <= bound) == np.count_nonzero(out == 0):
            return out
    slack = SUBTRACT_RTOL * (np.abs(a) + np.abs(b))
    negative = out < -slack
    if negative.any():
        cell = tuple(int(i) for i in np.argwhere(negative)[0])
        where = describe_cell(
            cell[0], cell[1] if len(cell) > 1 else None, class_names, feature_names, column_of
        )
        raise unlearn_error(f"the statistic {what!r}", where, a[cell], b[cell])
    out[np.abs(out) <= slack] = 0.0
    return out


def missing_mask(X) -> np.ndarray | None:
    """Boolean mask of NaN cells of dense X, or None when there are none."""
    if sp.issparse(X) or X.dtype.kind != "f":
        return None
    mask = np.isnan(X)
    return mask if mask.any() else None


def split_inf(log_w: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
    """Split log-weights into a finite part and an indicator of ``-inf`` entries.

    Products such as ``X @ log_w.T`` would turn ``0 * -inf`` into NaN. Families multiply by the
    finite part and count hits on the indicator separately; a row with any hit gets ``-inf``.
    The indicator is None when there is nothing to count (the usual, smoothed case).
    """
    # The minimum answers the usual question (no -inf) without a temporary as large as log_w.
    if log_w.size == 0 or not np.isneginf(log_w.min()):
        return log_w, None
    neg_inf = np.isneginf(log_w)
    return np.where(neg_inf, 0.0, log_w), neg_inf.astype(np.float64)


def dot_classes(W: np.ndarray, X: np.ndarray) -> np.ndarray:
    """``X @ W.T`` for dense X in the layout the engine normalises fastest: row-major where
    the compiled loop normalises each row in cache, else class-major (Fortran order, as
    ``(W @ X.T).T``), where numpy's reductions over the classes run on contiguous memory."""
    if kernels() is not None:
        return X @ W.T
    return (W @ X.T).T


_ONES = np.ones(0)


def ones(n: int) -> np.ndarray:
    """A read-only float64 vector of ``n`` ones, the data of one-hot matrices, shared between
    calls (and threads) so that each chunk does not write a fresh one."""
    global _ONES
    if _ONES.size < n:
        fresh = np.ones(max(n, 2 * _ONES.size))
        fresh.flags.writeable = False
        _ONES = fresh
    return _ONES[:n]


def transposed(W: np.ndarray | None) -> np.ndarray | None:
    """``W.T`` as a contiguous array (None stays None), for :func:`dot`."""
    return None if W is None else np.ascontiguousarray(W.T)


def dot(X, W_t: np.ndarray) -> np.ndarray:
    """``X @ W_t`` as a dense float64 array for dense or sparse X (see :func:`transposed`).

    A non-finite cell of X propagates into its row's scores, where the callers find it and name
    it; some BLAS kernels (AVX-512 OpenBLAS) also raise the invalid flag on the way, which is not
    the user's concern, so it is silenced here."""
    compiled = kernels()
    if compiled is not None and _compiled_product(X, W_t):
        out = np.empty((X.shape[0], W_t.shape[1]))
        compiled.csr_dense_product(X.data, X.indices, X.indptr, W_t, out)
        return out
    with np.errstate(invalid="ignore", over="ignore"):
        return np.asarray(X @ W_t, dtype=np.float64)


#: The stored-value types of CSR matrices that the compiled product reads as they are.
_PRODUCT_DTYPES = frozenset(np.dtype(t) for t in ("float64", "float32", "int64", "int32"))


def _compiled_product(X, W_t) -> bool:
    """Whether ``X @ W_t`` can run in the compiled loop: CSR X of a stored-value type it
    reads, indices and indptr of one integer type, and a C-contiguous float64 W_t with a
    row per column of X (other shapes go to scipy, which says what is wrong). The loop adds
    each row's products in the order of its stored values, as scipy does, and it reads
    rows of a table larger than the cache ahead of their use: about 20% faster on a
    held-out fold of Enron (1,034 e-mails) scored against 10 candidates side by side."""
    return (
        isinstance(W_t, np.ndarray)
        and W_t.ndim == 2
        and W_t.dtype == np.float64
        and W_t.flags.c_contiguous
        and _compiled_sparse(X)
        and X.shape[1] == W_t.shape[0]
    )


def _compiled_sparse(X) -> bool:
    """Whether the compiled loops read the CSR arrays of X as they are: stored values of a
    type they take, indices and indptr of one integer type, all contiguous."""
    return (
        sp.issparse(X)
        and X.format == "csr"
        and X.data.dtype in _PRODUCT_DTYPES
        and X.indices.dtype == X.indptr.dtype
        and X.indices.dtype in (np.int32, np.int64)
        and X.data.flags.c_contiguous
        and X.indices.flags.c_contiguous
        and X.indptr.flags.c_contiguous
        and X.indptr.shape[0] == X.shape[0] + 1
    )


def linear_tables(log_w: np.ndarray) -> dict[str, np.ndarray | None]:
    """Scoring tables of a log-weight table that may hold -inf (a zero probability): its
    finite part and its -inf cells, each transposed and contiguous, for :func:`log_linear`."""
    finite, impossible = split_inf(log_w)
    return {"weights_t": transposed(finite), "impossible_t": transposed(impossible)}


def log_linear(X, tables: Params) -> np.ndarray:
    """``X @ log_w.T`` from :func:`linear_tables`: -inf where X meets a zero probability."""
    jll = dot(X, tables["weights_t"])
    if tables["impossible_t"] is not None:
        jll[dot(X, tables["impossible_t"]) > 0] = -np.inf
    return jll


def dot_t(X, W: np.ndarray) -> np.ndarray:
    """``X @ W.T`` as a dense float64 array for dense or sparse X."""
    out = X @ W.T
    return np.asarray(out.toarray() if sp.issparse(out) else out, dtype=np.float64)
