"""The model protocol: everything that code outside a model may use of it, and the optional
abilities a model declares.

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

Capabilities
------------
What a model can do beyond the protocol it declares in :meth:`EstimatorProtocol.capabilities`,
a set of the names in :data:`CAPABILITIES`; code around the models asks :func:`supports`
(never which class, or which class name, the model is). A test scans the package for
``isinstance`` against a concrete estimator class, or a comparison of class names, outside
that class's own module.

Registering
-----------
One call, :func:`register`, gives a model class model files and (with a ``cli_name``)
``nbayes train --model``; :func:`unregister` undoes it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np

from ._capabilities import (
    CANDIDATE_SCORING,
    CAPABILITIES,
    EXPLANATIONS,
    FEATURE_SUBSETS,
    HOLDS_MODEL,
    INNER_MODEL,
    JOINT_PROBABILITY,
    LINEAR,
    NUMERIC_INPUT,
    SEMI_SUPERVISED,
    TEXT_INPUT,
    WORD_COUNTS,
    capabilities,
    inner_model,
    supports,
)
from ._registry import register, unregister
from .distributions import Labels

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

    The docstrings below are the documentation of every implementation: a subclass's method
    of the same name repeats in its own docstring the sections (Parameters, Returns,
    Examples, ...) that it does not change, so that each reads complete where it is written.

    Examples
    --------
    >>> from nbayes import MultinomialNB
    >>> from nbayes.base import EstimatorProtocol
    >>> isinstance(MultinomialNB(), EstimatorProtocol)
    True
    """

    def capabilities(self) -> frozenset[str]:
        """What this model can do beyond the protocol: names from :data:`CAPABILITIES`.

        Consumers ask :func:`supports` rather than which class a model is. A wrapper's
        capabilities may follow its parts (TextNB's explanations are its classifier's).

        Returns
        -------
        frozenset of str
            The capabilities declared (none by default).

        Examples
        --------
        >>> from nbayes import GaussianNB
        >>> sorted(GaussianNB().capabilities())[:3]
        ['candidate_scoring', 'explanations', 'feature_subsets']
        """
        return frozenset()

    # -- set-up ---------------------------------------------------------------------------------
    def survey_step(self, meta, summary=None) -> SurveyStep | None:
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
        >>> from nbayes import MixedNB, MultinomialNB
        >>> MultinomialNB().survey_step(3) is None
        True
        >>> meta = pd.DataFrame({"city": pd.Series(dtype=object), "t": pd.Series(dtype=float)})
        >>> MixedNB().survey_step(meta).columns
        ['city', 't']
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

    # -- statistics -----------------------------------------------------------------------------
    @abstractmethod
    def accumulate(self, X, labels: Labels, *, mode: Mode = "count") -> dict:
        """Statistics of one batch: validate ``X`` and count it (the map step of a fit).

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

    @abstractmethod
    def merge_statistics(self, a: dict, b: dict) -> dict:
        """Statistics of the rows of ``a`` and of ``b`` together (pure; same classes).

        Associative and commutative, so partial statistics (chunks, Dask partitions, models
        fitted apart) can be merged in any order or tree.

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

    @abstractmethod
    def subtract_statistics(self, a: dict, b: dict) -> dict:
        """Statistics of the rows of ``a`` without those of ``b``: the exact inverse of
        :meth:`merge_statistics` (unlearning, the training part of a cross-validation fold).

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

    def clear_statistics(self, stats: dict) -> dict:
        """``stats`` with every count zero but what describes the columns kept (category
        vocabularies carried in the statistics): the statistics of no rows, in the same
        encoding, so that merging them adds the columns' categories and nothing else.

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
        return self.subtract_statistics(stats, stats)

    def scale_statistics(self, stats: dict, factor: float) -> dict:
        """``stats`` with every row's weight multiplied by ``factor`` >= 0: the statistics the
        same rows would give with their sample weights times ``factor`` (sums scale, averages
        stay). EM uses it to weigh the unlabeled rows by lambda after counting them once.

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
        raise NotImplementedError(f"{type(self).__name__} cannot scale its statistics.")

    @abstractmethod
    def align_statistics(self, stats: dict, positions: np.ndarray, n_classes: int) -> dict:
        """``stats`` laid out over ``n_classes`` classes: class ``i`` of ``stats`` goes to
        ``positions[i]``; other classes get zeros (merging models that know different
        classes).

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

    @abstractmethod
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
        >>> a = CategoricalNB().fit([["red"], ["blue"]], [0, 1])
        >>> b = CategoricalNB().fit([["green"]], [0])
        >>> a.recode_statistics(b)["groups"][0]["n_counts"].tolist()  # blue, red, green
        [[0.0, 0.0, 1.0]]
        """

    @abstractmethod
    def install(self, classes: np.ndarray, stats: dict, *, finalize: bool = True):
        """Become the fitted model of ``stats`` over ``classes`` (after :meth:`setup` or on a
        fitted model with the same columns); finalizes.

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

    @abstractmethod
    def finalize(self) -> None:
        """Derive the parameters (and the published fitted attributes) from the statistics
        now. ``fit``, every ``partial_fit`` and :meth:`install` do; a model installed with
        ``finalize=False`` needs this call before it scores.

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

    # -- other finalizes of the same statistics (model selection) ------------------------------
    def finalize_params(self) -> frozenset[str]:
        """Names of the constructor parameters that only change :meth:`finalize` or scoring
        (smoothing, estimate, class prior, variance floor, decision threshold): models that
        differ in these alone share their statistics. :class:`nbayes.model_selection.GridSearchCV`
        varies these without reading the data again.

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
        return frozenset()

    def finalize_with(self, params: dict | None = None, stats: dict | None = None):
        """A new fitted model: this one's set-up with the :meth:`finalize_params` in
        ``params`` changed, over ``stats`` (default: this model's own statistics), finalized.

        Nothing is read again: a candidate of a grid search, or the model of the rows outside
        a cross-validation fold (``stats`` from :meth:`subtract_statistics`), costs one
        finalize. Category values that no row of ``stats`` holds are dropped from the new
        model's vocabularies, as a fit on those rows alone would never have learned them.
        This model is left unchanged.

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
            A new fitted estimator of the same class; ``get_params()`` shows ``params``.

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
        raise NotImplementedError(
            f"{type(self).__name__} cannot be finalized with other parameters; refit it."
        )

    # -- scoring --------------------------------------------------------------------------------
    @abstractmethod
    def predict_joint_log_proba(self, X) -> np.ndarray:
        """Joint log-probability log P(x, y) of every class, for each sample.

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

    def log_prior(self) -> float:
        """log p(parameters) of the fitted model under the prior whose mode its estimates are,
        up to a constant (0 where the estimates are maximum likelihood, or the prior is not
        known): with the data's log-likelihood, the objective that EM maximises
        (:class:`nbayes.SemiSupervisedNB`).

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
        return 0.0

    def joint_log_scores(self, X) -> np.ndarray:
        """log P(x, y) up to a term per row that is the same for every class: what posteriors
        and EM need, without the class-independent normalisers (multinomial coefficients
        cost a log-gamma per stored value). By default :meth:`predict_joint_log_proba`
        itself.

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
        return self.predict_joint_log_proba(X)

    def joint_log_scores_of(self, models, X):
        """:meth:`joint_log_scores` of X under each of ``models``, in order.

        A grid search scores the candidates of a fold with it; an estimator may score them
        all in one pass over X. By default one call each.

        Parameters
        ----------
        models : iterable of estimators
            Fitted models made by :meth:`finalize_with` of one model over the same
            statistics (the candidates of a grid search on one fold).
        X : batch of rows, as the estimator's ``fit`` takes them
            The samples to score.

        Yields
        ------
        ndarray of shape (n_samples, n_classes)
            One per model, in the order of ``models``.

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
        for model in models:  # bounded by the candidates
            yield model.joint_log_scores(X)

    def joint_log_scores_with(self, params_list, stats: dict, X):
        """:meth:`joint_log_scores` of X under ``finalize_with(params, stats)`` for each
        ``params`` of ``params_list`` (the candidates of a grid search on one fold), in
        order: one array (n_samples, n_classes) each. An estimator may finalize and score
        them all at once without making the models. By default through
        :meth:`finalize_with` and :meth:`joint_log_scores_of`.

        Parameters
        ----------
        params_list : list of dict
            Finalize-time parameters of each candidate (see :meth:`finalize_params`).
        stats : dict
            Statistics over this model's classes, e.g. the rows outside a fold.
        X : batch of rows
            The held-out rows, as the estimator's ``predict`` takes them.

        Yields
        ------
        ndarray of shape (n_samples, n_classes), one per candidate

        Examples
        --------
        >>> import numpy as np
        >>> from nbayes import MultinomialNB
        >>> model = MultinomialNB().fit(np.array([[3, 0], [2, 1], [0, 4]]), [0, 0, 1])
        >>> scores = list(model.joint_log_scores_with([{"alpha": 0.5}], model.stats_, [[1, 1]]))
        >>> want = model.finalize_with({"alpha": 0.5}).joint_log_scores([[1, 1]])
        >>> bool(np.allclose(scores[0], want))
        True
        """
        models = [self.finalize_with(params, stats) for params in params_list]
        yield from self.joint_log_scores_of(models, X)

    # -- state as plain data ------------------------------------------------------------------
    @abstractmethod
    def get_state(self) -> dict:
        """The fitted state as plain data (numbers, strings, lists, dicts, numpy arrays,
        registered families and unfitted registered estimators), statistics included: what
        model files (:func:`nbayes.save`) store.

        Returns
        -------
        dict
            The state; :meth:`set_state` of it gives back a model that predicts identically,
            keeps learning and can be merged.

        Examples
        --------
        >>> from nbayes import MultinomialNB
        >>> state = MultinomialNB().fit([[1, 0], [0, 2]], ["a", "b"]).get_state()
        >>> MultinomialNB().set_state(state).predict([[3, 0]]).tolist()
        ['a']
        """

    @abstractmethod
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


@runtime_checkable
class Model(Protocol):
    """The model protocol as a structural type: what every nbayes model has, whether or not
    it subclasses :class:`EstimatorProtocol` (which implements the optional operations with
    defaults and documents them all). Dask, EM and merge accept any ``Model``.

    Examples
    --------
    >>> from nbayes import MultinomialNB
    >>> from nbayes.base import Model
    >>> isinstance(MultinomialNB(), Model), isinstance(object(), Model)
    (True, False)
    """

    def capabilities(self) -> frozenset[str]: ...

    def survey_step(self, meta, summary=None) -> SurveyStep | None: ...

    def setup(self, meta, summary=None) -> None: ...

    def accumulate(self, X, labels: Labels, *, mode: Mode = "count") -> dict: ...

    def merge_statistics(self, a: dict, b: dict) -> dict: ...

    def subtract_statistics(self, a: dict, b: dict) -> dict: ...

    def install(self, classes: np.ndarray, stats: dict, *, finalize: bool = True): ...

    def finalize(self) -> None: ...

    def predict_joint_log_proba(self, X) -> np.ndarray: ...

    def get_state(self) -> dict: ...

    def set_state(self, state: dict): ...


__all__ = [
    "CANDIDATE_SCORING",
    "CAPABILITIES",
    "EXPLANATIONS",
    "FEATURE_SUBSETS",
    "HOLDS_MODEL",
    "INNER_MODEL",
    "JOINT_PROBABILITY",
    "LINEAR",
    "MODES",
    "NUMERIC_INPUT",
    "SEMI_SUPERVISED",
    "TEXT_INPUT",
    "WORD_COUNTS",
    "EstimatorProtocol",
    "Mode",
    "Model",
    "SurveyStep",
    "capabilities",
    "check_mode",
    "inner_model",
    "register",
    "supports",
    "unregister",
]
