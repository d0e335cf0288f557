"""Per-family SQL terms of a class score, for :func:`nbayes.export.to_sql`.

Each builder writes, for every column of one column group, the difference between each
class's log-likelihood term and class 0's (classes 1..K-1), as sqlglot expressions. Scores
relative to class 0 give the same posterior and halve what a two-class query computes. The
numbers come from the family's own ``log_likelihood_terms`` evaluated at a few points (its
value table, or the slope of a count), so the query scores as the family does; only the
shape of each family's term (a table look-up, affine in a count, a normal density, a binned
density) is written here. A NULL cell is a missing value: its term is 0 where the family
marginalises missing values (``missing="ignore"``) and NULL otherwise, as nbayes raises there.
"""

from __future__ import annotations

import math

import numpy as np
from sqlglot import exp

from ..exceptions import ParameterError


def _not_finite(value: float) -> ParameterError:
    return ParameterError(
        f"A parameter of the model is {value}: a zero probability under estimate='mle' "
        "cannot be written as a finite SQL score. Refit with estimate='posterior_mean' "
        "or a positive alpha before exporting."
    )


def number(value: float) -> exp.Expression:
    """A float literal that reads back as the same double (``repr`` round-trips)."""
    value = float(value)
    if not math.isfinite(value):
        raise _not_finite(value)
    # An exponent makes DuckDB read a double, not a DECIMAL that overflows its scale in
    # products; SQLite reads both alike.
    text = repr(abs(value))
    literal = exp.Literal.number(text if "e" in text else text + "e0")
    return exp.Neg(this=literal) if value < 0 or repr(value) == "-0.0" else literal


def paren(node: exp.Expression) -> exp.Expression:
    """``node`` in parentheses unless it is a column or a literal (sqlglot does not add
    them for trees built by hand)."""
    return node if isinstance(node, (exp.Column, exp.Literal)) else exp.Paren(this=node)


def add(a: exp.Expression, b: exp.Expression) -> exp.Expression:
    return exp.Add(this=paren(a), expression=paren(b))


def sub(a: exp.Expression, b: exp.Expression) -> exp.Expression:
    return exp.Sub(this=paren(a), expression=paren(b))


def mul(a: exp.Expression, b: exp.Expression) -> exp.Expression:
    return exp.Mul(this=paren(a), expression=paren(b))


def total(parts: list[exp.Expression]) -> exp.Expression:
    """Sum as a balanced tree: a model with thousands of columns stays within the parsers'
    expression depth limits (SQLite's is 1000)."""
    if not parts:
        return number(0.0)
    while len(parts) > 1:
        parts = [
            add(*parts[i : i + 2]) if i + 1 < len(parts) else parts[i]
            for i in range(0, len(parts), 2)
        ]
    return parts[0]


def case(whens: list[tuple[exp.Expression, exp.Expression]], default) -> exp.Expression:
    node = exp.Case()
    for cond, then in whens:
        node = node.when(cond, then, copy=False)
    return node.else_(default, copy=False) if default is not None else node


def as_double(column: exp.Expression) -> exp.Expression:
    """The column as a float: booleans (DuckDB compares them with no number) and integers
    read as nbayes reads them."""
    return exp.cast(column, exp.DataType.build("DOUBLE"))


def is_null(node: exp.Expression) -> exp.Expression:
    return exp.Is(this=paren(node.copy()), expression=exp.Null())


def missing_term(family) -> exp.Expression:
    """The term of a NULL cell: 0 where the family marginalises missing values."""
    return number(0.0) if getattr(family, "missing", "error") == "ignore" else exp.Null()


def relative(terms: np.ndarray) -> np.ndarray:
    """Terms (..., K, ...) on the class axis 1 made relative to class 0, classes 1..K-1.
    A term that is not finite is refused before the subtraction (``-inf - -inf`` would
    add numpy's warning to the refusal)."""
    bad = terms[~np.isfinite(terms)]
    if bad.size:
        raise _not_finite(bad[0])
    return terms[:, 1:] - terms[:, :1]


def _lookup(column, family, pairs, values, k: int, default) -> exp.Expression:
    """CASE over (condition, value table) pairs of one column for class k (relative)."""
    whens: list[tuple[exp.Expression, exp.Expression]] = [(is_null(column), missing_term(family))]
    whens += [(cond, number(v[k])) for cond, v in zip(pairs, values)]
    return case(whens, default)


def bernoulli(family, params, columns, categories) -> list[list[exp.Expression]]:
    """A 0/1 table look-up: a value above ``binarize`` is a one, as the family reads it;
    without ``binarize`` a value other than 0 and 1 gives NULL (nbayes raises)."""
    columns = [as_double(c) for c in columns]
    d = len(columns)
    t = relative(family.log_likelihood_terms(params, np.array([[0.0] * d, [1.0] * d])))
    out = []
    conds: list[exp.Expression]
    defaults: list[exp.Expression]
    for j, col in enumerate(columns):  # bounded by the columns of the group
        if family.binarize is None:
            one = exp.EQ(this=col.copy(), expression=number(1.0))
            zero = exp.EQ(this=col.copy(), expression=number(0.0))
            conds, rows = [one, zero], [t[1, :, j], t[0, :, j]]
            defaults = [exp.Null()] * t.shape[1]
        else:
            conds = [exp.GT(this=col.copy(), expression=number(family.binarize))]
            rows, defaults = [t[1, :, j]], [number(v) for v in t[0, :, j]]
        out.append([_lookup(col, family, conds, rows, k, defaults[k]) for k in range(t.shape[1])])
    return out


def counts(family, params, columns, categories) -> list[list[exp.Expression]]:
    """Multinomial, Complement and Poisson terms are affine in the count up to a term the
    classes share (a factorial), which cancels in the posterior: ``slope * x + offset``."""
    columns = [as_double(c) for c in columns]
    d = len(columns)
    t = relative(family.log_likelihood_terms(params, np.array([[0.0] * d, [1.0] * d])))
    slope, offset = t[1] - t[0], t[0]
    out = []
    for j, col in enumerate(columns):  # bounded by the columns of the group
        terms = []
        for k in range(slope.shape[0]):  # bounded by the classes
            term = add(mul(number(slope[k, j]), col.copy()), number(offset[k, j]))
            if family.missing == "ignore":
                term = exp.Coalesce(this=term, expressions=[number(0.0)])
            terms.append(term)
        out.append(terms)
    return out


def normal(family, mean, var, column, j) -> list[exp.Expression]:
    """``c_k - (x - m_k)^2 / (2 v_k)`` of one column, relative to class 0."""
    const = -0.5 * (np.log(2 * np.pi) + np.log(var[:, j]))

    def score(k):
        dev = sub(column.copy(), number(mean[k, j]))
        return add(number(const[k]), mul(number(-0.5 / var[k, j]), mul(dev, dev.copy())))

    terms = []
    for k in range(1, mean.shape[0]):  # bounded by the classes
        term = sub(score(k), score(0))
        if family.missing == "ignore":
            term = exp.Coalesce(this=term, expressions=[number(0.0)])
        terms.append(term)
    return terms


def gaussian(family, params, columns, categories) -> list[list[exp.Expression]]:
    """Normal densities (per-class or shared variances alike: ``params['var']`` holds them),
    or the Student-t posterior predictive of the Bayesian prior."""
    columns = [as_double(c) for c in columns]
    if "dof" in params:
        return [student(family, params, col, j) for j, col in enumerate(columns)]
    return [normal(family, params["mean"], params["var"], col, j) for j, col in enumerate(columns)]


def student(family, params, column, j) -> list[exp.Expression]:
    """``c_k - (nu_k + 1) / 2 * ln(1 + (x - m_k)^2 / (nu_k s2_k))`` relative to class 0; the
    constant c_k is the family's term at the mode, x = m_k."""
    mean = params["mean"]
    nu = np.broadcast_to(params["dof"], mean.shape)
    scale = nu * np.broadcast_to(params["var"], mean.shape)
    at_mode = family.log_likelihood_terms(params, mean)  # row k: every column at class k's mode
    const = at_mode[np.arange(mean.shape[0]), np.arange(mean.shape[0])]

    def score(k):
        dev = sub(column.copy(), number(mean[k, j]))
        ratio = mul(number(1.0 / scale[k, j]), mul(dev, dev.copy()))
        log = exp.Ln(this=add(number(1.0), ratio))
        return add(number(const[k, j]), mul(number(-(nu[k, j] + 1) / 2), log))

    terms = []
    for k in range(1, mean.shape[0]):  # bounded by the classes
        term = sub(score(k), score(0))
        if family.missing == "ignore":
            term = exp.Coalesce(this=term, expressions=[number(0.0)])
        terms.append(term)
    return terms


def density(family, params, columns, categories) -> list[list[exp.Expression]]:
    """DensityNB columns read as a normal density or as intervals of the binned grid (a
    value reads the interval of its bin; values beyond the grid read the end bins)."""
    out = []
    names = [c.name for c in columns]
    columns = [as_double(c) for c in columns]
    readings = family.column_readings(params)
    for j, col in enumerate(columns):  # bounded by the columns of the group
        reading = family.reading if readings is None else readings[j]
        if reading == "gaussian":
            out.append(normal(family, params["mean"], params["var"], col, j))
        elif reading == "binned":
            out.append(_binned(family, params, col, j))
        else:
            raise ParameterError(
                f"Column {names[j]!r} is read as a kernel density, a sum over every grid bin "
                "per row that this export does not write; fit DensityNB(density='binned') "
                "(or 'gaussian') to export it."
            )
    return out


def _binned(family, params, column, j) -> list[exp.Expression]:
    width = math.ldexp(1.0, int(params["level"][j]))
    start = float(params["start"][j])
    n_bins = family.ready(params)["bin_log"].shape[2]
    # The value of each bin, read back through the family at the bin's centre.
    centres = (start + np.arange(n_bins) + 0.5) * width
    grid = np.tile(params["mean"][0], (n_bins, 1))
    grid[:, j] = centres
    t = relative(family.log_likelihood_terms(params, grid))[:, :, j]  # (bins, K-1)
    # Runs of bins with one value for every class become one WHEN x < upper edge.
    change = np.flatnonzero(np.any(np.diff(t, axis=0) != 0, axis=1)) + 1
    firsts = np.concatenate([[0], change])
    uppers = [(start + b) * width for b in change]  # exact: powers of two and integers
    out = []
    for k in range(t.shape[1]):  # bounded by the classes
        whens: list[tuple[exp.Expression, exp.Expression]] = [
            (is_null(column), missing_term(family))
        ]
        whens += [
            (exp.LT(this=column.copy(), expression=number(u)), number(t[f, k]))
            for u, f in zip(uppers, firsts[:-1])
        ]
        out.append(case(whens, number(t[firsts[-1], k])))
    return out


def categorical(family, params, columns, categories) -> list[list[exp.Expression]]:
    """A look-up of each column's categories (strings compared as strings, codes as
    numbers); any other value is unseen and scored by the family's ``unseen`` policy."""
    n_cat = np.asarray(params["n_categories"], dtype=np.int64)
    d = len(columns)
    rows = int(n_cat.max()) + 1
    # Row c holds code c (the last row one past each column's categories: unseen).
    codes = np.minimum(np.arange(rows)[:, None], n_cat[None, :])
    try:
        t = relative(family.log_likelihood_terms(params, codes))
        unseen = [[number(t[int(n_cat[j]), k, j]) for k in range(t.shape[1])] for j in range(d)]
    except ValueError:  # unseen="error": nbayes refuses the row, the query gives NULL
        t = relative(family.log_likelihood_terms(params, np.minimum(codes, n_cat - 1)))
        unseen = [[exp.Null()] * t.shape[1] for _ in range(d)]
    out = []
    for j, col in enumerate(columns):  # bounded by the columns of the group
        values = range(int(n_cat[j])) if categories[j] is None else categories[j]
        conds = [exp.EQ(this=col.copy(), expression=literal(v)) for v in values]
        table = t[: int(n_cat[j]), :, j]
        out.append([_lookup(col, family, conds, table, k, unseen[j][k]) for k in range(t.shape[1])])
    return out


def literal(value) -> exp.Expression:
    """A category or class label as a literal of its own type (strings stay strings)."""
    value = value.item() if isinstance(value, np.generic) else value
    if isinstance(value, bool):
        return exp.Boolean(this=value)
    if isinstance(value, (int, float)):
        return number(value) if isinstance(value, float) else exp.Literal.number(str(value))
    return exp.Literal.string(str(value))


#: Family name -> builder of its per-column relative terms.
BUILDERS = {
    "bernoulli": bernoulli,
    "categorical": categorical,
    "multinomial": counts,
    "complement": counts,
    "poisson": counts,
    "gaussian": gaussian,
    "density": density,
    "binned": density,
}

#: Why a family has no SQL form, for the ones that have none.
REFUSED = {
    "kde": "a kernel density sums a kernel over every grid bin per row",
    "text": "tokenising and counting words of raw text has no portable SQL form",
}
