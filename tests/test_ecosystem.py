"""scikit-learn's meta-estimators and displays around every registered estimator (issue 35).

The suite is ``nbayes.testing``; the estimators, their real-data splits and their references
are the table of ``_ecosystem.py``, driven by ``nbayes.estimators.REGISTRY``: a registered
estimator without an entry fails the guard below, and one with an entry gets every tool. Each
test runs one tool around the estimator and around its reference (scikit-learn's
corresponding naive Bayes, else the estimator's own ``predict_proba`` alone) on the same split
and requires accuracy and log-loss no worse than ``nbayes.testing.TOLERANCE``.
``benchmarks/sklearn_wrappers.py`` prints the whole table.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _ecosystem import ESTIMATORS, SPLITS, split
from scipy.special import expit
from sklearn.base import clone

import nbayes
from nbayes._engine import DECISION_BOUND, bound_decision
from nbayes.estimators import REGISTRY
from nbayes.model_selection import GridSearchCV
from nbayes.testing import (
    TOLERANCE,
    WRAPPERS,
    Comparison,
    Outcome,
    ProbaOnly,
    Split,
    Tolerance,
    applicable_wrappers,
    check_decision_function,
    check_ecosystem,
    check_wrapper,
    ecosystem_checks,
    run_wrapper,
)

pytestmark = pytest.mark.filterwarnings("ignore")  # the tools' convergence notes, not ours


def _cases():
    for name in sorted(ESTIMATORS):
        for split_name in ESTIMATORS[name].splits:
            spec = SPLITS[split_name]
            for wrapper, tool in WRAPPERS.items():
                if not tool.applies(spec.n_classes, spec.text, spec.numeric, spec.strings):
                    continue
                yield pytest.param(name, split_name, wrapper, id=f"{name}-{split_name}-{wrapper}")


def _reference(name: str):
    entry = ESTIMATORS[name]
    return entry.reference() if entry.reference else ProbaOnly(entry.factory())


@pytest.mark.parametrize("name, split_name, wrapper", list(_cases()))
def test_tool_around_the_estimator_does_as_well_as_around_the_reference(
    shared_data, name, split_name, wrapper
):
    data = split(split_name, shared_data)
    comparison = check_wrapper(wrapper, ESTIMATORS[name].factory(), data, _reference(name))
    assert comparison.outcome.wrapper == comparison.reference.wrapper == wrapper
    assert comparison.outcome.metrics, "the tool reported no metric"
    assert comparison.outcome.metrics.keys() == comparison.reference.metrics.keys()


@pytest.mark.parametrize(
    "name, split_name",
    [(name, s) for name in sorted(ESTIMATORS) for s in ESTIMATORS[name].splits],
)
def test_decision_function_is_the_log_odds_or_the_log_posterior(shared_data, name, split_name):
    data = split(split_name, shared_data)
    model = ESTIMATORS[name].factory().fit(data.X_train, data.y_train)
    check_decision_function(model, data.X_test)
    assert np.asarray(model.decision_function(data.X_test)).ndim == (
        1 if data.n_classes == 2 else 2
    )


# -- the guards --------------------------------------------------------------------------------
def test_every_registered_estimator_has_an_ecosystem_entry():
    missing = set(REGISTRY) - set(ESTIMATORS)
    assert not missing, f"add these estimators to ESTIMATORS in tests/_ecosystem.py: {missing}"
    assert set(ESTIMATORS) <= set(REGISTRY), "an entry for an unregistered estimator"


def test_every_entry_runs_on_two_classes_and_on_more():
    for name, entry in ESTIMATORS.items():
        counts = {SPLITS[s].n_classes for s in entry.splits}
        assert 2 in counts and max(counts) > 2, name


def test_the_splits_are_what_their_table_says(shared_data):
    for split_name, spec in SPLITS.items():  # a dozen splits, each read once per process
        data = split(split_name, shared_data)
        assert data.n_classes == spec.n_classes, split_name
        assert data.is_text == spec.text, split_name
        assert data.has_strings == spec.strings, split_name
        assert set(np.unique(data.y_test)) <= set(data.classes), split_name


# -- the suite catches the bug of issue 35 -----------------------------------------------------
class JointScores(nbayes.MultinomialNB):
    """MultinomialNB with the multi-class decision_function nbayes had before issue 35: the
    joint scores log P(x, y) without class-independent terms."""

    def decision_function(self, X):
        if len(self.classes_) == 2:
            return super().decision_function(X)
        return self.joint_log_scores(X)


def test_the_suite_fails_the_old_multiclass_decision_function(shared_data):
    data = split("messages-counts", shared_data)
    old = JointScores()
    # Per-class sigmoids on joint scores sort documents by length: far below scikit-learn.
    with pytest.raises(AssertionError, match=r"calibrated-sigmoid-single .* accuracy"):
        check_wrapper("calibrated-sigmoid-single", old, data, _reference("MultinomialNB"))
    with pytest.raises(AssertionError):
        check_decision_function(old.fit(data.X_train, data.y_train), data.X_test)
    # The posterior: accuracy back at scikit-learn's.
    accuracy = {
        model: run_wrapper("calibrated-sigmoid-single", model, data).metrics["accuracy"]
        for model in (old, nbayes.MultinomialNB(), _reference("MultinomialNB"))
    }
    old_accuracy, new_accuracy, sklearn_accuracy = accuracy.values()
    assert new_accuracy >= sklearn_accuracy - TOLERANCE.gain
    assert old_accuracy < sklearn_accuracy - 0.2


# -- the public API of nbayes.testing ----------------------------------------------------------
def _blobs(n_classes: int, n=90, seed=0) -> Split:
    rng = np.random.default_rng(seed)
    y = np.repeat(np.arange(n_classes), n // n_classes)
    X = rng.normal(size=(len(y), 2)) + 2.0 * y[:, None]
    return Split(X[::2], y[::2], X[1::2], y[1::2], f"{n_classes} blobs")


def test_check_ecosystem_runs_every_tool_that_applies():
    data = _blobs(3)
    lenient = Tolerance(gain=1.0, loss_ratio=10.0, loss_abs=10.0)  # 45 test rows: run, not rank
    done = check_ecosystem(nbayes.GaussianNB(), data, tolerance=lenient)
    assert [c.wrapper for c in done] == applicable_wrappers(data)
    assert "tuned-threshold" not in applicable_wrappers(data)  # two classes only
    assert all(isinstance(c, Comparison) and not c.failures() for c in done)
    names = [name for name, _ in ecosystem_checks(nbayes.GaussianNB(), _blobs(2), numeric=False)]
    assert "tuned-threshold" in names and "display-decision_boundary" not in names


def test_raw_text_goes_to_the_table_tools_as_one_column():
    texts = np.array(["cheap cash prize", "win cash now", "lunch at noon", "see you at lunch"] * 6)
    y = np.array(["spam", "spam", "ham", "ham"] * 6)
    data = Split(texts[:16], y[:16], texts[16:], y[16:], "texts")
    names = applicable_wrappers(data)
    assert data.is_text and "display-decision_boundary" not in names
    assert "one-vs-one" not in names and "self-training" not in names  # X made numbers
    for wrapper in ("bagging", "permutation_importance", "stacking", "calibrated-sigmoid-single"):
        assert not check_wrapper(wrapper, nbayes.TextNB(), data).failures(), wrapper


def test_tolerance_and_comparison_report_what_is_worse():
    got = Outcome("x", {"accuracy": 0.70, "log_loss": 0.60, "brier": 0.1})
    ref = Outcome("x", {"accuracy": 0.75, "log_loss": 0.50, "brier": 0.1})
    failures = Comparison("x", got, ref).failures()
    assert failures == ["accuracy 0.7 against 0.75", "log_loss 0.6 against 0.5"]
    assert TOLERANCE.allows("log_loss", 0.57, 0.5) and not TOLERANCE.allows("log_loss", 0.58, 0.5)


def test_check_wrapper_raises_naming_the_tool_the_data_and_the_reference():
    class Worse(nbayes.GaussianNB):
        def predict_proba(self, X):  # uniform: the log-loss of guessing
            return np.full((len(X), len(self.classes_)), 1 / len(self.classes_))

    with pytest.raises(AssertionError, match=r"voting-soft around Worse on 2 blobs .* GaussianNB"):
        check_wrapper("voting-soft", Worse(), _blobs(2), nbayes.GaussianNB())
    with pytest.raises(KeyError, match="No tool named 'nope'"):
        check_wrapper("nope", nbayes.GaussianNB(), _blobs(2))


def test_proba_only_hides_decision_function_and_keeps_the_input_tags():
    model = ProbaOnly(nbayes.TextNB())
    assert model.__sklearn_tags__().input_tags.string
    model.fit(["cash prize", "lunch noon", "cash", "noon"], [0, 1, 0, 1])
    assert not hasattr(model, "decision_function")
    assert model.predict(["cash"]).tolist() == [0]
    weighted = ProbaOnly(nbayes.GaussianNB()).fit(
        [[0.0], [1.0], [0.1]], [0, 1, 0], sample_weight=[1, 1, 2]
    )
    np.testing.assert_array_equal(weighted.estimator_.class_count_, [3, 1])


# -- the estimators outside the registry -------------------------------------------------------
def test_semi_supervised_and_grid_search_follow_the_convention(shared_data):
    data = split("messages-counts", shared_data)
    hidden = data.y_train.astype(object)
    hidden[::3] = None  # a third of the rows unlabeled
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        em = nbayes.SemiSupervisedNB(nbayes.MultinomialNB()).fit(data.X_train, hidden)
    check_decision_function(em, data.X_test)
    search = GridSearchCV(nbayes.MultinomialNB(), {"alpha": [0.1, 1.0]}, cv=3).fit(
        data.X_train, data.y_train
    )
    check_decision_function(search, data.X_test)
    binary = split("sms-counts", shared_data)
    check_decision_function(clone(search).fit(binary.X_train, binary.y_train), binary.X_test)
    for wrapper in ("calibrated-isotonic-single", "one-vs-rest"):
        assert not check_wrapper(wrapper, em, data, _reference("MultinomialNB")).failures()


# -- the bound of decision_function ------------------------------------------------------------
def test_a_confidently_wrong_row_scores_the_bound():
    X = np.array([[9, 1], [8, 2], [1, 9], [2, 8]] * 5)
    y = np.array(["a", "a", "b", "b"] * 5)
    model = nbayes.MultinomialNB().fit(X, y)
    # Rows of "b" written like "a": log-odds of "b" about -100 and -300, and one moderate row.
    rows = np.array([[60, 0], [180, 0], [3, 2]])
    log_proba = model.predict_log_proba(rows)
    exact = log_proba[:, 1] - log_proba[:, 0]
    assert exact[1] < exact[0] < -DECISION_BOUND - 50 and abs(exact[2]) < 5
    d = model.decision_function(rows)
    np.testing.assert_array_equal(d[:2], -DECISION_BOUND)  # clipped: tied, as P(a) = 1.0 ties
    np.testing.assert_array_equal(model.predict_proba(rows)[:2, 0], 1.0)
    np.testing.assert_allclose(d[2], exact[2], rtol=1e-12)  # inside the bound: as it is
    linear = rows @ model.coef_[0] + model.intercept_[0]
    np.testing.assert_allclose(linear, exact, rtol=1e-12)  # the linear view is unbounded
    np.testing.assert_allclose(model.predict_proba(rows)[:, 1], expit(exact), rtol=1e-12)
    assert model.predict(rows).tolist() == ["a", "a", "a"] == model.classes_[(d > 0) * 1].tolist()
    check_decision_function(model, rows)
    # More classes: the posterior, whatever the log-odds.
    three = nbayes.MultinomialNB().fit(np.vstack([X, [[5, 5]] * 4]), [*y, "c", "c", "c", "c"])
    np.testing.assert_array_equal(three.decision_function(rows), three.predict_proba(rows))
    check_decision_function(three, rows)


def test_bound_decision_is_the_identity_inside_and_clips_beyond():
    scores = np.array([-np.inf, -500.0, -40.0, -DECISION_BOUND, -1.5, 0.0, 20.0, 1e9, np.inf])
    got = bound_decision(scores.copy())
    np.testing.assert_array_equal(got[3:7], scores[3:7])
    np.testing.assert_array_equal(got[:3], -DECISION_BOUND)
    np.testing.assert_array_equal(got[7:], DECISION_BOUND)
