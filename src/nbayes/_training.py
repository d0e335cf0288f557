"""The training driver: set-up → accumulate per batch → merge → one finalize, over any
iterable of batches.

A batch is ``(X, y)`` or ``(X, y, sample_weight)``. The model is set up from the first batch
(as ``partial_fit``'s first call sets it up: columns, families; vocabularies then grow in
mode "learn"), each batch is accumulated into plain statistics and merged into the total,
and the model is finalized once, at the end. Classes are coded in order of appearance while
the batches come (the statistics of a class first seen late grow a zero row for it), then
given their type once and sorted, so that the model equals ``fit`` on all rows whatever the
batching.

Survey passes (bin edges, a text vocabulary) run before, through the estimator protocol
(:class:`nbayes.base.SurveyStep`): :func:`set_up` runs them over data held in memory or
in chunks; the command line fixes their result (bin edges) in the model before training.

``partial_fit`` is one step of the driver on the statistics the model holds (:func:`update`):
the batch is checked as :func:`train` checks each, coded against the declared classes,
accumulated onto the statistics and finalized once; a batch that fails leaves the model as it
was.

A model that learns in several passes (EM) runs each pass through :func:`train`, from
:func:`train_passes`: accumulate every batch (the E-step and its expected counts), merge,
install (the M-step).

Cross-validation counts the statistics of every fold in one pass (:func:`count_folds`, then
:func:`merge_folds` over chunks or partitions), for a model set up already; the model of the
rows outside a fold is the total minus the fold, finalized, never refitted. Callers only say
which fold each row is in (splits, hashed row numbers, a folds column) and how rows are read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import reduce

import numpy as np
from sklearn.utils.validation import _num_samples

from ._labels import ClassCodes, check_labels, check_targets, declared_codes
from ._validation import check_sample_weight, rows_from
from .distributions import Labels
from .exceptions import DataError


def set_up(model, meta, survey: Callable) -> object:
    """Run the model's survey passes (:meth:`survey_step`), then set it up from their
    summary; returns the summary. ``survey(step)`` runs one pass over the data and returns
    the combined summary of that pass (in memory, over chunks, or on a cluster).

    Examples
    --------
    >>> from nbayes import MultinomialNB
    >>> model = MultinomialNB()
    >>> set_up(model, 3, survey=None) is None  # no pass needed
    True
    >>> model.n_features_in_
    3
    """
    summary = None
    while (step := model.survey_step(meta, summary)) is not None:
        summary = step.finish(summary, survey(step))
    model.setup(meta, summary)
    return summary


def train(
    model,
    batches: Iterable,
    *,
    typed: Callable[[np.ndarray], np.ndarray] | None = None,
    finalize: bool = True,
    classes: ClassCodes | None = None,
    ready: bool = False,
):
    """Fit ``model`` on every batch: set up from the first, accumulate each, merge, and
    finalize once. Returns the model.

    Parameters
    ----------
    model : nbayes estimator built from families (the presets, MixedNB, DensityNB and the
        semi-naive models), or a SemiSupervisedNB in a pass of :func:`train_passes`
        Its previous fitted state is discarded (unless ``ready``).
    batches : iterable of (X, y) or (X, y, sample_weight)
        Read once. Errors name rows counted over all batches.
    typed : callable, optional
        Maps the labels (an object array, in order of appearance) to their final type; called
        once, after the last batch (see :meth:`ClassCodes.order`).
    finalize : bool, default=True
        False: hold the statistics only (``install(..., finalize=False)``), for a caller that
        finalizes other parameters of them (cross-validation of ``alpha``).
    classes : ClassCodes, optional
        Where the labels are coded (a caller that codes more rows later reads it); a new
        one by default.
    ready : bool, default=False
        The model is set up already (:func:`set_up`, or an earlier pass of
        :func:`train_passes`): the first batch does not set it up again.

    Returns
    -------
    model
        Fitted on all batches.

    Raises
    ------
    DataError
        No batch; a batch whose labels and rows differ in number, with a missing label or
        a negative or non-finite weight; weights all zero; or any data error of the model
        (naming its row).
    ValueError
        Labels that are not classes (continuous values), as scikit-learn refuses them.

    Examples
    --------
    >>> from nbayes import MultinomialNB
    >>> batches = [([[2, 0], [1, 1]], ["b", "b"]), ([[0, 3]], ["a"])]
    >>> model = train(MultinomialNB(), batches)
    >>> model.classes_.tolist(), model.class_count_.tolist()
    (['a', 'b'], [1.0, 2.0])
    """
    classes = ClassCodes() if classes is None else classes
    stats, rows, weighted = None, 0, False
    for batch in batches:
        X, y, weights = (*batch, None)[:3]
        with rows_from(rows):
            if stats is None and not ready:
                model.setup_from(X)
            y = check_labels(y, _num_samples(X))
            classes.check(y)
            # One batch may hold only zero-weight rows; all of them together may not.
            weights = check_sample_weight(weights, y.shape[0], allow_all_zero=True)
            weighted = weighted or bool(weights.any())
            known = len(classes)
            codes = classes.add(y)
            part = model.accumulate(X, Labels(codes, weights, len(classes)), mode="learn")
            if stats is not None:
                if len(classes) > known:
                    stats = model.align_statistics(stats, np.arange(known), len(classes))
                part = model.merge_statistics(stats, part)
        stats, rows = part, rows + codes.size
    if stats is None:
        raise DataError("No batch of rows to train on; pass at least one (X, y) pair.")
    if rows and not weighted:
        check_sample_weight(np.zeros(rows), rows)  # raises fit's error for all-zero weights
    return _install(model, classes, stats, typed, finalize)


def update(model, X, y, weights, classes: np.ndarray):
    """One step of the driver on the statistics ``model`` holds (``partial_fit``): check the
    batch as :func:`train` checks each, code its labels against ``classes``, then learn it
    onto the statistics and finalize once. Returns the model.

    The model learns the batch through its hook ``_learn_onto(X, classes, labels, n_added)``
    (the families' models add a batch at the cost of the batch, not of the table: see
    :func:`nbayes._engine.accumulate_onto`). A batch that fails (a bad value, statistics
    that cannot be finalized) leaves the model as it was: its attributes and the
    vocabularies its encoding grows are put back.

    Parameters
    ----------
    model : nbayes estimator built from families, or a semi-naive model
        Set up (its first batch validated with ``reset=True``), fitted or not.
    X : batch of rows, validated by the model
    y : array-like of shape (n_samples,)
    weights : array-like of shape (n_samples,) or None
        Sample weights; all zero is refused (the batch is a ``partial_fit`` call).
    classes : ndarray
        The model's classes after this batch (:func:`nbayes._labels.declare_classes`): its
        ``classes_``, then any added ones.

    Returns
    -------
    model
        Fitted on its earlier batches and this one.

    Raises
    ------
    DataError
        Labels and rows that differ in number, a missing label, a negative or non-finite
        weight, weights all zero, or any data error of the model (naming its row).
    UnknownLabelError
        A label that is not among ``classes``.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import MultinomialNB
    >>> model = MultinomialNB()
    >>> model.setup_from([[2, 0], [1, 1]])
    >>> model = update(model, np.array([[2, 0], [1, 1]]), ["a", "a"], None, np.array(["a", "b"]))
    >>> update(model, np.array([[0, 3]]), ["b"], None, model.classes_).class_count_.tolist()
    [2.0, 1.0]
    """
    y = check_labels(y, _num_samples(X))
    check_targets(y, batch=True, declared=True)
    weights = check_sample_weight(weights, y.shape[0])
    labels = Labels(declared_codes(y, classes), weights, classes.size)
    known = getattr(model, "classes_", None)
    n_added = 0 if known is None else classes.size - known.size
    state, vocabulary = dict(model.__dict__), model._vocabulary_snapshot()
    try:
        model._learn_onto(X, classes, labels, n_added)
    except BaseException:
        model.__dict__.clear()
        model.__dict__.update(state)
        model._restore_vocabulary(vocabulary)
        raise
    return model


def train_passes(model, batches: Callable[[], Iterable], classes: ClassCodes, typed=None):
    """Fit a model that learns in several passes over the same batches (EM,
    :class:`nbayes.SemiSupervisedNB`), set up already: while ``model.needs_pass()``, one
    :func:`train` pass over ``batches()`` -- accumulate every batch, merge, and
    ``install`` the merged statistics (the model plans its next pass there). Returns the
    model.

    ``classes`` codes every pass's labels (the classes are known before the first); the
    first pass types them with ``typed`` (see :func:`train`) and sorts them, once.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import MultinomialNB, SemiSupervisedNB
    >>> from nbayes.estimators._semisupervised_labels import KnownClasses
    >>> X, y = np.array([[5, 0], [4, 1], [0, 5], [1, 4]]), np.array([0, -1, 1, -1])
    >>> em = SemiSupervisedNB(MultinomialNB())
    >>> em.begin(np.array([0, 1]))
    >>> set_up(em, 2, survey=None)
    >>> batches = lambda: [(X[:2], y[:2]), (X[2:], y[2:])]
    >>> train_passes(em, batches, KnownClasses(np.array([0, 1]))).predict(X).tolist()
    [0, 0, 1, 1]
    """
    while model.needs_pass():
        train(model, batches(), typed=typed, classes=classes, ready=True)
    return model


def count_folds(model, pieces: Iterable, n_folds: int, n_classes: int) -> list:
    """The statistics of each fold's rows among ``pieces``, counted by ``model`` (set up
    already): a list of ``n_folds`` statistics dicts, None for a fold without rows.

    Parameters
    ----------
    model : nbayes estimator, set up
    pieces : iterable of (fold, X, codes, weights)
        Rows of fold ``fold`` (0 .. n_folds - 1), their class codes (0 .. n_classes - 1) and
        sample weights. Several pieces of one fold are merged.
    n_folds, n_classes : int
        The number of folds, and of classes the codes refer to.

    Returns
    -------
    list of dict or None
        Per fold, the statistics of its rows (mode "count": a vocabulary does not grow).

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import MultinomialNB
    >>> model = MultinomialNB()
    >>> model.setup(2)
    >>> ones = np.ones(1)
    >>> pieces = [(0, [[2, 0]], [0], ones), (1, [[0, 3]], [1], ones), (0, [[1, 1]], [0], ones)]
    >>> [s is None for s in count_folds(model, pieces, 3, 2)]
    [False, False, True]
    """
    counted: list = [None] * n_folds
    for k, X, codes, weights in pieces:
        stats = model.accumulate(X, Labels(codes, weights, n_classes), mode="count")
        counted[k] = stats if counted[k] is None else model.merge_statistics(counted[k], stats)
    return counted


def merge_folds(model, *counted: list) -> list:
    """Fold-by-fold merge of lists of :func:`count_folds` (of chunks, or of partitions):
    per fold, the merge of the statistics present, None where no list has the fold.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import MultinomialNB
    >>> model = MultinomialNB()
    >>> model.setup(1)
    >>> first = count_folds(model, [(0, [[2]], [0], np.ones(1))], 2, 1)
    >>> second = count_folds(model, [(0, [[3]], [0], np.ones(1))], 2, 1)
    >>> merged = merge_folds(model, first, second)
    >>> model.install(np.array(["a"]), merged[0]).feature_count_.tolist(), merged[1]
    ([[5.0]], None)
    """
    merged = []
    for fold in zip(*counted):  # bounded by the number of folds
        present = [s for s in fold if s is not None]
        merged.append(reduce(model.merge_statistics, present) if present else None)
    return merged


def install(model, labels, stats: dict, typed=None, finalize: bool = True):
    """Install ``stats``, whose class axis follows ``labels``, with the labels typed by
    ``typed`` and sorted (the statistics laid out to match); finalize once. Returns the
    model. For statistics gathered elsewhere (``nbayes.dask``) as :func:`train` gathers
    them.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import MultinomialNB
    >>> from nbayes.distributions import Labels
    >>> model = MultinomialNB()
    >>> model.setup(1)
    >>> stats = model.accumulate([[1], [2]], Labels([0, 1], [1.0, 1.0], 2))
    >>> install(model, ["10", "2"], stats, lambda labels: labels.astype(int)).classes_.tolist()
    [2, 10]
    """
    return _install(model, ClassCodes(np.asarray(labels)), stats, typed, finalize)


def _install(model, classes: ClassCodes, stats: dict, typed, finalize: bool):
    labels, positions = classes.order(typed)
    return model.install(
        labels, model.align_statistics(stats, positions, labels.size), finalize=finalize
    )
