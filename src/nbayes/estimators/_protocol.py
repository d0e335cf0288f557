"""The estimator protocol: everything that code outside an estimator may use of it.

Naive Bayes learns additive statistics, so every capability beyond ``fit`` and ``predict`` --
distributed fits (:mod:`nbayes.dask`), :func:`nbayes.merge`, ``unlearn``, model files
(:mod:`nbayes.io`), the command line -- is written against the few operations below. An
estimator that implements them gets all of those for free; nothing outside the estimator's
own module touches its private attributes (a test scans for it).

The life of a model, as the protocol sees it::

    est.survey_step(meta, summary)   # a pass over the data needed before counting? (rarely)
    est.setup(meta, summary)         # columns, families, vocabularies: ready to count
    stats = est.accumulate(X, labels, mode="count")    # one batch -> plain statistics
    stats = est.merge_statistics(stats, more)           # associative, commutative
    stats = est.subtract_statistics(stats, fewer)       # exact removal of rows
    est.install(classes, stats)      # the fitted model of these statistics (finalized)
    est.predict_joint_log_proba(X)   # score a batch
    est.get_state() / est.set_state(state)             # plain data, for model files

Statistics are plain data: ``{"class_count": ndarray (n_classes,), "groups": [dict of
ndarrays, one per column group]}``, class axis first. They are what travels between Dask
workers, what model files store and what ``merge`` adds up.

Modes
-----
Where a batch is turned into numbers (category codes, word counts), what happens to a value
the model has never seen depends on why the batch is read. The mode is passed as an argument,
never kept on the instance:

* ``"learn"`` -- ``fit`` / ``partial_fit``: vocabularies grow to take new values.
* ``"count"`` -- a batch counted against a fixed set-up (a Dask partition after the survey):
  a value outside the vocabulary is an error.
* ``"unlearn"`` -- rows to be removed: a value never learned cannot have been learned, so it
  is an error that says so.
* ``"score"`` -- prediction: the estimator's ``unseen`` policy applies.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from ..distributions import Labels

Mode = Literal["learn", "count", "unlearn", "score"]
#: Every mode, in the order of the module docstring.
MODES: tuple[str, ...] = ("learn", "count", "unlearn", "score")


@dataclass(frozen=True)
class SurveyStep:
    """One pass over all the data that an estimator needs before it can count anything.

    A distributed fit runs ``summarize`` on every partition (restricted to ``columns``), adds
    the results up with ``combine`` in a tree, and hands the total to
    :meth:`EstimatorProtocol.survey_step` again (which may ask for another pass) and finally
    to :meth:`EstimatorProtocol.setup`. Both callables must be picklable (module-level
    functions or ``functools.partial`` of them): they run on the workers.

    Attributes
    ----------
    columns : list or None
        Columns of a table the pass reads; None reads every column.
    summarize : callable
        ``summarize(part) -> summary`` of one partition (a DataFrame).
    combine : callable
        ``combine(*summaries) -> summary``; associative, so any tree of calls gives the same.
    absorb : callable, optional
        ``absorb(previous, summary) -> summary``: joins this pass's result to the summary of
        the passes before it (``previous`` is None on the first pass). By default the new
        summary replaces the old.
    labels : bool, default=False
        The pass needs the labels: ``summarize(part, y, sample_weight)`` gets the
        partition's labels (an array) and weights (an array, or None for unit weights).
        The semi-naive models' bin edges depend on the classes (supervised binning).
    """

    columns: list | None
    summarize: Callable[..., Any]
    combine: Callable[..., Any]
    absorb: Callable[[Any, Any], Any] | None = None
    labels: bool = False

    def finish(self, previous, summary):
        """The summary after this pass: ``absorb(previous, summary)``, or ``summary``."""
        return summary if self.absorb is None else self.absorb(previous, summary)


def check_mode(mode: str) -> str:
    """Return ``mode`` if it is one of :data:`MODES`; raise ValueError otherwise."""
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}; got {mode!r}.")
    return mode


class EstimatorProtocol(ABC):
    """What an nbayes estimator offers to the code around it (Dask, merge, files, CLI).

    Implement the abstract methods and the estimator can be fitted on Dask, merged, unlearned,
    saved and loaded, and used from the command line. ``BaseNB`` implements all of them for
    estimators built from families over column groups; a new model beyond the naive assumption
    (AODE, TAN, KDB) implements them over its own statistics (pairwise counts are as additive
    as per-feature counts).
    """

    # -- set-up ---------------------------------------------------------------------------------
    def survey_step(self, meta, summary=None) -> SurveyStep | None:
        """The next pass over the data needed before :meth:`setup`, or None when none is.

        Most estimators need none: their columns and families follow from ``meta``. MixedNB
        needs the distinct values of its categorical columns (to number categories as ``fit``
        on all rows would); TextNB with a CountVectorizer needs word counts (its vocabulary).

        Parameters
        ----------
        meta : DataFrame with no rows, or int
            The data's columns and dtypes (a table), or its number of columns (an array).
        summary : object, optional
            What the passes so far found (None before the first pass).
        """
        return None

    @abstractmethod
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
        """

    # -- statistics -----------------------------------------------------------------------------
    @abstractmethod
    def accumulate(self, X, labels: Labels, *, mode: Mode = "count") -> dict:
        """Statistics of one batch: validate ``X`` and count it (the map step of a fit).

        Parameters
        ----------
        X : batch of rows, as the estimator's ``fit`` takes them
        labels : Labels
            Class codes (indices into the classes the statistics are laid out over), sample
            weights and the number of classes.
        mode : {"learn", "count", "unlearn", "score"}, default="count"
            Why the batch is read (see the module docstring); decides what an unseen value
            does.

        Returns
        -------
        dict
            Statistics (see the module docstring), over ``labels.n_classes`` classes.
        """

    @abstractmethod
    def merge_statistics(self, a: dict, b: dict) -> dict:
        """Statistics of the rows of ``a`` and of ``b`` together (pure; same classes)."""

    @abstractmethod
    def subtract_statistics(self, a: dict, b: dict) -> dict:
        """Statistics of the rows of ``a`` without those of ``b``; a DataError when ``b``
        cannot be part of ``a`` (a count would become negative)."""

    def clear_statistics(self, stats: dict) -> dict:
        """``stats`` with every count zero but what describes the columns kept (category
        vocabularies carried in the statistics): the statistics of no rows, in the same
        encoding, so that merging them adds the columns' categories and nothing else."""
        return self.subtract_statistics(stats, stats)

    @abstractmethod
    def align_statistics(self, stats: dict, positions: np.ndarray, n_classes: int) -> dict:
        """``stats`` laid out over ``n_classes`` classes: class ``i`` of ``stats`` goes to
        ``positions[i]``; other classes get zeros."""

    @abstractmethod
    def recode_statistics(self, other) -> dict:
        """The statistics of fitted ``other`` (same kind, same settings) in this model's
        encoding, ready to merge with this model's (vocabularies are extended as needed)."""

    @abstractmethod
    def install(self, classes: np.ndarray, stats: dict):
        """Become the fitted model of ``stats`` over ``classes`` (after :meth:`setup` or on a
        fitted model with the same columns); finalizes. Returns self."""

    @abstractmethod
    def finalize(self) -> None:
        """Derive the parameters (and the published fitted attributes) from the statistics
        now, rather than on first use after ``partial_fit``."""

    # -- other finalizes of the same statistics (model selection) ------------------------------
    def finalize_params(self) -> frozenset[str]:
        """Names of the constructor parameters that only change :meth:`finalize` or scoring
        (smoothing, estimate, class prior, variance floor, decision threshold): models that
        differ in these alone share their statistics. :class:`nbayes.model_selection.GridSearchCV`
        varies these without reading the data again.

        Raises
        ------
        ParameterError
            Where this model's set-up depends on which rows it learned in a way statistics do
            not undo (so a model of part of the rows cannot be made from statistics).
        """
        return frozenset()

    def finalize_with(self, params: dict | None = None, stats: dict | None = None):
        """A new fitted model: this one's set-up with the :meth:`finalize_params` in
        ``params`` changed, over ``stats`` (default: this model's own statistics), finalized.

        Nothing is read again: a candidate of a grid search, or the model of the rows outside
        a cross-validation fold (``stats`` from :meth:`subtract_statistics`), costs one
        finalize. Category values that no row of ``stats`` holds are dropped from the new
        model's vocabularies, as a fit on those rows alone would never have learned them.
        This model is left unchanged.

        Raises
        ------
        ParameterError
            A name in ``params`` that is not in :meth:`finalize_params`.
        """
        raise NotImplementedError(
            f"{type(self).__name__} cannot be finalized with other parameters; refit it."
        )

    # -- scoring --------------------------------------------------------------------------------
    @abstractmethod
    def predict_joint_log_proba(self, X) -> np.ndarray:
        """log P(x, y) of every row and class, shape (n_samples, n_classes)."""

    def log_prior(self) -> float:
        """log p(parameters) of the fitted model under the prior whose mode its estimates are,
        up to a constant (0 where the estimates are maximum likelihood, or the prior is not
        known): with the data's log-likelihood, the objective that EM maximises
        (:class:`nbayes.SemiSupervisedNB`)."""
        return 0.0

    def joint_log_scores(self, X) -> np.ndarray:
        """log P(x, y) up to a term per row that is the same for every class, shape
        (n_samples, n_classes): what posteriors and EM need, without the class-independent
        normalisers (multinomial coefficients cost a log-gamma per stored value). By default
        :meth:`predict_joint_log_proba` itself."""
        return self.predict_joint_log_proba(X)

    def joint_log_scores_of(self, models, X):
        """:meth:`joint_log_scores` of X under each of ``models`` (fitted models made by
        :meth:`finalize_with` of one model over the same statistics), in order: one array
        (n_samples, n_classes) per model. A grid search scores the candidates of a fold with
        it; an estimator may score them all in one pass over X. By default one call each.
        """
        for model in models:  # bounded by the candidates
            yield model.joint_log_scores(X)

    # -- state as plain data ------------------------------------------------------------------
    @abstractmethod
    def get_state(self) -> dict:
        """The fitted state as plain data (numbers, strings, lists, dicts, numpy arrays,
        registered families and unfitted registered estimators), statistics included."""

    @abstractmethod
    def set_state(self, state: dict):
        """Become the fitted model of :meth:`get_state` output; returns self. Raises
        ValueError when the parts do not fit together."""


__all__ = ["MODES", "EstimatorProtocol", "Mode", "SurveyStep", "check_mode"]
