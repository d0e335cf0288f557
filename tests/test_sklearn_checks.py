"""scikit-learn's own estimator checks over every nbayes estimator.

Expected failures are declared with their reason; nothing is skipped silently.
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

import nbayes

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


def expected_failures(estimator):
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
]


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)
