"""One SQL ``SELECT`` that scores a table as a fitted model does: :func:`to_sql`.

The query adds to every row of the table a column ``prediction`` and one column
``proba_<class>`` per class. Each class's score, relative to class 0's, is the class prior
plus one term per column (:mod:`._sql_terms` writes them per family); the posterior of class
k is ``1 / sum_j exp(r_j - r_k)``, a log-sum-exp that never divides by zero (an exponent
that overflows gives infinity in DuckDB and SQLite, a posterior of 0, and is capped in
dialects whose EXP raises). The tree is built with sqlglot's expression API and written in
the dialect asked for, so quoting and function names are sqlglot's.
"""

from __future__ import annotations

import numpy as np
from sqlglot import exp
from sqlglot.dialects.dialect import Dialect, Dialects

from ..base import HOLDS_MODEL, TEXT_INPUT, supports
from ..estimators._base import log_odds_threshold
from ..exceptions import NotFittedError, ParameterError
from . import _sql_terms as terms
from ._advice import derived_fix, family_fix

#: Beyond this difference of two scores, exp() of it would overflow a double; the class with
#: the lower score then has a posterior below 1e-300 either way.
_EXP_CAP = 700.0
#: Dialects with ``SELECT * EXCLUDE (...)`` (or ``* EXCEPT``): there the class scores are
#: computed once in a subquery; elsewhere each output repeats the expressions it needs.
_STAR_EXCLUDE = frozenset({"duckdb", "bigquery", "snowflake", "databricks"})
#: Dialects whose EXP returns infinity on overflow rather than raising.
_EXP_TO_INFINITY = frozenset({"duckdb", "sqlite"})


def to_sql(model, table: str = "t", dialect: str = "duckdb", threshold: float | None = None) -> str:
    """A ``SELECT`` that adds the model's prediction and class probabilities to a table.

    The query returns every column of ``table`` and then ``prediction`` and one column
    ``proba_<class>`` per class of ``model.classes_``. Columns are matched by the names the
    model was fitted with (``x0``, ``x1``, ... for a model fitted on an array). NULL is a
    missing value, scored as nbayes scores NaN: marginalised where the model ignores missing
    values (``missing="ignore"``), else the row's outputs are NULL (nbayes raises there).
    Categories are compared by value, strings as strings; a value the model has not seen is
    scored by its ``unseen`` policy (NULL outputs under ``unseen="error"``). Numbers are read
    as doubles; a value outside a family's domain (a negative count) is not checked.

    Parameters
    ----------
    model : estimator
        A fitted nbayes model whose columns are scored one at a time by the Bernoulli,
        Categorical, Multinomial, Complement, Poisson, Gaussian or binned-density families
        (presets, MixedNB, DensityNB).
    table : str, default="t"
        The table (or view) to score, as the dialect reads a table name (``schema.table``).
    dialect : str, default="duckdb"
        A sqlglot dialect, in any case: "duckdb", "sqlite", "postgres", "bigquery", ...
    threshold : float, optional
        Log-odds of ``classes_[1]`` above which a two-class prediction is ``classes_[1]``
        (``nbayes train --threshold``); by default the model's own rule, its
        ``decision_threshold`` or else the most probable class.

    Returns
    -------
    str
        One SQL statement.

    Raises
    ------
    ParameterError
        The model cannot be written as SQL (kernel densities, raw text, models whose columns
        depend on each other), or has a zero probability (``estimate="mle"``).
    NotFittedError
        The model is not fitted.

    Examples
    --------
    >>> import sqlite3
    >>> from nbayes import GaussianNB
    >>> from nbayes.export import to_sql
    >>> model = GaussianNB().fit([[1.0], [1.2], [3.0], [3.3]], ["low", "low", "high", "high"])
    >>> db = sqlite3.connect(":memory:")
    >>> _ = db.execute('CREATE TABLE t ("x0" REAL)')
    >>> _ = db.executemany("INSERT INTO t VALUES (?)", [(1.1,), (2.9,)])
    >>> [row[1] for row in db.execute(to_sql(model, dialect="sqlite"))]
    ['low', 'high']
    """
    if isinstance(dialect, str):  # sqlglot's names are lower case; "DuckDB" means duckdb
        dialect = dialect.lower()
    try:
        Dialect.get_or_raise(dialect)
    except ValueError as exc:
        raise ParameterError(
            f"dialect={dialect!r} is not a SQL dialect sqlglot knows ({exc}); pick one of "
            f"{', '.join(sorted(d.value for d in Dialects if d.value))}."
        ) from None
    classes = getattr(model, "classes_", None)
    if classes is None:
        raise NotFittedError(
            f"This {type(model).__name__} is not fitted yet; fit it before to_sql."
        )
    if threshold is None:
        threshold = log_odds_threshold(
            getattr(model, "decision_threshold", None),
            getattr(model, "threshold_scale", "log_odds"),
            len(classes),
        )
    elif len(classes) != 2:
        raise ParameterError(
            f"threshold applies to a model of two classes; this one has {len(classes)}. "
            "Leave threshold=None."
        )
    relative = _relative_scores(model)
    source: exp.Expression = exp.to_table(table, dialect=dialect)
    star = exp.Star()
    if str(dialect).lower() in _STAR_EXCLUDE:
        # Each score once, in a subquery; the outer SELECT leaves those columns out again.
        names = [f"__nbayes_score_{k}" for k in range(1, len(classes))]
        source = (
            exp.select(
                exp.Star(), *(exp.alias_(r, n, quoted=True) for r, n in zip(relative, names))
            )
            .from_(source)
            .subquery("scored")
        )
        relative = [exp.column(n, quoted=True) for n in names]
        star = exp.Star(except_=[r.copy() for r in relative]) if relative else star
    outputs = [exp.alias_(_prediction(relative, classes, threshold), "prediction", quoted=True)]
    for k, label in enumerate(classes):  # bounded by the classes
        outputs.append(
            exp.alias_(_probability(relative, k, dialect), f"proba_{label}", quoted=True)
        )
    return exp.select(star, *outputs).from_(source).sql(dialect=dialect)


def _groups(model) -> list[tuple]:
    """(family, params, column names, categories per column) of each column group."""
    name = type(model).__name__
    if supports(model, TEXT_INPUT):
        raise ParameterError(
            f"{name} reads raw text: its tokeniser and vocabulary have no portable SQL form. "
            "Count the words in the database and export a MultinomialNB fitted on the counts."
        )
    if supports(model, HOLDS_MODEL):
        raise ParameterError(
            f"{name} holds another nbayes model and combines its scores (semi-supervised "
            "mixture components, a backoff), which the export does not write; export a model "
            "that scores its columns itself (a preset, MixedNB or DensityNB)."
        )
    families, params = getattr(model, "families_", ()), getattr(model, "params_", None) or []
    n_features = int(getattr(model, "n_features_in_", 0))
    names = getattr(model, "feature_names_in_", None)
    fitted_on_array = names is None
    names = [f"x{i}" for i in range(n_features)] if names is None else [str(c) for c in names]
    groups = getattr(model, "column_groups_", None)
    if groups is not None:  # labels: names, or positions for a model fitted on an array
        columns = [
            [f"x{c}" if fitted_on_array and isinstance(c, int) else str(c) for c in cols]
            for _, cols in groups
        ]
    elif len(families) == 1 and len(params) == 1:
        columns = [names]
    else:
        raise ParameterError(
            f"{name} does not score its columns one at a time (its terms depend on other "
            "columns or on a structure learned between them): it has no per-column SQL "
            "form. Export a naive model (a preset, MixedNB or DensityNB)."
        )
    derived = sorted({c for cols in columns for c in cols} - set(names))
    if derived:
        raise ParameterError(
            f"{name} scores columns derived from its input ({derived[:3]}, calendar "
            f"features of a date), which the SQL export does not write; to export it, "
            f"{derived_fix(derived)}."
        )
    categories = getattr(model, "categories_", None)
    out = []
    for family, p, cols in zip(families, params, columns):  # bounded by the column groups
        if isinstance(categories, dict):
            cats = [categories.get(c) for c in cols]
        elif isinstance(categories, list) and len(families) == 1:
            cats = list(categories)
        else:
            cats = [None] * len(cols)
        out.append((family, p, cols, cats))
    return out


def _relative_scores(model) -> list[exp.Expression]:
    """Score of each class minus class 0's (classes 1..K-1)."""
    groups = _groups(model)
    log_prior = np.asarray(model.class_log_prior_, dtype=np.float64)
    n_classes = log_prior.shape[0]
    families = [g[0] for g in groups]
    uses_prior = any(f.uses_class_prior for f in families) or n_classes == 1
    parts: list[list[exp.Expression]] = [[] for _ in range(n_classes - 1)]
    if uses_prior:
        for k in range(1, n_classes):  # bounded by the classes
            parts[k - 1].append(terms.number(log_prior[k] - log_prior[0]))
    for family, params, cols, cats in groups:  # bounded by the column groups
        builder = terms.BUILDERS.get(family.name)
        if builder is None:
            why = terms.REFUSED.get(family.name, "the export knows no SQL form for it")
            raise ParameterError(
                f"{type(model).__name__}'s columns {cols[:3]} use the {family.name!r} family, "
                f"which cannot be exported to SQL: {why}. To export the model, "
                f"{family_fix(family.name, cols)}."
            )
        columns = [exp.column(c, quoted=True) for c in cols]
        for per_class in builder(family, params, columns, cats):  # bounded by the columns
            for k, term in enumerate(per_class):
                parts[k].append(term)
    return [terms.total(p) for p in parts]


def _prediction(relative: list[exp.Expression], classes, threshold) -> exp.Expression:
    """The first class with the highest score, as nbayes' argmax picks it, or for two
    classes ``classes[1]`` where its log-odds exceed ``threshold``. NULL scores match no
    WHEN: a NULL prediction."""
    if not relative:
        return terms.literal(classes[0])
    if len(relative) == 1:  # CASE (r > t) WHEN TRUE ... WHEN FALSE ...: r is written once
        cut = terms.number(0.0 if threshold is None else threshold)
        above = exp.GT(this=terms.paren(relative[0]), expression=cut)
        return exp.Case(
            this=exp.Paren(this=above),
            ifs=[
                exp.If(this=exp.true(), true=terms.literal(classes[1])),
                exp.If(this=exp.false(), true=terms.literal(classes[0])),
            ],
        )
    scores = [terms.number(0.0), *relative]
    whens: list[tuple[exp.Expression, exp.Expression]] = [
        (terms.is_null(r), exp.Null()) for r in relative
    ]
    for k in range(len(scores) - 1):  # bounded by the classes
        later = [
            exp.GTE(this=terms.paren(scores[k].copy()), expression=terms.paren(s.copy()))
            for s in scores[k + 1 :]
        ]
        cond: exp.Expression = later[0]
        for c in later[1:]:
            cond = exp.And(this=cond, expression=c)
        whens.append((cond, terms.literal(classes[k])))
    return terms.case(whens, terms.literal(classes[-1]))


def _probability(relative: list[exp.Expression], k: int, dialect: str) -> exp.Expression:
    """``1 / sum_j exp(r_j - r_k)``: the softmax of class k. Where the engine's EXP
    overflows to infinity (DuckDB, SQLite) that gives 0 as it should; elsewhere (PostgreSQL
    raises) each exponent is capped, at the cost of the cap's NULL handling."""
    scores = [terms.number(0.0), *relative]
    if not relative:
        return terms.number(1.0)
    addends = []
    for j, s in enumerate(scores):  # bounded by the classes
        if j == k:
            addends.append(terms.number(1.0))
            continue
        diff = s.copy() if k == 0 else terms.sub(s.copy(), scores[k].copy())
        if str(dialect).lower() not in _EXP_TO_INFINITY:
            diff = exp.Least(this=diff, expressions=[terms.number(_EXP_CAP)])
        addends.append(exp.Exp(this=diff))
    return exp.Div(this=terms.number(1.0), expression=terms.paren(terms.total(addends)))
