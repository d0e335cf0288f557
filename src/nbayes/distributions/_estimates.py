"""Estimates the families share: the smoothing parameter checked, the Dirichlet
pseudo-counts of each ``estimate``, normalised logarithms (with the compiled look-up of
small counts), and the search of ``alpha="auto"`` over the evidence.
"""

from __future__ import annotations

import math

import numpy as np

from .._accel import kernels
from ..exceptions import ParameterError

ESTIMATES = ("posterior_mean", "map", "mle")


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
