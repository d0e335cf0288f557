"""Public merge of fitted models: the statistics of disjoint data add up."""

from __future__ import annotations

import copy
from functools import reduce

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from .. import base
from ..exceptions import ParameterError


def _same(a, b) -> bool:
    """Equality for hyperparameter values that may be arrays, lists or None."""
    if a is None or b is None:
        return a is b
    try:
        return bool(np.array_equal(np.asarray(a, dtype=object), np.asarray(b, dtype=object)))
    except ValueError:  # ragged sequences
        return a == b


def _difference(path: str, a, b) -> tuple[str, object, object] | None:
    """The first place where two hyperparameter values differ, as (path, value of a, value
    of b), or None when they are the same.

    Estimators (a ``backoff=``) are the same when they are of one class with the same
    settings, as ``clone`` sees them; the path then goes inside them with scikit-learn's
    nested names (``backoff__alpha``), dicts by key and arrays by element, so that two values
    whose reprs print alike (two ``TAN()`` objects, long arrays that numpy summarises with
    ``...``) are told apart by what actually differs.
    """
    if isinstance(a, BaseEstimator) and isinstance(b, BaseEstimator) and type(a) is type(b):
        pa, pb = a.get_params(deep=False), b.get_params(deep=False)
        for key in pa:  # bounded by the estimator's parameters
            found = _difference(f"{path}__{key}", pa[key], pb[key])
            if found is not None:
                return found
        return None
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            return f"{path} keys", sorted(a, key=repr), sorted(b, key=repr)
        for key in a:  # bounded by the dict's keys
            found = _difference(f"{path}[{key!r}]", a[key], b[key])
            if found is not None:
                return found
        return None
    if _same(a, b):
        return None
    if a is not None and b is not None and not isinstance(a, str) and not isinstance(b, str):
        try:
            x, y = np.asarray(a, dtype=object), np.asarray(b, dtype=object)
            unequal = ~np.asarray(x == y, dtype=bool) if x.shape == y.shape else None
        except (ValueError, TypeError):  # ragged or incomparable: report the whole values
            return path, a, b
        if x.ndim and y.ndim and x.shape != y.shape:
            return f"{path}.shape", x.shape, y.shape
        if x.ndim and unequal is not None and unequal.any():
            where = tuple(int(i) for i in np.argwhere(unequal)[0])
            index = "".join(f"[{i}]" for i in where)
            return f"{path}{index}", x[where], y[where]
    return path, a, b


def _check_compatible(first, other, i: int) -> None:
    """Raise a ParameterError naming the first difference between model 1 and model ``i``."""
    fix = "Merge only models of one kind, fitted with the same settings on the same columns."
    if type(other) is not type(first):
        raise ParameterError(
            f"Cannot merge model {i} ({type(other).__name__}) into model 1 "
            f"({type(first).__name__}). {fix}"
        )
    params_1, params_i = first.get_params(deep=False), other.get_params(deep=False)
    for name, value in params_1.items():
        _refuse_difference(_difference(name, params_i[name], value), i, fix)
    if other.n_features_in_ != first.n_features_in_:
        raise ParameterError(
            f"Cannot merge: model {i} has {other.n_features_in_} features but model 1 has "
            f"{first.n_features_in_}. {fix}"
        )
    names_1 = getattr(first, "feature_names_in_", None)
    names_i = getattr(other, "feature_names_in_", None)
    if not _same(names_1, names_i):
        raise ParameterError(
            f"Cannot merge: model {i} was fitted on columns "
            f"{None if names_i is None else names_i.tolist()!r} but model 1 on "
            f"{None if names_1 is None else names_1.tolist()!r}. {fix}"
        )
    fams_1 = [(f.name, f.get_params()) for f in getattr(first, "families_", ())]
    fams_i = [(f.name, f.get_params()) for f in getattr(other, "families_", ())]
    if fams_1 != fams_i:
        raise ParameterError(
            f"Cannot merge: model {i} models its columns with families {fams_i!r} but model "
            f"1 with {fams_1!r}. {fix}"
        )
    _check_classes(first, other, i)


def _check_wrapper_compatible(first, other, i: int) -> None:
    """:func:`_check_compatible` for a model with an inner model (TextNB): inner models of one
    class, the same settings and classes (the encodings may differ: TextNB's vocabularies,
    which merge takes the union of)."""
    fix = f"Merge only {type(first).__name__} models fitted with the same settings."
    mine, theirs = base.inner_model(first), base.inner_model(other)
    if type(theirs) is not type(mine):
        raise ParameterError(
            f"Cannot merge: model {i} has a {type(theirs).__name__} classifier but "
            f"model 1 a {type(mine).__name__}. {fix}"
        )
    params_1, params_i = first.get_params(deep=False), other.get_params(deep=False)
    for name, value in params_1.items():  # the components, compared by settings
        # A fitted component (``vectorizer_`` of ``vectorizer``) is what was used: a default
        # (None) and the same settings written out are one model.
        mine = getattr(first, f"{name}_", value)
        theirs = getattr(other, f"{name}_", params_i[name])
        _refuse_difference(_difference(name, theirs, mine), i, fix)
    _check_classes(first, other, i)


def _refuse_difference(found: tuple[str, object, object] | None, i: int, fix: str) -> None:
    """The ParameterError for a :func:`_difference` of model ``i`` from model 1, if any."""
    if found is not None:
        where, got, want = found
        raise ParameterError(
            f"Cannot merge: model {i} has {where}={got!r} but model 1 has {where}={want!r}. {fix}"
        )


def _check_classes(first, other, i: int) -> None:
    classes_1, classes_i = set(first.classes_.tolist()), set(other.classes_.tolist())
    if classes_1 != classes_i:
        raise ParameterError(
            f"Cannot merge: model {i} has classes {sorted(classes_i, key=repr)!r} but model 1 "
            f"has {sorted(classes_1, key=repr)!r} (only in model 1: "
            f"{sorted(classes_1 - classes_i, key=repr)!r}; only in model {i}: "
            f"{sorted(classes_i - classes_1, key=repr)!r}). Fit every shard with "
            "partial_fit(X, y, classes=all_classes) so that they share one label set."
        )


def merge(*models):
    """Combine models fitted on disjoint data into the model of their union.

    Naive Bayes learns additive sufficient statistics, so the merged model equals one fitted
    on all the rows together (to floating-point rounding): counts add up and Gaussian moments
    combine with the Chan et al. formula. Models must be of one class with the same
    hyperparameters, columns and classes; classes listed in another order are aligned by
    label. Category codes seen by only some models are fine (the vocabulary is the union);
    so are the words of TextNB models whose vocabularies ``fit`` learned without limits
    (:meth:`TextNB.recode_statistics`). The inputs are left unchanged.

    Parameters
    ----------
    *models : fitted nbayes estimators
        Two or more (one is returned as a copy).

    Returns
    -------
    model
        A new fitted estimator of the same class, with the classes order of the first model.

    Raises
    ------
    ParameterError
        The models differ in class, a hyperparameter, the columns, the feature families or
        the classes; the message names the first difference.

    Examples
    --------
    >>> import numpy as np
    >>> import nbayes
    >>> X = np.array([[3, 0], [2, 1], [0, 4], [1, 3]]); y = np.array([0, 0, 1, 1])
    >>> a = nbayes.MultinomialNB().fit(X[::2], y[::2])
    >>> b = nbayes.MultinomialNB().fit(X[1::2], y[1::2])
    >>> both = nbayes.merge(a, b)
    >>> np.allclose(both.feature_log_prob_, nbayes.MultinomialNB().fit(X, y).feature_log_prob_)
    True
    """
    if not models:
        raise ParameterError("merge needs at least one fitted model; got none.")
    for i, model in enumerate(models, start=1):
        if not isinstance(model, base.Model):
            raise ParameterError(
                f"merge takes nbayes estimators; model {i} is a {type(model).__name__}."
            )
        check_is_fitted(model, "stats_")
    first = models[0]
    for i, other in enumerate(models[1:], start=2):
        if type(other) is type(first) and base.supports(first, base.INNER_MODEL):
            _check_wrapper_compatible(first, other, i)
        else:
            _check_compatible(first, other, i)
    index = pd.Index(first.classes_)
    merged = copy.deepcopy(first)
    aligned = [first.stats_]
    for other in models[1:]:
        positions = index.get_indexer(other.classes_)
        # Category codes are per model when vocabularies are learned: re-code first.
        stats = merged.recode_statistics(other)
        aligned.append(merged.align_statistics(stats, positions, len(index)))
    return merged.install(first.classes_, reduce(merged.merge_statistics, aligned))
