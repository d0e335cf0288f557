"""scikit-learn's own estimator checks over every nbayes estimator.

Expected failures are declared with their reason; nothing is skipped silently.
"""

from sklearn.utils.estimator_checks import parametrize_with_checks

import nbayes

INTEGER_ONLY = (
    "nbayes rejects non-integer {what} with a clear error, while this check feeds uniform "
    "floats regardless of the estimator's categorical tag (scikit-learn truncates silently)."
)


def expected_failures(estimator):
    what = {"CategoricalNB": "category codes", "PoissonNB": "counts"}.get(
        type(estimator).__name__)
    if what is None:
        return {}
    reason = INTEGER_ONLY.format(what=what)
    return {
        "check_sample_weight_equivalence_on_dense_data": reason,
        "check_sample_weight_equivalence_on_sparse_data": reason,
        "check_classifiers_one_label_sample_weights": reason,
    }


ESTIMATORS = [
    nbayes.GaussianNB(), nbayes.BernoulliNB(), nbayes.MultinomialNB(), nbayes.ComplementNB(),
    nbayes.CategoricalNB(), nbayes.PoissonNB(),
]


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failures)
def test_sklearn_compatible(estimator, check):
    check(estimator)
