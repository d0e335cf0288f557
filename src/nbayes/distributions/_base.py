"""What every feature family provides: the :class:`Family` contract.

A family is a small object holding hyperparameters (``alpha``, ``estimate``, ``missing``) and
pure methods over two kinds of plain dicts of numpy arrays:

* *statistics* -- additive sufficient statistics, class axis first. ``zeros`` is the identity of
  ``merge``; ``accumulate`` turns one batch into statistics.
* *parameters* -- log-space parameters made by ``finalize`` from the merged statistics.

Keeping both as ``dict[str, ndarray]`` makes them trivially mergeable, serialisable without
pickle, and shippable between Dask workers. :class:`Family` is the contract (an abstract base
class); CONTRIBUTING.md walks through adding one. The pieces the families share live beside
it: ``_labels`` (the class labels a batch is counted over, and its per-class sums),
``_arrays`` (products, row chunks, unlearning, linear tables) and ``_estimates``
(smoothing, pseudo-counts, normalised logarithms, the search of ``alpha="auto"``).
"""

from __future__ import annotations

import abc
from collections.abc import Sequence
from typing import Any

import numpy as np

from .._validation import check_finite, check_finite_from
from ..exceptions import ParameterError
from ._arrays import add_tables, missing_mask
from ._estimates import AUTO_ALPHA_RANGE, check_alpha, maximise_log_scalar
from ._labels import Labels
from .statistics import Slot, by_slots

#: Additive sufficient statistics: arrays, class axis first for the keys in ``class_keys``.
Stats = dict[str, np.ndarray]


#: Parameters from ``finalize``: mostly arrays, plus what ``scoring_params`` derives for
#: scoring (tables that may be None, compiled-loop tables, the ``scoring_ready`` flag).
Params = dict[str, Any]


MISSING = ("error", "ignore")


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

    To add a family, subclass, set :attr:`name` and :attr:`statistics`, implement every
    abstract method (including the two conformance hooks :meth:`example_data` and
    :meth:`reference_log_density`) and add the class to ``nbayes.distributions.REGISTRY``; the
    shared conformance suite (tests/conformance.py) then checks it. See CONTRIBUTING.md.
    """

    #: Registry key: ``MixedNB(columns=[(name, ...)])``, model files and error messages use it.
    name: str = ""
    #: Whether :meth:`prepare` accepts scipy sparse matrices (and keeps them sparse).
    sparse_ok: bool = True
    #: The family's statistics, declared once: typed statistics
    #: (:mod:`nbayes.distributions.statistics`) bound to the keys of its statistics dict.
    #: :meth:`zeros`, :meth:`merge`, :meth:`subtract`, :meth:`scale`, :meth:`add_classes`,
    #: :attr:`class_keys` and the shapes model files accept all derive from it.
    statistics: tuple[Slot, ...] = ()
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

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        # Class keys derive from the declared statistics; a family written against the
        # older contract (its own class_keys) would silently merge nothing.
        for old in ("class_keys", "intensive_keys"):
            if old in vars(cls):
                raise TypeError(
                    f"{cls.__name__} sets {old}; declare its statistics instead, e.g. "
                    "statistics = (ClassSums.at('n_counts'),) (see "
                    "nbayes.distributions.statistics)."
                )

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
    @property
    def class_keys(self) -> tuple[str, ...]:
        """Keys of the statistics that carry a class axis first (others are metadata, e.g.
        the number of categories)."""
        return tuple(k for slot in self.statistics for k in slot.class_keys)

    def _by_slot(self, op: str, *args) -> Stats:
        """The declared statistics' ``op`` (a :class:`Slot` method), joined in one dict."""
        return by_slots(self.statistics, op, *args)

    def zeros(self, n_classes: int, n_features: int) -> Stats:
        """Statistics of no data: the identity of :meth:`merge`."""
        return self._by_slot("zeros", n_classes, n_features)

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
        :meth:`zeros` as identity. Each declared statistic merges by its type's ``+``."""
        return self._by_slot("add", a, b)

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
        scale, averages (a statistic type's ``intensive_fields``: Gaussian means) and
        metadata stay. What EM's unlabeled weight lambda does to the unlabeled rows'
        statistics."""
        return self._by_slot("scale", stats, factor)

    def subtract(self, a: Stats, b: Stats, class_names=None, feature_names=None) -> Stats:
        """Statistics of the data in ``a`` without the data in ``b``: the inverse of ``merge``.

        ``b`` must describe rows that ``a`` learned; a count that would turn negative raises a
        DataError naming the class and column. ``class_names`` / ``feature_names`` only
        improve that message. Each declared statistic unlearns by its type.
        """
        return self._by_slot("subtract", a, b, class_names, feature_names)

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
        return self._by_slot("add_classes", stats, n_new)

    def align_classes(self, stats: Stats, positions: np.ndarray, n_classes: int) -> Stats:
        """The statistics with class ``k`` moved to class ``positions[k]`` of ``n_classes``
        (the others empty): statistics of shards that saw different labels, laid out over
        their union before a merge."""
        return self._by_slot("align_classes", stats, positions, n_classes)

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
