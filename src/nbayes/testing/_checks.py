"""The checks of the ecosystem suite, as a third party runs them on its own estimator: one tool
against its reference (:func:`check_wrapper`), every tool (:func:`check_ecosystem`), one by
one for ``pytest.mark.parametrize`` (:func:`ecosystem_checks`), and the decision_function
convention (:func:`check_decision_function`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np
from sklearn.base import clone

from .._engine import DECISION_BOUND, bound_decision
from ._compare import TOLERANCE, Comparison, Tolerance
from ._data import Split
from ._reference import ProbaOnly
from ._wrappers import WRAPPERS, applicable_wrappers


def run_wrapper(name: str, estimator, split: Split, *, cv: int = 3, random_state: int = 0):
    """Run the tool ``name`` of :data:`WRAPPERS` around ``estimator`` on ``split``.

    Parameters
    ----------
    name : str
        A key of :data:`WRAPPERS`.
    estimator : classifier
        Unfitted; each run fits clones of it.
    split : Split
        The data.
    cv : int, default 3
        Folds of the tools that cross-validate.
    random_state : int, default 0
        Seed of the tools that draw (folds, bags, hidden labels, permutations).

    Returns
    -------
    Outcome
        The tool's metrics.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import GaussianNB
    >>> from nbayes.testing import Split, run_wrapper
    >>> X = np.r_[np.zeros((20, 2)), np.ones((20, 2))] + np.linspace(0, 0.3, 40)[:, None]
    >>> y = np.repeat([0, 1], 20)
    >>> run_wrapper("voting-hard", GaussianNB(), Split(X, y, X, y)).metrics
    {'accuracy': 1.0}
    """
    if name not in WRAPPERS:
        raise KeyError(
            f"No tool named {name!r} in nbayes.testing.WRAPPERS; known: {sorted(WRAPPERS)}"
        )
    outcome = WRAPPERS[name].run(estimator, split, cv, random_state)
    outcome.wrapper = name  # the key, whatever the runner calls itself
    return outcome


def check_wrapper(
    name: str,
    estimator,
    split: Split,
    reference=None,
    *,
    tolerance: Tolerance = TOLERANCE,
    cv: int = 3,
    random_state: int = 0,
) -> Comparison:
    """Run the tool ``name`` around ``estimator`` and around ``reference`` on the same split;
    raise AssertionError when the estimator does worse than the tolerance allows on a metric
    both report.

    Parameters
    ----------
    name : str
        A key of :data:`WRAPPERS`.
    estimator, split, reference, tolerance, cv, random_state
        As in :func:`check_ecosystem`.

    Returns
    -------
    Comparison
        Both outcomes.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import GaussianNB
    >>> from nbayes.testing import Split, check_wrapper
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1, 2], 30)
    >>> X = rng.normal(size=(90, 2)) + y[:, None]
    >>> c = check_wrapper("one-vs-one", GaussianNB(), Split(X[::2], y[::2], X[1::2], y[1::2]))
    >>> c.failures()
    []
    """
    if reference is None:
        reference = ProbaOnly(estimator)
    got = run_wrapper(name, estimator, split, cv=cv, random_state=random_state)
    ref = run_wrapper(name, reference, split, cv=cv, random_state=random_state)
    comparison = Comparison(name, got, ref, tolerance)
    failures = comparison.failures()
    if failures:
        raise AssertionError(
            f"{name} around {type(estimator).__name__} on {split.name or 'the data'} does worse "
            f"than around {_describe(reference)} (tolerance {tolerance}): {'; '.join(failures)}"
        )
    return comparison


def _describe(reference) -> str:
    if isinstance(reference, ProbaOnly):
        return f"{type(reference.estimator).__name__}'s predict_proba alone"
    return f"{type(reference).__module__.split('.')[0]}'s {type(reference).__name__}"


def ecosystem_checks(
    estimator,
    split: Split,
    reference=None,
    *,
    wrappers: Iterable[str] | None = None,
    numeric: bool = True,
    tolerance: Tolerance = TOLERANCE,
    cv: int = 3,
    random_state: int = 0,
) -> Iterator[tuple[str, Callable[[], Comparison]]]:
    """Yield ``(tool name, check)`` for every tool defined for ``split``; calling ``check()``
    runs :func:`check_wrapper`. For ``pytest.mark.parametrize``.

    Parameters
    ----------
    estimator, split, reference, wrappers, numeric, tolerance, cv, random_state
        As in :func:`check_ecosystem` (``wrappers`` may be any iterable of names).

    Yields
    ------
    tuple of (str, callable)
        The tool's name and a function of no argument returning its :class:`Comparison`.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import GaussianNB
    >>> from nbayes.testing import Split, ecosystem_checks
    >>> X = np.arange(40, dtype=float).reshape(20, 2); y = np.repeat([0, 1], 10)
    >>> checks = dict(ecosystem_checks(GaussianNB(), Split(X, y, X, y)))
    >>> checks["fixed-threshold"]().outcome.metrics["accuracy"]
    1.0
    """
    names = applicable_wrappers(split, numeric) if wrappers is None else list(wrappers)
    for name in names:

        def check(name=name) -> Comparison:
            return check_wrapper(
                name,
                estimator,
                split,
                reference,
                tolerance=tolerance,
                cv=cv,
                random_state=random_state,
            )

        yield name, check


def check_ecosystem(
    estimator,
    split: Split,
    reference=None,
    *,
    wrappers: Sequence[str] | None = None,
    numeric: bool = True,
    tolerance: Tolerance = TOLERANCE,
    cv: int = 3,
    random_state: int = 0,
) -> list[Comparison]:
    """Run every tool defined for ``split`` (or those named in ``wrappers``) around
    ``estimator`` and ``reference``, and check the decision_function convention first.

    Parameters
    ----------
    estimator : classifier
        The unfitted estimator under test.
    split : Split
        The data.
    reference : classifier, optional
        The estimator it must do as well as: scikit-learn's corresponding model, or by
        default ``ProbaOnly(estimator)``.
    wrappers : sequence of str, optional
        Names of :data:`WRAPPERS`; default every one that applies.
    numeric : bool, default True
        False for counts or category codes (no decision-boundary grid over them).
    tolerance : Tolerance, default TOLERANCE
        How much worse it may do.
    cv : int, default 3
        Folds of the tools that cross-validate.
    random_state : int, default 0
        Seed of the tools that draw.

    Returns
    -------
    list of Comparison
        One per tool, in order. Raises AssertionError at the first tool that fails.

    Examples
    --------
    >>> import numpy as np
    >>> from nbayes import GaussianNB
    >>> from nbayes.testing import Split, check_ecosystem
    >>> rng = np.random.default_rng(1)
    >>> y = np.repeat([0, 1], 40)
    >>> X = rng.normal(size=(80, 2)) + y[:, None]
    >>> done = check_ecosystem(GaussianNB(), Split(X[::2], y[::2], X[1::2], y[1::2]))
    >>> len(done) == len(WRAPPERS)
    True
    """
    check_decision_function(clone(estimator).fit(split.X_train, split.y_train), split.X_test)
    return [
        check()
        for _, check in ecosystem_checks(
            estimator,
            split,
            reference,
            wrappers=wrappers,
            numeric=numeric,
            tolerance=tolerance,
            cv=cv,
            random_state=random_state,
        )
    ]


def check_decision_function(model, X) -> None:
    """The decision_function convention of nbayes, on a fitted model: two classes, the
    log-odds log P(classes_[1] | x) - log P(classes_[0] | x), exact within log(1 / eps)
    (about 36.04) and clipped to it beyond (``bound_decision`` of ``nbayes._engine``); more,
    the posterior ``predict_proba``. Either way argmax (sign) = ``predict``. Raises
    AssertionError otherwise.

    Parameters
    ----------
    model : fitted classifier
        With ``decision_function``, ``predict_log_proba``, ``predict_proba`` and ``predict``.
    X : array-like, sparse matrix, DataFrame or texts
        Rows to check on.

    Examples
    --------
    >>> from nbayes import MultinomialNB
    >>> from nbayes.testing import check_decision_function
    >>> X = [[3, 0], [0, 3], [1, 1]]
    >>> check_decision_function(MultinomialNB().fit(X, ["a", "b", "c"]), X)
    """
    d = np.asarray(model.decision_function(X))
    log_proba = np.asarray(model.predict_log_proba(X))
    pred = np.asarray(model.predict(X))
    if not np.all(np.abs(d) <= DECISION_BOUND):
        raise AssertionError(f"decision_function exceeds the bound: {np.abs(d).max()}")
    if len(model.classes_) == 2:
        if d.shape != (log_proba.shape[0],):
            raise AssertionError(f"two-class decision_function has shape {d.shape}")
        log_odds = bound_decision(log_proba[:, 1] - log_proba[:, 0])
        np.testing.assert_allclose(d, log_odds, rtol=1e-9, atol=1e-9)
        np.testing.assert_array_equal(model.classes_[(d > 0).astype(np.intp)], pred)
        return
    np.testing.assert_allclose(d, np.asarray(model.predict_proba(X)), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(d.sum(axis=1), 1.0, rtol=1e-9)
    np.testing.assert_array_equal(model.classes_[np.argmax(d, axis=1)], pred)
