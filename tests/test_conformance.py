"""The conformance suite (tests/conformance.py) over every registered family and estimator.

Parametrised from ``nbayes.distributions.REGISTRY`` and ``nbayes.estimators.REGISTRY``: a
family or estimator added to a registry is checked here with no edit to this file, and the
guards below fail when a registered one lacks what the suite needs.
"""

import inspect
import os
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _cases import OWN_DATA, OWN_SUITES, PRESETS, estimator_cases
from conformance import (
    ESTIMATOR_CHECKS,
    FAMILY_CHECKS,
    NOT_A_DENSITY,
    applies,
    check_log_density_equals_scipy,
)
from hypothesis import settings
from sklearn.base import clone

import nbayes
from nbayes.distributions import REGISTRY as FAMILIES
from nbayes.distributions import Family
from nbayes.estimators import REGISTRY as ESTIMATORS

CASES = estimator_cases()


def test_every_registered_estimator_has_a_case():
    known = set(PRESETS) | set(OWN_DATA) | set(OWN_SUITES)
    missing = set(ESTIMATORS) - known
    assert not missing, f"add these estimators to PRESETS or OWN_DATA in tests/_cases.py: {missing}"
    assert known <= set(ESTIMATORS), "a case for an unregistered estimator"
    assert {family for family, _ in PRESETS.values()} <= set(FAMILIES)


def test_every_registered_family_implements_the_contract():
    for name, cls in FAMILIES.items():
        assert issubclass(cls, Family), name
        assert not inspect.isabstract(cls), f"{name} lacks {sorted(cls.__abstractmethods__)}"
    assert set(NOT_A_DENSITY) <= set(FAMILIES)


def test_a_family_missing_a_method_cannot_be_built():
    class Half(Family):
        name = "half"

    with pytest.raises(TypeError, match="abstract"):
        Half()


@pytest.mark.parametrize(
    "name, check",
    [
        pytest.param(name, check, id=f"{name}-{check.__name__}")
        for name in sorted(FAMILIES)
        for check in FAMILY_CHECKS
        if applies(check, name)
    ],
)
def test_family(name, check):
    check(name)


@pytest.mark.parametrize(
    "name, params",
    [
        ("gaussian", {"estimate": "posterior_predictive"}),  # Student-t predictive
        ("gaussian", {"var_pooling": "shared"}),
        ("bernoulli", {"binarize": None, "alpha": 0.3}),
        ("categorical", {"estimate": "map", "alpha": 2.5}),
        ("poisson", {"alpha": 0.5, "beta": 3.0}),
    ],
)
def test_other_settings_keep_the_scipy_density(name, params):
    check_log_density_equals_scipy(name, **params)


@pytest.mark.parametrize(
    "case, check",
    [
        pytest.param(case, check, id=f"{case.name}-{check.__name__}")
        for case in CASES
        for check in ESTIMATOR_CHECKS
        if applies(check, case)
    ],
)
def test_estimator(case, check):
    check(case)


def test_ci_runs_the_property_tests_reproducibly():
    # .ci/run exports CI=true, which loads conftest's derandomized "ci" profile.
    ci_script = Path(__file__).resolve().parents[1] / ".ci" / "run"
    assert re.search(r"^export CI=true\b", ci_script.read_text(), re.MULTILINE)
    assert settings.get_profile("ci").derandomize
    if os.environ.get("CI") == "true":
        assert settings.default.derandomize


def test_zero_weight_categories_leave_no_trace():
    # A value seen only in rows of weight zero gets no category code: coded below a weighted
    # value it would count in K_j and change the smoothing.
    X = np.array([[0], [1], [3], [0], [3]])  # 1 is seen only with weight zero
    y = np.array([0, 1, 0, 1, 1])
    w = np.array([1, 0, 1, 1, 1])
    model = nbayes.MixedNB(columns=[("categorical", [0])])
    weighted = clone(model).fit(X, y, sample_weight=w)
    dropped = clone(model).fit(X[w > 0], y[w > 0])
    np.testing.assert_allclose(
        weighted.predict_joint_log_proba(X[w > 0]), dropped.predict_joint_log_proba(X[w > 0])
    )


@pytest.mark.parametrize("partial", [False, True])
def test_zero_weight_category_values_leave_no_trace(partial):
    # The same for category values (CategoricalNB and MixedNB share the column layout), also
    # when the zero-weight value arrives in a later partial_fit batch.
    X = pd.DataFrame({"c": ["a", "b", "z", "a", "q", "z"]})
    y = np.array([0, 1, 0, 1, 0, 1])
    w = np.array([1, 0, 1, 1, 0, 1])
    for model in (nbayes.CategoricalNB(), nbayes.MixedNB()):
        weighted = clone(model)
        if partial:
            weighted.partial_fit(X[:3], y[:3], classes=[0, 1], sample_weight=w[:3])
            weighted.partial_fit(X[3:], y[3:], sample_weight=w[3:])
        else:
            weighted.fit(X, y, sample_weight=w)
        dropped = clone(model).fit(X[w > 0], y[w > 0])
        assert list(
            weighted.categories_[0]
            if isinstance(model, nbayes.CategoricalNB)
            else weighted.categories_["c"]
        ) == ["a", "z"]
        np.testing.assert_allclose(
            weighted.predict_joint_log_proba(X[w > 0]), dropped.predict_joint_log_proba(X[w > 0])
        )
