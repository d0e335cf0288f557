"""nbayes.plot: every display draws the model's own numbers (asserted on the drawn artists)."""

import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.calibration import calibration_curve
from sklearn.metrics import ConfusionMatrixDisplay, precision_recall_curve

import nbayes
from nbayes.exceptions import ParameterError, UnknownLabelError

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from nbayes.plot import (  # noqa: E402
    ClassConditionalDisplay,
    ReliabilityDisplay,
    ThresholdDisplay,
    TopFeaturesDisplay,
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


RNG = np.random.default_rng(0)
Y = np.array(["a"] * 30 + ["b"] * 30)


def heights(display, k):
    return np.array([bar.get_height() for bar in display.bars_[k]])


# -- class-conditional distributions, one family at a time ---------------------------------------
def test_gaussian_curves_are_the_fitted_normal_densities():
    X = np.vstack([RNG.normal(0, 1, (30, 2)), RNG.normal(3, 2, (30, 2))])
    model = nbayes.GaussianNB().fit(X, Y)
    display = ClassConditionalDisplay.from_estimator(model, 1)
    assert len(display.lines_) == 2 and display.bars_ == []
    for k, line in enumerate(display.lines_):
        x, density = line.get_data()
        expected = stats.norm.pdf(x, model.theta_[k, 1], np.sqrt(model.var_[k, 1]))
        np.testing.assert_allclose(density, expected, rtol=1e-10)
        assert line.get_label() == ["a", "b"][k]
    # the grid spans four standard deviations around every class mean
    x = display.lines_[0].get_xdata()
    assert x[0] == pytest.approx((model.theta_[:, 1] - 4 * np.sqrt(model.var_[:, 1])).min())
    assert display.ax_.get_title() == "x1 (gaussian)"


def test_student_t_posterior_predictive_is_drawn_as_a_t_density():
    X = np.vstack([RNG.normal(0, 1, (30, 1)), RNG.normal(3, 2, (30, 1))])
    model = nbayes.GaussianNB(estimate="posterior_predictive").fit(X, Y)
    x, density = ClassConditionalDisplay.from_estimator(model, 0).lines_[1].get_data()
    expected = stats.t.pdf(x, model.dof_[1, 0], model.theta_[1, 0], np.sqrt(model.var_[1, 0]))
    np.testing.assert_allclose(density, expected, rtol=1e-10)


def test_data_sets_the_density_range_and_draws_one_histogram_per_class():
    X = pd.DataFrame({"t": np.r_[RNG.normal(0, 1, 30), RNG.normal(5, 1, 30)]})
    model = nbayes.MixedNB().fit(X, Y)
    display = ClassConditionalDisplay.from_estimator(model, "t", X, Y)
    x = display.lines_[0].get_xdata()
    lo, hi = np.quantile(X["t"], [0.005, 0.995])
    assert x[0] == pytest.approx(lo - 0.1 * (hi - lo)) and x[-1] == pytest.approx(
        hi + 0.1 * (hi - lo)
    )
    patches = display.ax_.patches
    assert len(patches) == 60  # 30 bins for each class
    counts = np.array([p.get_height() for p in patches[:30]])
    widths = np.array([p.get_width() for p in patches[:30]])
    assert (counts * widths).sum() == pytest.approx(1.0)  # a density of class a's rows


def test_bernoulli_bars_are_the_probabilities_of_0_and_1():
    X = RNG.integers(0, 2, (60, 3))
    model = nbayes.BernoulliNB().fit(X, Y)
    display = ClassConditionalDisplay.from_estimator(model, 2)
    for k in range(2):
        p1 = np.exp(model.feature_log_prob_[k, 2])
        np.testing.assert_allclose(heights(display, k), [1 - p1, p1])
    assert [t.get_text() for t in display.ax_.get_xticklabels()] == ["0", "1"]


def test_categorical_bars_are_the_category_probabilities_labelled_by_value():
    X = pd.DataFrame({"city": RNG.choice(["Oslo", "Rome", "Lima"], 60), "n": RNG.normal(size=60)})
    model = nbayes.MixedNB().fit(X, Y)
    display = ClassConditionalDisplay.from_estimator(model, "city")
    labels = [t.get_text() for t in display.ax_.get_xticklabels()]
    assert labels == list(model.categories_["city"])
    for k in range(2):
        counts = X["city"][Y == ["a", "b"][k]].value_counts()
        expected = [(counts.get(v, 0) + 1) / (30 + 3) for v in labels]
        np.testing.assert_allclose(heights(display, k), expected)


def test_categorical_nb_codes_give_the_fitted_table():
    X = RNG.integers(0, 4, (60, 2))
    model = nbayes.CategoricalNB().fit(X, Y)
    display = ClassConditionalDisplay.from_estimator(model, 1)
    for k in range(2):
        np.testing.assert_allclose(heights(display, k), np.exp(model.feature_log_prob_[1][k]))


def test_many_categories_keep_the_most_probable_and_add_up_the_rest():
    values = np.array([f"v{i:02d}" for i in range(30)])
    X = pd.DataFrame({"c": np.r_[np.repeat(values[:3], 20), values]})
    y = np.r_[Y, ["a"] * 15 + ["b"] * 15]
    model = nbayes.MixedNB().fit(X, y)
    display = ClassConditionalDisplay.from_estimator(model, "c", max_values=5)
    labels = [t.get_text() for t in display.ax_.get_xticklabels()]
    assert labels[:3] == ["v00", "v01", "v02"] and labels[-1] == "other (26)"
    assert len(labels) == 5
    for k in range(2):
        assert heights(display, k).sum() == pytest.approx(1.0)


def test_poisson_bars_are_the_poisson_pmf_up_to_the_upper_tail():
    X = np.vstack([RNG.poisson(1, (30, 1)), RNG.poisson(6, (30, 1))])
    model = nbayes.PoissonNB().fit(X, Y)
    display = ClassConditionalDisplay.from_estimator(model, 0)
    top = int(stats.poisson.ppf(1 - 1e-3, model.rate_[:, 0]).max())
    for k in range(2):
        expected = stats.poisson.pmf(np.arange(top + 1), model.rate_[k, 0])
        np.testing.assert_allclose(heights(display, k), expected, rtol=1e-10)


def test_multinomial_and_complement_show_the_word_share_and_mean_count():
    X = RNG.poisson(2, (60, 4))
    model = nbayes.MultinomialNB().fit(X, Y)
    display = ClassConditionalDisplay.from_estimator(model, 3)
    for k in range(2):
        assert heights(display, k) == pytest.approx([np.exp(model.feature_log_prob_[k, 3])])
    assert display.ax_.get_ylabel() == "P(word | class)"
    comp = nbayes.ComplementNB().fit(X, Y)
    display = ClassConditionalDisplay.from_estimator(comp, 3)
    for k in range(2):
        assert heights(display, k) == pytest.approx([X[Y == ["a", "b"][k], 3].mean()])


def test_text_nb_is_shown_by_word():
    model = nbayes.TextNB().fit(["win a prize now", "lunch at noon", "prize prize"], [1, 0, 1])
    display = ClassConditionalDisplay.from_estimator(model, "prize")
    share = np.exp(model.classifier_.feature_log_prob_[:, model.vectorizer_.vocabulary_["prize"]])
    assert np.r_[heights(display, 0), heights(display, 1)] == pytest.approx(share)
    assert display.ax_.get_title() == "prize (multinomial)"


def test_a_display_draws_again_on_given_axes():
    X = RNG.normal(size=(60, 2))
    display = ClassConditionalDisplay.from_estimator(nbayes.GaussianNB().fit(X, Y), 0)
    _fig, ax = plt.subplots()
    assert display.plot(ax=ax).ax_ is ax and len(ax.lines) == 2


def test_features_that_have_no_single_distribution_are_refused_with_the_reason():
    X = pd.DataFrame({"title": ["cheap red car", "old blue bike"] * 30, "n": RNG.normal(size=60)})
    model = nbayes.MixedNB(columns=[("text", ["title"])]).fit(X, Y)
    with pytest.raises(ParameterError, match="'title' is read as words"):
        ClassConditionalDisplay.from_estimator(model, "title")
    with pytest.raises(ParameterError, match="'nope' is not a column of the model"):
        ClassConditionalDisplay.from_estimator(model, "nope")
    with pytest.raises(ParameterError, match="feature=5 is out of range: the model has 2"):
        model.feature_distribution(5)
    tan = nbayes.TAN().fit(RNG.integers(0, 3, (60, 3)), Y)
    with pytest.raises(NotImplementedError, match="TAN does not model its columns one at"):
        ClassConditionalDisplay.from_estimator(tan, 0)


# -- top features ------------------------------------------------------------------------------
def test_top_features_bars_are_the_log_odds_weights_best_on_top():
    X = RNG.poisson(1, (60, 6))
    X[Y == "b", 4] += 5
    model = nbayes.MultinomialNB().fit(X, Y)
    display = TopFeaturesDisplay.from_estimator(model, k=3)
    assert len(display.axes_) == 2
    for c in ("a", "b"):
        table = model.top_features(c, k=3)
        bars = display.bars_[c]
        assert [b.get_width() for b in bars] == pytest.approx(table["weight"].to_numpy()[::-1])
        names = [t.get_text() for t in display.axes_[["a", "b"].index(c)].get_yticklabels()]
        assert names == table["feature"].tolist()[::-1]
    assert display.bars_["b"][-1].get_width() == pytest.approx(model.coef_[0, 4])
    impact = TopFeaturesDisplay.from_estimator(model, k=2, by="impact", classes=["b"])
    assert [b.get_width() for b in impact.bars_["b"]] == pytest.approx(
        model.top_features("b", k=2, by="impact")["impact"].to_numpy()[::-1]
    )


def test_top_features_with_long_names_draw_without_a_layout_warning():
    # palmerpenguins' "Gentoo penguin (Pygoscelis papua)": nbayes report printed matplotlib's
    # "tight layout not applied", which a user cannot act on.
    long = np.array([f"Gentoo penguin (Pygoscelis papua) of island {c} " * 3 for c in "ab"])
    names = [f"a feature with a rather long name, number {j} " * 2 for j in range(6)]
    X = pd.DataFrame(RNG.poisson(1, (60, 6)), columns=names)
    model = nbayes.MultinomialNB().fit(X, long[(Y == "b").astype(int)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        TopFeaturesDisplay.from_estimator(model, k=6)


def test_top_features_needs_one_axes_per_class():
    model = nbayes.MultinomialNB().fit(RNG.poisson(1, (60, 3)), Y)
    _fig, ax = plt.subplots()
    with pytest.raises(ParameterError, match=r"one Axes per class shown \(2\); got 1"):
        TopFeaturesDisplay.from_estimator(model, ax=ax)


# -- threshold and reliability ------------------------------------------------------------------
def _spam_like():
    X = np.vstack([RNG.poisson(1, (200, 5)), RNG.poisson(2, (100, 5))])
    y = np.array(["ham"] * 200 + ["spam"] * 100)
    return X, y


def test_threshold_display_is_precision_and_recall_of_the_log_odds():
    X, y = _spam_like()
    model = nbayes.MultinomialNB(decision_threshold=1.5).fit(X, y)
    display = ThresholdDisplay.from_estimator(model, X, y)
    precision, recall, thresholds = precision_recall_curve(y == "spam", model.decision_function(X))
    np.testing.assert_allclose(display.precision_line_.get_ydata(), precision[:-1])
    np.testing.assert_allclose(display.recall_line_.get_ydata(), recall[:-1])
    np.testing.assert_allclose(display.recall_line_.get_xdata(), thresholds, rtol=1e-9)
    assert display.threshold_line_.get_xdata()[0] == 1.5
    # the other class: negated odds and threshold
    other = ThresholdDisplay.from_estimator(model, X, y, pos_label="ham")
    assert other.threshold == -1.5
    np.testing.assert_allclose(
        other.thresholds, np.sort(np.unique(-model.decision_function(X))), rtol=1e-9
    )
    proba = nbayes.MultinomialNB(decision_threshold=0.8, threshold_scale="proba").fit(X, y)
    assert ThresholdDisplay.from_estimator(proba, X, y).threshold == pytest.approx(np.log(4))


def test_several_classes_need_a_pos_label():
    X = RNG.poisson(1, (90, 3))
    y = np.repeat(["a", "b", "c"], 30)
    model = nbayes.MultinomialNB().fit(X, y)
    with pytest.raises(ParameterError, match="pos_label is needed with 3 classes"):
        ThresholdDisplay.from_estimator(model, X, y)
    with pytest.raises(UnknownLabelError, match="pos_label='z' is not among the classes"):
        ReliabilityDisplay.from_estimator(model, X, y, pos_label="z")
    display = ThresholdDisplay.from_estimator(model, X, y, pos_label="c")
    lp = model.predict_log_proba(X)
    odds = lp[:, 2] - np.logaddexp(lp[:, 0], lp[:, 1])
    _, recall, _ = precision_recall_curve(y == "c", odds)
    np.testing.assert_allclose(display.recall, recall[:-1])


def test_reliability_display_is_the_calibration_curve():
    X, y = _spam_like()
    model = nbayes.MultinomialNB().fit(X, y)
    display = ReliabilityDisplay.from_estimator(model, X, y, n_bins=5)
    prob_true, prob_pred = calibration_curve(y == "spam", model.predict_proba(X)[:, 1], n_bins=5)
    np.testing.assert_allclose(display.line_.get_xdata(), prob_pred)
    np.testing.assert_allclose(display.line_.get_ydata(), prob_true)
    assert display.ax_.get_xlabel() == "predicted P(spam)"


def test_scikit_learns_confusion_matrix_display_takes_nbayes_models():
    X, y = _spam_like()
    model = nbayes.MultinomialNB().fit(X, y)
    display = ConfusionMatrixDisplay.from_estimator(model, X, y)
    assert display.confusion_matrix.sum() == len(y)
    assert list(display.display_labels) == ["ham", "spam"]


# -- matplotlib stays optional -----------------------------------------------------------------
def test_nbayes_plot_imports_without_matplotlib_and_drawing_says_how_to_install():
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "import nbayes, nbayes.plot\n"
        "model = nbayes.GaussianNB().fit([[0.], [1.], [5.], [6.]], [0, 0, 1, 1])\n"
        "try:\n"
        "    nbayes.plot.ClassConditionalDisplay.from_estimator(model, 0)\n"
        "except ImportError as e:\n"
        "    print(e)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == (
        'nbayes.plot needs matplotlib; install it with: pip install "nbayes[plot]"'
    )


def test_importing_nbayes_does_not_import_matplotlib():
    code = "import sys, nbayes, nbayes.plot; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
