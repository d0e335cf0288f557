"""Pure functions over (class prior, column groups): accumulate, merge, finalize, score.

The estimators hand the engine one matrix per column group ("blocks") and a list of families;
the engine never looks at column names or estimator parameters, which keeps it usable from the
estimators, the Dask layer and model files alike.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import scipy.sparse as sp

from ._accel import kernels
from ._threads import map_chunks, single_threaded_blas
from ._validation import column_label, row_offset, rows_from, show, user_stacklevel
from .distributions import Family, Labels, accumulate_by_class
from .distributions._arrays import compressed_view, row_chunks
from .distributions.statistics import CLASS_COUNT, by_slots
from .exceptions import DataError, ParameterError

ModelStats = dict  # {"class_count": (K,), "groups": [Stats, ...]}


def _row_bytes(blocks: Sequence, per_stored_value: int = 16) -> int:
    """Bytes per row of the float64 temporaries a chunk creates (at least 8 per column).

    Sparse input costs ``per_stored_value`` bytes per stored value. The estimate is low on
    purpose: fitting a chunk makes a dense (n_classes, n_features) table of sums that is then
    merged, and scoring one repeats work on the whole weight table, so sparse chunks must hold
    many values to amortise that; fitting's per-value keys stay within a few budgets.
    """
    total = 0
    for X in blocks:
        if sp.issparse(X):
            total += per_stored_value * max(1, X.nnz // max(X.shape[0], 1)) + 64
        else:
            total += 8 * 4 * X.shape[1]
    return max(total, 8)


def _slice(X, rows: slice):
    """Rows of X without copying them: scipy's row slicing copies a sparse matrix (a pass
    over every stored value per chunk), so CSR chunks are views (only the short indptr is new).
    """
    if rows.start == 0 and rows.stop >= X.shape[0]:
        return X
    if not sp.issparse(X) or X.format != "csr":
        return X[rows]
    first, last = X.indptr[rows.start], X.indptr[rows.stop]
    indptr = (X.indptr[rows.start : rows.stop + 1] - first).astype(X.indices.dtype)
    return compressed_view(
        type(X),
        X.data[first:last],
        X.indices[first:last],
        indptr,
        (rows.stop - rows.start, X.shape[1]),
    )


def prepare(
    families: Sequence[Family], blocks: Sequence, feature_names=None, lazy: bool = False
) -> list:
    """Run each family's domain check and conversion on its block.

    With ``lazy=True`` families may leave checks to :func:`check_results`, which the caller
    must then run on what it computed from the blocks.
    """
    names = feature_names or [None] * len(families)
    return [fam.prepare(X, names[i], lazy=lazy) for i, (fam, X) in enumerate(zip(families, blocks))]


def check_results(
    families: Sequence[Family], blocks: Sequence, results: Sequence, feature_names=None
) -> None:
    """The checks a lazy :func:`prepare` left out, made on each block's statistics or scores."""
    names = feature_names or [None] * len(families)
    for fam, X, result, name in zip(families, blocks, results, names):
        fam.check_result(X, result, name)


def zeros(families: Sequence[Family], n_classes: int, widths: Sequence[int]) -> ModelStats:
    """Identity of :func:`merge` for the given families and block widths."""
    return {
        **CLASS_COUNT.zeros(n_classes, 0),
        "groups": [f.zeros(n_classes, w) for f, w in zip(families, widths)],
    }


def accumulate(
    families: Sequence[Family],
    blocks: Sequence,
    labels: Labels,
    feature_names=None,
    budget: int | None = None,
    check: bool = True,
) -> ModelStats:
    """Statistics of one batch: per-class weight totals plus each group's statistics.

    Rows are processed in chunks whose temporaries fit ``budget`` bytes, and the chunk
    statistics merged, so memory stays bounded whatever the batch size. ``check=False``
    leaves out :func:`check_overflow` for a caller that checks the sum it adds the batch to
    (a pass over every statistic, as long as the batch on sparse input).
    """

    def chunk_stats(rows: slice) -> ModelStats:
        part_labels = labels[rows]
        with rows_from(rows.start):
            part_blocks = prepare(
                families, [_slice(X, rows) for X in blocks], feature_names, lazy=True
            )
            groups = [
                f.accumulate(X, part_labels)
                if f.soft_labels
                else accumulate_by_class(f.accumulate, f.merge, X, part_labels)
                for f, X in zip(families, part_blocks)
            ]
            check_results(families, part_blocks, groups, feature_names)
        return {"class_count": part_labels.class_weight, "groups": groups}

    out = None
    chunks = row_chunks(len(labels), _row_bytes(blocks, per_stored_value=8), budget)
    for stats in map_chunks(chunk_stats, chunks):
        # Merged in chunk order whatever the threads: the same sums as a serial pass.
        out = stats if out is None else merge(families, out, stats)
    if out is None:  # no rows at all
        out = zeros(families, labels.n_classes, [X.shape[1] for X in blocks])
    if check:
        weighted = bool(np.any(labels.weights != 1))
        check_overflow(families, out, blocks, feature_names, weighted=weighted)
    return out


#: partial_fit keeps the categorical counts of at most this many batches apart before it adds
#: them to the statistics (:func:`fold`), and no more cells than the statistics hold.
PENDING_BATCHES = 64


def accumulate_onto(
    families: Sequence[Family],
    stats: ModelStats,
    blocks: Sequence,
    labels: Labels,
    feature_names=None,
    pending: tuple = (),
) -> tuple[ModelStats, tuple]:
    """``(stats, pending)`` with a batch added: ``fold(families, *result)`` equals
    ``merge(fold(families, stats, pending), accumulate(blocks, labels))``, not checked for
    overflow.

    A family that can count a batch apart (``batch_delta``: Categorical) has the batch's
    counts appended to ``pending``, to be added by :func:`fold` with others: on a vocabulary
    that grows batch by batch, adding each batch at once would lay out and copy a table as
    wide as the vocabulary per batch, which costs more than the batch. Other groups are
    merged now. ``pending`` holds one ``(group, delta)`` pair per batch and group, in order.
    """
    names = feature_names or [None] * len(families)
    groups = list(stats["groups"])
    deltas = []
    apart_before = {h for h, _ in pending}
    for g, (fam, X) in enumerate(zip(families, blocks)):  # bounded: one per column group
        batch_delta = getattr(fam, "batch_delta", None)
        # Apart only where the table is larger than the batch (a vocabulary grown batch by
        # batch): on a small table, accumulate's one compiled count and a merge cost less
        # than a delta's passes over the batch. A group once apart stays apart, so its
        # batches are added in order.
        delta = None
        if batch_delta is not None and (
            g in apart_before or _table_cells(groups[g]) > X.shape[0] * X.shape[1]
        ):
            delta = batch_delta(X, labels, names[g])
        if delta is not None:
            deltas.append((g, delta))
    rest = [g for g in range(len(families)) if g not in {h for h, _ in deltas}]
    if rest:
        batch = accumulate(
            [families[g] for g in rest],
            [blocks[g] for g in rest],
            labels,
            [names[g] for g in rest],
            check=False,
        )
        for g, group in zip(rest, batch["groups"]):
            groups[g] = families[g].merge_batch(groups[g], group)
    merged = {"class_count": stats["class_count"] + labels.class_weight, "groups": groups}
    pending = pending + tuple(deltas)
    held = sum(delta["n_counts"].size for _, delta in pending)
    cells = sum(stats["groups"][g]["n_counts"].size for g in {h for h, _ in pending})
    batches = len(pending) // max(len(deltas), 1)
    # Kept apart, the counts must be bounded without looking (see check_overflow).
    total_weight = float(np.sum(merged["class_count"]))
    unbounded = any(not families[g].cannot_overflow(groups[g], total_weight) for g, _ in deltas)
    if pending and (batches > PENDING_BATCHES or held > max(cells, 2**16) or unbounded):
        return fold(families, merged, pending), ()
    return merged, pending


def _table_cells(group: dict) -> int:
    """Number of values in one group's statistics."""
    return sum(v.size for v in group.values() if isinstance(v, np.ndarray))


def fold(families: Sequence[Family], stats: ModelStats, pending: tuple) -> ModelStats:
    """``stats`` with the batch counts of ``pending`` (see :func:`accumulate_onto`) added,
    each group's in batch order; ``stats`` stays untouched."""
    if not pending:
        return stats
    groups = list(stats["groups"])
    for g in sorted({h for h, _ in pending}):  # bounded: one per column group
        groups[g] = families[g].add_deltas(groups[g], [d for h, d in pending if h == g])
    return {**stats, "groups": groups}


def check_overflow(
    families: Sequence[Family],
    stats: ModelStats,
    blocks: Sequence | None = None,
    feature_names=None,
    weighted: bool = True,
) -> None:
    """Finite input must give finite statistics: refuse what overflows float64.

    A model whose sums overflowed would score every row alike and could not be saved, so the
    batch is refused here, naming the column and, when the batch's ``blocks`` are at hand, the
    row of its largest value (the caller's statistics are left as they were).
    """
    if not np.all(np.isfinite(stats["class_count"])):
        raise DataError(
            "The sample weights of a class sum past the float64 range (about 1.8e308). Only "
            "the ratios of sample weights matter: divide them by a large constant."
        )
    names = feature_names or [None] * len(families)
    total_weight = float(np.sum(stats["class_count"]))
    for g, (fam, group) in enumerate(zip(families, stats["groups"])):
        if fam.cannot_overflow(group, total_weight):
            continue
        j = fam.overflowed(group)
        if j is None:
            continue
        where = column_label(j, names[g]) if j >= 0 else f"the {fam.name} columns together"
        largest = "" if blocks is None else _largest(blocks[g], j)
        fix = (
            "Rescale the values (divide by a power of ten, or take a logarithm) or drop the column"
        )
        if weighted:
            fix += ", or use smaller sample weights"
        raise DataError(
            f"{where[0].upper()}{where[1:]}: values too large for the {fam.name} family, whose "
            f"statistics overflow the float64 range (about 1.8e308) because "
            f"{fam.overflow_reason}{largest}. {fix}."
        )


def _largest(X, j: int) -> str:
    """``"; the largest magnitude is 1e+200 at row 5"`` for column ``j`` (all columns: -1)."""
    if sp.issparse(X):
        coo = sp.coo_matrix(X if j < 0 else X[:, [j]])
        values, rows = coo.data, coo.row
    else:
        values = np.asarray(X if j < 0 else X[:, j])
        rows = np.repeat(np.arange(values.shape[0]), values.shape[1]) if j < 0 else None
        values = values.ravel()
    if values.dtype.kind not in "iuf" or values.size == 0:
        return ""
    with np.errstate(invalid="ignore"):
        k = int(np.nanargmax(np.abs(values))) if not np.all(np.isnan(values)) else -1
    if k < 0:
        return ""
    row = k if rows is None else int(rows[k])
    return f"; the largest magnitude is {show(values[k])} at row {row + row_offset()}"


def merge(families: Sequence[Family], a: ModelStats, b: ModelStats) -> ModelStats:
    """Combine statistics of disjoint data; associative and commutative, identity ``zeros``."""
    return {
        **CLASS_COUNT.add(a, b),
        "groups": [f.merge(sa, sb) for f, sa, sb in zip(families, a["groups"], b["groups"])],
    }


def scale(families: Sequence[Family], stats: ModelStats, factor: float) -> ModelStats:
    """``stats`` with every row's weight multiplied by ``factor`` (>= 0)."""
    return {
        **CLASS_COUNT.scale(stats, factor),
        "groups": [f.scale(s, factor) for f, s in zip(families, stats["groups"])],
    }


def subtract(
    families: Sequence[Family], a: ModelStats, b: ModelStats, class_names=None, feature_names=None
) -> ModelStats:
    """Statistics of the data in ``a`` without the data in ``b``: the inverse of :func:`merge`.

    ``merge(subtract(a, b), b)`` equals ``a`` to rounding, and ``subtract(merge(a, b), b)``
    equals ``a``. Counts subtract directly and Gaussian moments with the inverse of the Chan
    update. A statistic that would turn negative (``b`` holds rows that ``a`` never learned)
    raises a DataError naming the class and column; ``class_names`` and ``feature_names`` (one
    list per group, or None) only improve that message.
    """
    names = feature_names or [None] * len(families)
    return {
        **CLASS_COUNT.subtract(a, b, class_names),
        "groups": [
            f.subtract(sa, sb, class_names, n)
            for f, sa, sb, n in zip(families, a["groups"], b["groups"], names)
        ],
    }


def align_classes(
    families: Sequence[Family], stats: ModelStats, positions: np.ndarray, n_classes: int
) -> ModelStats:
    """Move class ``k`` of ``stats`` to class ``positions[k]`` of ``n_classes`` classes.

    Classes that receive nothing are empty. This lets statistics learned over different label
    sets (shards that each saw some classes) be merged once laid out over their union.
    """
    positions = np.asarray(positions, dtype=np.intp)
    if positions.size == n_classes and np.array_equal(positions, np.arange(n_classes)):
        return stats

    groups = [
        fam.align_classes(group, positions, n_classes)
        for fam, group in zip(families, stats["groups"])
    ]
    return {**CLASS_COUNT.align_classes(stats, positions, n_classes), "groups": groups}


def clear(families: Sequence[Family], stats: ModelStats) -> ModelStats:
    """``stats`` with every per-class statistic zero and the metadata (numbers of categories)
    kept: no rows, in the same encoding."""
    return {
        **CLASS_COUNT.clear(stats),
        "groups": [
            by_slots(fam.statistics, "clear", group)
            for fam, group in zip(families, stats["groups"])
        ],
    }


def add_classes(families: Sequence[Family], stats: ModelStats, n_new: int) -> ModelStats:
    """Append ``n_new`` empty classes (for a partial_fit that enlarges ``classes``)."""
    return {
        **CLASS_COUNT.add_classes(stats, n_new),
        "groups": [f.add_classes(s, n_new) for f, s in zip(families, stats["groups"])],
    }


def log_class_prior(
    class_count: np.ndarray,
    class_prior=None,
    fit_prior: bool = True,
    prior_alpha: float = 0.0,
    param: str = "class_prior",
) -> np.ndarray:
    """Log class prior: fixed by the user, fitted (N_k + a) / (N + K a), or uniform.

    ``prior_alpha`` adds hallucinated observations to every class (Dirichlet posterior mean);
    0 gives the MLE N_k / N that scikit-learn uses.
    """
    n_classes = class_count.shape[0]
    if class_prior is not None:
        prior = np.asarray(class_prior, dtype=np.float64)
        if prior.ndim != 1 or prior.shape[0] != n_classes:
            raise ParameterError(
                f"Parameter {param!r} must have one probability per class ({n_classes}); "
                f"got shape {prior.shape}."
            )
        if np.any(prior < 0) or not np.isclose(prior.sum(), 1.0):
            raise ParameterError(
                f"Parameter {param!r} must be non-negative and sum to 1; got sum "
                f"{prior.sum():.6g}. Normalise it: p / p.sum()."
            )
        with np.errstate(divide="ignore"):
            return np.log(prior)
    if not fit_prior:
        return np.full(n_classes, -np.log(n_classes))
    if prior_alpha < 0:
        raise ParameterError(f"Parameter 'prior_alpha' must be >= 0; got {prior_alpha!r}.")
    counts = class_count + prior_alpha
    if not counts.sum() > 0:  # no weight and no pseudo-count: uniform, as log_normalise's 0/0
        return np.full(n_classes, -np.log(n_classes))
    with np.errstate(divide="ignore"):
        return np.log(counts) - np.log(counts.sum())


def finalize(families: Sequence[Family], stats: ModelStats) -> list:
    """Log-space parameters of every group."""
    return [f.finalize(s) for f, s in zip(families, stats["groups"])]


def finalize_onto(
    families: Sequence[Family], params: list, stats: ModelStats, pending: tuple, n_new: int
) -> list | None:
    """:func:`finalize` of ``fold(families, stats, pending)``, given ``params``, those of the
    statistics before the last batch, whose ``n_new`` deltas end ``pending`` (see
    :func:`accumulate_onto`): a group counted apart in that batch is finalized from its
    parameters before (``Family.finalize_onto``), in time proportional to the batch, not to
    the table; the other groups are finalized in full (their statistics are merged already).
    None where some group counted apart cannot (fold ``pending`` and :func:`finalize`)."""
    new = {g for g, _ in pending[len(pending) - n_new :]} if n_new else set()
    out = []
    for g, fam in enumerate(families):  # bounded: one per column group
        if g not in new:
            if any(h == g for h, _ in pending):
                return None  # kept apart before, merged by this batch (a sparse one)
            out.append(fam.finalize(stats["groups"][g]))
            continue
        onto = getattr(fam, "finalize_onto", None)
        group = None
        if onto is not None and g < len(params):
            delta = next(d for h, d in pending[len(pending) - n_new :] if h == g)
            group = onto(params[g], stats["groups"][g], delta)
        if group is None:
            return None
        out.append(group)
    return out


def uses_class_prior(families: Sequence[Family], n_classes: int) -> bool:
    """Whether scores include the class prior (Complement NB's ignore it, as in the paper)."""
    return any(f.uses_class_prior for f in families) or n_classes == 1


def _score_chunks(
    families: Sequence[Family],
    params: Sequence,
    log_prior: np.ndarray,
    blocks: Sequence,
    feature_names,
    normalised: bool,
    budget: int | None,
    out: np.ndarray,
    finish,
):
    """Score ``out`` (n_samples, n_classes) chunk by chunk on the worker threads; yield
    ``finish(rows, jll)`` per chunk, in order, with jll the chunk's log P(x, y) of shape
    (rows, n_classes) for ``finish`` to complete in place and store with :func:`_store`.

    jll is ``out[rows]`` itself, or (when the families score class by class) a class-major
    temporary: reductions over the classes of each row run several times faster in that
    layout than over narrow rows.
    """
    n = blocks[0].shape[0]
    base = log_prior if uses_class_prior(families, log_prior.shape[0]) else 0.0
    params = [fam.ready(p) for fam, p in zip(families, params)]
    row_bytes = _row_bytes(blocks, per_stored_value=4) + 8 * log_prior.shape[0]

    def score(rows: slice):
        # Scoring runs inside the row context too: families name rows of the user's data
        # when they reject a value only the parameters can judge (an unseen category).
        with rows_from(rows.start):
            part = prepare(families, [_slice(X, rows) for X in blocks], feature_names, lazy=True)
            jll = None
            for i, (fam, p, X) in enumerate(zip(families, params, part)):
                name = feature_names and feature_names[i]
                if jll is None and fam.joint_log_likelihood_into(p, X, out[rows], base):
                    jll = out[rows]
                    fam.check_result(X, jll, name)
                else:
                    scores = fam.joint_log_likelihood(p, X)
                    fam.check_result(X, scores, name)
                    if jll is None:
                        class_major = scores.flags.f_contiguous and not scores.flags.c_contiguous
                        jll = scores if class_major else out[rows]
                        np.add(scores, base, out=jll)
                    else:
                        jll += scores
                if normalised:
                    jll += fam.log_normalizer(p, X)[:, None]
        return finish(rows, jll)

    with single_threaded_blas():
        yield from map_chunks(score, row_chunks(n, row_bytes, budget))


def _store(out: np.ndarray, rows: slice, jll: np.ndarray) -> None:
    """Put a finished chunk from :func:`_score_chunks` into ``out`` unless it is there."""
    if jll.base is not out:
        out[rows] = jll


def joint_log_likelihood(
    families: Sequence[Family],
    params: Sequence,
    log_prior: np.ndarray,
    blocks: Sequence,
    feature_names=None,
    normalised: bool = True,
    budget: int | None = None,
) -> np.ndarray:
    """log P(x, y) for every row and class, shape (n_samples, n_classes), in row chunks.

    With ``normalised=False`` the class-independent terms (multinomial coefficient, Poisson
    factorials) are left out: posteriors do not need them.
    """
    out = np.empty((blocks[0].shape[0], log_prior.shape[0]))

    def finish(rows, jll):
        _store(out, rows, jll)

    for _ in _score_chunks(
        families, params, log_prior, blocks, feature_names, normalised, budget, out, finish
    ):
        pass
    return out


def posterior(
    families: Sequence[Family],
    params: Sequence,
    log_prior: np.ndarray,
    blocks: Sequence,
    feature_names=None,
    log: bool = False,
    budget: int | None = None,
) -> np.ndarray:
    """P(y | x) (or its log) for every row and class, shape (n_samples, n_classes).

    Each chunk of joint log-likelihoods is normalised while it is still in cache, so
    prediction makes one (n_samples, n_classes) array. Rows that every class rules out get
    the uniform posterior and one RuntimeWarning, never NaN.
    """
    out = np.empty((blocks[0].shape[0], log_prior.shape[0]))

    def finish(rows, jll) -> int:
        impossible = _normalise_rows(jll, log)
        _store(out, rows, jll)
        return impossible

    impossible = sum(
        _score_chunks(
            families, params, log_prior, blocks, feature_names, False, budget, out, finish
        )
    )
    _warn_impossible(impossible)
    return out


def normalise(jll: np.ndarray, log: bool = False) -> np.ndarray:
    """Joint log-likelihoods (n_samples, n_classes) turned into posteriors (``log``: log
    posteriors) in place, and returned; rows that every class rules out become uniform, with
    one RuntimeWarning that points at the user's line."""
    _warn_impossible(_normalise_rows(jll, log))
    return jll


def _normalise_rows(jll: np.ndarray, log: bool) -> int:
    """Turn joint log-likelihoods into posteriors in place; return the impossible-row count.

    Subtracting the row maximum first makes exp safe (the log-sum-exp trick); probabilities
    need no log and no second exp. The compiled loop does all of it row by row.
    """
    compiled = kernels()
    if compiled is not None and jll.flags.c_contiguous:
        return compiled.normalise_rows(jll, log)
    top = _row_max(jll)
    impossible = ~np.isfinite(top)
    n_impossible = int(impossible.sum())
    if n_impossible:
        jll[impossible] = 0.0  # equal scores: uniform after normalisation
        top[impossible] = 0.0
    jll -= top[:, None]
    if log:
        jll -= np.log(_row_sum(np.exp(jll)))[:, None]
    else:
        np.exp(jll, out=jll)
        jll /= _row_sum(jll)[:, None]
    return n_impossible


def _row_max(a: np.ndarray) -> np.ndarray:
    """Maximum of each row. numpy reduces narrow row-major rows slowly (one inner loop per
    row), so up to a couple of dozen columns are folded together instead; the loop is bounded
    by that count. Class-major rows reduce fast as they are."""
    if a.shape[1] == 0:
        return np.zeros(a.shape[0])
    if a.shape[1] > 24 or not a.flags.c_contiguous:
        return a.max(axis=1)
    top = a[:, 0].copy()
    for k in range(1, a.shape[1]):
        np.maximum(top, a[:, k], out=top)
    return top


def _row_sum(a: np.ndarray) -> np.ndarray:
    """Sum of each row: a matrix-vector product is several times faster than ``sum(axis=1)``
    on the narrow rows of a posterior."""
    return a @ np.ones(a.shape[1])


def _warn_impossible(n_rows: int) -> None:
    if n_rows:
        warnings.warn(
            f"{n_rows} row(s) have probability zero under every class (a zero count with "
            "estimate='mle' or alpha=0); their posterior is set to uniform. Use alpha > 0 to "
            "avoid this.",
            RuntimeWarning,
            stacklevel=user_stacklevel(),
        )


def log_odds(jll: np.ndarray) -> np.ndarray:
    """log P(y=1 | x) / P(y=0 | x) of two classes from joint log-likelihoods, shape (n,).

    A row that both classes rule out (possible with MLE estimates) gets 0 -- the uniform
    posterior of :func:`posterior` -- and a RuntimeWarning, never NaN.
    """
    with np.errstate(invalid="ignore"):
        out = jll[:, 1] - jll[:, 0]
    impossible = np.isnan(out)
    if impossible.any():
        warnings.warn(
            f"{int(impossible.sum())} row(s) have probability zero under both classes (a zero "
            "count with estimate='mle' or alpha=0); their log-odds are set to 0. Use alpha > 0 "
            "to avoid this.",
            RuntimeWarning,
            stacklevel=user_stacklevel(),
        )
        out[impossible] = 0.0
    return out


#: log(1 / eps) of float64, about 36.04: the log-odds beyond which the likelier class's
#: probability is 1 to float64's resolution (1 - p < eps). The two-class
#: ``decision_function`` reports the log-odds as they are inside this bound and clips them to it.
DECISION_BOUND = float(-np.log(np.finfo(np.float64).eps))


def bound_decision(log_odds: np.ndarray) -> np.ndarray:
    """Two-class log-odds as ``decision_function`` reports them: clipped to
    [-DECISION_BOUND, DECISION_BOUND] in place (infinities too), and returned.

    Beyond the bound the probabilities no longer resolve the rows: scikit-learn's naive
    Bayes, whose ``predict_proba[:, 1]`` rounds to exactly 1 there, hands its tools tied
    rows, and so does the clip. Isotonic calibration then pools them as it pools the
    reference's, and a model confidently wrong on a row by hundreds of nats weighs no more
    than one at the bound in the tools that fit a slope to the scores (Platt and temperature
    scaling, a stacked logistic regression).
    """
    return np.clip(log_odds, -DECISION_BOUND, DECISION_BOUND, out=log_odds)
