"""scikit-learn's own estimator checks over every nbayes estimator.

Expected failures are declared with their reason and with the documented error they must
raise: an expected failure that stops failing, or fails another way, fails the test. Nothing
is skipped silently.
"""

import re

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import nbayes
from nbayes.exceptions import DataError

# The documented DataError of each family, for input the checks feed regardless of tags.
NEGATIVE_COUNTS = r"Column index 0 must hold non-negative counts for {family} features; got -"
FRACTIONAL_COUNTS = (
    r"Column index 0 must hold non-negative integer counts for Poisson features; got \d"
)
FRACTIONAL_CODES = (
    r"Column index 0 must hold non-negative integer category codes for Categorical "
    r"features; got \d"
)
#: Estimator class name -> its error for the negative or fractional data the checks feed.
DATA_ERROR = {
    "MultinomialNB": NEGATIVE_COUNTS.format(family="Multinomial"),
    "ComplementNB": NEGATIVE_COUNTS.format(family="Complement"),
    "PoissonNB": FRACTIONAL_COUNTS,
    "CategoricalNB": FRACTIONAL_CODES,
}

INTEGER_ONLY = (
    "nbayes rejects non-integer {what} with a clear error, while this check feeds uniform "
    "floats regardless of the estimator's categorical tag (scikit-learn truncates silently)."
)
NON_NEGATIVE_ONLY = (
    "check_decision_proba_consistency feeds Gaussian blobs with negative values whatever the "
    "positive_only tag, and nbayes rejects negative {what} with a clear error (scikit-learn's "
    "count models have no decision_function, so the check never runs for them)."
)
NON_NEGATIVE = {
    "MultinomialNB": "counts",
    "ComplementNB": "counts",
    "PoissonNB": "counts",
    "CategoricalNB": "category codes",
}


def expected_failures(estimator) -> dict[str, str]:
    """Check name -> why it fails for this estimator (the data error in DATA_ERROR)."""
    name = type(estimator).__name__
    failures = {}
    if name in NON_NEGATIVE:
        failures["check_decision_proba_consistency"] = NON_NEGATIVE_ONLY.format(
            what=NON_NEGATIVE[name]
        )
    what = {"CategoricalNB": "category codes", "PoissonNB": "counts"}.get(name)
    if what is None:
        return failures
    reason = INTEGER_ONLY.format(what=what)
    return {
        **failures,
        "check_sample_weight_equivalence_on_dense_data": reason,
        "check_sample_weight_equivalence_on_sparse_data": reason,
        # This check wraps the estimator's error in an AssertionError (it wants the word
        # "class" in it); the DataError is its cause.
        "check_classifiers_one_label_sample_weights": reason,
    }


ESTIMATORS = [
    nbayes.GaussianNB(),
    nbayes.BernoulliNB(),
    nbayes.MultinomialNB(),
    nbayes.ComplementNB(),
    nbayes.CategoricalNB(),
    nbayes.PoissonNB(),
    # The other faces: pooled and Bayesian Gaussian, automatic smoothing.
    nbayes.GaussianNB(var_pooling="shared"),
    nbayes.GaussianNB(estimate="posterior_predictive"),
    nbayes.GaussianNB(var_smoothing="auto"),
    nbayes.MultinomialNB(alpha="auto"),
    nbayes.DensityNB(),
]


def check_name(check) -> str:
    return getattr(check, "func", check).__name__


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible(estimator, check):
    reason = expected_failures(estimator).get(check_name(check))
    if reason is None:
        check(estimator)
        return
    # An expected failure: the check must fail, and with the documented DataError.
    with pytest.raises((DataError, AssertionError)) as info:
        check(estimator)
    error = info.value
    if not isinstance(error, DataError):
        error = error.__cause__
    assert isinstance(error, DataError), f"{reason}\nbut the check failed with {info.value!r}"
    assert re.match(DATA_ERROR[type(estimator).__name__], str(error)), str(error)


def test_every_expected_failure_is_a_real_check():
    # A misspelt or renamed check in expected_failures would otherwise just run normally.
    names = {
        check_name(check)
        for estimator in ESTIMATORS
        for _, check in parametrize_with_checks([estimator]).args[1]
    }
    for estimator in ESTIMATORS:
        assert set(expected_failures(estimator)) <= names


#: Registered estimators that scikit-learn's checks cover elsewhere or cannot cover, and why.
ELSEWHERE = {
    "MixedNB": "tests/test_mixed.py runs parametrize_with_checks on it",
    "TextNB": "takes raw text, while scikit-learn's checks feed numeric arrays",
    **{
        name: "tests/test_seminaive_sklearn.py runs parametrize_with_checks on it"
        for name in ("AODE", "TAN", "KDB", "JointBayes")
    },
}


def test_every_registered_estimator_is_checked():
    from nbayes.estimators import REGISTRY

    checked = {type(e).__name__ for e in ESTIMATORS} | set(ELSEWHERE)
    assert set(REGISTRY) <= checked, f"add to ESTIMATORS: {set(REGISTRY) - checked}"
