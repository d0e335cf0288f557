"""Parameter constraints: every public estimator declares what each of its parameters
accepts, and a bad value is refused by name when fitting starts, not at construction."""

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import generate_invalid_param_val, make_constraint

import nbayes
import nbayes.model_selection
from nbayes._params import _accepts, check_params, describe
from nbayes.estimators import REGISTRY
from nbayes.exceptions import ParameterError

RNG = np.random.default_rng(0)
Y = np.array([0, 1] * 20)
COUNTS = RNG.integers(0, 3, (40, 3)).astype(float)
TABLE = pd.DataFrame(
    {"a": RNG.normal(size=40), "b": RNG.choice(list("xyz"), 40), "c": RNG.integers(0, 3, 40)}
)
TEXTS = [f"w{i % 3} w{i % 5} word" for i in range(40)]
ON_TABLES = ("MixedNB", "AODE", "TAN", "KDB", "JointBayes")

#: Every public estimator: how to make it and what to fit it on.
MAKERS = {
    **{name: (cls, COUNTS) for name, cls in REGISTRY.items()},
    **{name: (REGISTRY[name], TABLE) for name in ON_TABLES},
    "TextNB": (nbayes.TextNB, TEXTS),
    "SemiSupervisedNB": (nbayes.SemiSupervisedNB, COUNTS),
    "FeatureSelectionCV": (
        lambda **kw: nbayes.model_selection.FeatureSelectionCV(
            **{"estimator": nbayes.BernoulliNB(), **kw}
        ),
        COUNTS,
    ),
    "GridSearchCV": (
        lambda **kw: nbayes.model_selection.GridSearchCV(
            **{"estimator": nbayes.MultinomialNB(), "param_grid": {"alpha": [1.0]}, **kw}
        ),
        COUNTS,
    ),
}


class BadType:
    """A value that no constraint accepts."""


def _public_estimators() -> set[str]:
    found = set()
    for module in (nbayes, nbayes.model_selection):
        for name in module.__all__:
            obj = getattr(module, name)
            if isinstance(obj, type) and issubclass(obj, BaseEstimator):
                found.add(name)
    return found


def test_every_public_estimator_is_checked_here():
    assert _public_estimators() - {"BaseNB"} <= set(MAKERS)


def _bad_values(name: str):
    """(parameter, bad value) pairs: a value of no accepted type for every parameter, then
    one outside each constraint that scikit-learn can make a bad value for, where no other
    constraint of the parameter accepts it."""
    make, _ = MAKERS[name]
    declared = type(make())._parameter_constraints
    for param in sorted(make().get_params(deep=False)):
        yield param, BadType()
        for constraint in declared[param]:
            try:
                bad = generate_invalid_param_val(make_constraint(constraint))
            except NotImplementedError:
                continue
            if not any(_accepts(make_constraint(c), bad) for c in declared[param]):
                yield param, bad


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_every_parameter_is_declared(name):
    make, _ = MAKERS[name]
    model = make()
    declared = type(model)._parameter_constraints
    assert sorted(declared) == sorted(model.get_params(deep=False))
    check_params(model)  # the defaults are accepted
    for constraints in declared.values():
        assert describe(constraints)  # every constraint can be said in words


@pytest.mark.parametrize("name", sorted(MAKERS))
def test_a_bad_value_is_refused_by_name_at_fit_not_at_construction(name):
    make, X = MAKERS[name]
    y = np.where(np.arange(40) < 10, Y, -1) if name == "SemiSupervisedNB" else Y
    checked = 0
    for param, bad in _bad_values(name):
        model = make(**{param: bad})  # construction keeps any value, as scikit-learn's
        assert model.get_params(deep=False)[param] is bad
        with pytest.raises(ParameterError) as caught:
            model.fit(X, y)
        assert param in str(caught.value), (param, bad, str(caught.value))
        checked += 1
    assert checked >= len(make().get_params(deep=False))


@pytest.mark.parametrize(
    "make, param, bad, message",
    [
        (
            nbayes.MultinomialNB,
            "fit_prior",
            "yes",
            "Parameter 'fit_prior' must be True or False; got 'yes'.",
        ),
        (
            nbayes.MultinomialNB,
            "prior_alpha",
            -1.0,
            "Parameter 'prior_alpha' must be a number >= 0; got -1.0.",
        ),
        (nbayes.KDB, "k", True, "Parameter 'k' must be an integer >= 0; got True."),
        (
            nbayes.GaussianNB,
            "var_pooling",
            "pooled",
            "Parameter 'var_pooling' must be one of ('per_class', 'shared'); got 'pooled'.",
        ),
        (
            nbayes.AODE,
            "min_parent_count",
            -1,
            "Parameter 'min_parent_count' must be a number >= 0 (or inf); got -1.",
        ),
    ],
)
def test_the_message_says_what_is_accepted_and_what_came(make, param, bad, message):
    with pytest.raises(ParameterError) as caught:
        make(**{param: bad}).fit(TABLE if make is nbayes.AODE else COUNTS, Y)
    assert str(caught.value) == message


def test_partial_fit_and_setup_check_too():
    with pytest.raises(ParameterError, match="'fit_prior' must be True or False"):
        nbayes.MultinomialNB(fit_prior=None).partial_fit(COUNTS, Y, classes=[0, 1])
    with pytest.raises(ParameterError, match="'max_int_categories' must be 'auto' or"):
        nbayes.MixedNB(max_int_categories=-1).setup(TABLE.iloc[:0])
