"""nbayes.calibration.CalibratedClassifierCV against scikit-learn's over the same nbayes
estimator and the same folds (issue 33): equal probabilities, fold models from statistics."""

from __future__ import annotations

import tarfile

import numpy as np
import pandas as pd
import pytest
from _adult import ADULT_COLUMNS
from sklearn.calibration import CalibratedClassifierCV as SklearnCalibrated
from sklearn.datasets import load_digits
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.model_selection import KFold, RepeatedStratifiedKFold, StratifiedKFold

import nbayes
from nbayes.calibration import CalibratedClassifierCV
from nbayes.exceptions import DataError, ParameterError

METHODS = ["sigmoid", "isotonic", "temperature"]


def _rows(n: int, total: int, seed: int = 0) -> np.ndarray:
    """A fixed random subsample of ``n`` of ``total`` rows (test time)."""
    return np.sort(np.random.default_rng(seed).choice(total, min(n, total), replace=False))


def _weights(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).choice([0.0, 0.5, 1.0, 3.0], n, p=[0.05, 0.2, 0.5, 0.25])


def _sms(shared_data, n=1500):
    df = pd.read_csv(
        shared_data / "sms_spam_collection" / "SMSSpamCollection",
        sep="\t",
        header=None,
        names=["label", "text"],
        quoting=3,
        dtype=str,
        keep_default_na=False,
    )
    df = df.iloc[_rows(n, len(df))]
    return df["text"].tolist(), df["label"].to_numpy()


def _enron(shared_data, n=1200):
    texts, labels = [], []
    with tarfile.open(shared_data / "enron_spam_enron1" / "enron1.tar.gz") as tar:
        for member in tar:
            parts = member.name.split("/")
            if member.isfile() and len(parts) == 3 and parts[1] in ("ham", "spam"):
                texts.append(tar.extractfile(member).read().decode("latin-1"))
                labels.append(parts[1])
    rows = _rows(n, len(texts), 1)
    return [texts[i] for i in rows], np.array(labels)[rows]


def _spambase(shared_data, n=1500):
    data = np.loadtxt(shared_data / "spambase" / "spambase.data", delimiter=",")
    data = data[_rows(n, len(data), 2)]
    return data[:, :-1], data[:, -1].astype(int)


def _adult(shared_data, n=3000):
    df = pd.read_csv(
        shared_data / "adult" / "adult.data.gz",
        names=ADULT_COLUMNS,
        skipinitialspace=True,
        na_values="?",
    ).dropna(how="all")
    df = df.iloc[_rows(n, len(df), 3)].reset_index(drop=True)
    df["capital-gain"] = df["capital-gain"].replace([99999], np.nan)  # the missing-value code
    return df.drop(columns="income"), df["income"].to_numpy()


def _text(n_features=2**14):
    vectorizer = HashingVectorizer(n_features=n_features, alternate_sign=False, norm=None)
    return nbayes.TextNB(vectorizer=vectorizer)


def assert_same(estimator, X, y, X_new, *, cv, w=None, methods=METHODS, temperature_atol=1e-9):
    """Both calibrations over ``estimator`` and the folds ``cv``, for every method and both
    ensemble settings: our fold models come from statistics, and the probabilities agree.

    Temperature scaling minimises a log-loss that is flat at its minimum, so its fitted
    temperature moves by about sqrt(eps) when the scores move by eps: where (total - fold)
    statistics of real-valued columns round differently from a refit's sums (about 1e-14),
    ``temperature_atol`` allows for that, as scikit-learn's own result moves under such a
    change of its scores."""
    for method in methods:
        for ensemble in (True, False):
            ours = CalibratedClassifierCV(estimator, method=method, cv=cv, ensemble=ensemble)
            theirs = SklearnCalibrated(estimator, method=method, cv=cv, ensemble=ensemble)
            ours.fit(X, y, sample_weight=w)
            theirs.fit(X, y, sample_weight=w)
            assert ours.fold_statistics_, (method, ensemble)
            assert len(ours.calibrated_classifiers_) == len(theirs.calibrated_classifiers_)
            np.testing.assert_array_equal(ours.classes_, theirs.classes_)
            np.testing.assert_allclose(
                ours.predict_proba(X_new),
                theirs.predict_proba(X_new),
                rtol=0,
                atol=temperature_atol if method == "temperature" else 1e-9,
                err_msg=f"method={method}, ensemble={ensemble}",
            )
            np.testing.assert_array_equal(ours.predict(X_new), theirs.predict(X_new))


def test_sms_text_equals_scikit_learn(shared_data):
    texts, y = _sms(shared_data)
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    assert_same(_text(), texts, y, texts[:400], cv=cv, w=_weights(len(y)))


def test_enron_word_counts_equal_scikit_learn(shared_data):
    texts, y = _enron(shared_data)
    counts = HashingVectorizer(n_features=2**14, alternate_sign=False, norm=None).transform(texts)
    assert_same(nbayes.MultinomialNB(alpha=0.5), counts.tocsr(), y, counts[:400], cv=3)


def test_spambase_equals_scikit_learn(shared_data):
    X, y = _spambase(shared_data)
    w = _weights(len(y), 2)
    assert_same(nbayes.GaussianNB(), X, y, X[:500], cv=KFold(4, shuffle=True, random_state=1), w=w)
    assert_same(nbayes.BernoulliNB(binarize=0.0), X, y, X[:500], cv=3, methods=["sigmoid"])


def test_adult_mixed_equals_scikit_learn(shared_data):
    X, y = _adult(shared_data)
    # Integer columns with at most 200 values are categories in every fold alike (see
    # tests/test_model_selection.py): both calibrations then read the same families.
    mixed = nbayes.MixedNB(max_int_categories=200)
    w = _weights(len(y), 3)
    assert_same(mixed, X, y, X.iloc[:500], cv=3, w=w, temperature_atol=1e-7)


def test_multi_class_digits_equal_scikit_learn():
    X, y = load_digits(return_X_y=True)
    rows = _rows(900, len(y), 4)
    X, y = X[rows], y[rows]
    assert_same(nbayes.MultinomialNB(), X, y, X[:300], cv=3, w=_weights(len(y), 4))
    # Pixels constant within a class make the default variance floor's log-likelihoods
    # huge, so that the rounding of (total - fold) statistics moves them by 1e-7; a floor
    # of 1% of the largest variance keeps the scores in a range where both agree to 1e-14.
    gaussian = nbayes.GaussianNB(var_smoothing=1e-2)
    assert_same(gaussian, X, y, X[:300], cv=3, methods=["temperature", "sigmoid"])


def test_labels_are_read_as_the_estimators_read_them():
    # One reading of labels (fit_classes and label_codes), not a LabelEncoder of its own.
    X = np.random.default_rng(0).normal(size=(30, 2))
    y = np.array(["b", "a", "c"] * 10, dtype=object)
    model = CalibratedClassifierCV(nbayes.GaussianNB(), cv=3).fit(X, y)
    np.testing.assert_array_equal(model.classes_, nbayes.GaussianNB().fit(X, y).classes_)
    y[4] = None
    message = r"The label at row 4 is missing \(None\)"
    with pytest.raises(DataError, match=message):
        nbayes.GaussianNB().fit(X, y)
    with pytest.raises(DataError, match=message):
        CalibratedClassifierCV(nbayes.GaussianNB(), cv=3).fit(X, y)


def test_string_labels_with_temperature_scaling():
    X, y = load_digits(return_X_y=True)
    names = np.array(["zero", "one", "two"])[y[y < 3]]
    assert_same(nbayes.MultinomialNB(), X[y < 3], names, X[:50], cv=3, methods=["temperature"])
    # a table of categories, three string classes, every method
    table = pd.DataFrame(X[:600, :8].astype(int), columns=[f"p{i}" for i in range(8)])
    labels = np.array(["a", "b", "c"])[y[:600] % 3]
    categorical = nbayes.CategoricalNB(unseen="smooth")  # a held-out fold has unseen codes
    assert_same(categorical, table, labels, table.iloc[:100], cv=3, w=_weights(600, 5))


def test_models_without_fold_statistics_are_refitted_as_scikit_learn_does():
    X, y = load_digits(return_X_y=True)
    X, y = (X[y < 2] > 4).astype(int), y[y < 2]
    tan = nbayes.TAN()
    ours = CalibratedClassifierCV(tan, cv=3).fit(X, y)
    theirs = SklearnCalibrated(tan, cv=3).fit(X, y)
    assert not ours.fold_statistics_
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-12)
    # a TextNB that learns its vocabulary: each fold's model has its own words
    texts = ["cash prize now", "lunch at noon", "win cash", "meet at noon"] * 6
    labels = ["spam", "ham", "spam", "ham"] * 6
    ours = CalibratedClassifierCV(nbayes.TextNB(), cv=3).fit(texts, labels)
    theirs = SklearnCalibrated(nbayes.TextNB(), cv=3).fit(texts, labels)
    assert not ours.fold_statistics_
    np.testing.assert_allclose(ours.predict_proba(texts), theirs.predict_proba(texts), atol=1e-12)
    # repeated splits cannot give one out-of-fold value per row: scikit-learn's refusal
    repeated = RepeatedStratifiedKFold(n_splits=2, n_repeats=2, random_state=0)
    with pytest.raises(ValueError, match="partition"):
        CalibratedClassifierCV(nbayes.BernoulliNB(), cv=repeated, ensemble=False).fit(X, y)
    ours = CalibratedClassifierCV(nbayes.BernoulliNB(), cv=repeated).fit(X, y)
    assert ours.fold_statistics_ and len(ours.calibrated_classifiers_) == 4


@pytest.mark.parametrize("scale, threshold", [("log_odds", 1.5), ("proba", 0.8)])
def test_a_decision_threshold_acts_on_the_calibrated_probability(scale, threshold):
    X, y = load_digits(return_X_y=True)
    X, y = X[y < 2], y[y < 2]
    est = nbayes.GaussianNB(decision_threshold=threshold, threshold_scale=scale)
    model = CalibratedClassifierCV(est, method="isotonic", cv=3).fit(X, y)
    plain = CalibratedClassifierCV(nbayes.GaussianNB(), method="isotonic", cv=3).fit(X, y)
    proba = model.predict_proba(X)
    np.testing.assert_array_equal(proba, plain.predict_proba(X))  # proba unchanged
    p_cut = threshold if scale == "proba" else 1 / (1 + np.exp(-threshold))
    np.testing.assert_array_equal(model.predict(X), (proba[:, 1] > p_cut).astype(int))
    assert model.threshold() == pytest.approx(np.log(p_cut / (1 - p_cut)))
    # without a threshold the rule is scikit-learn's argmax of the calibrated probability
    np.testing.assert_array_equal(plain.predict(X), np.argmax(proba, axis=1))


def test_a_threshold_needs_two_classes():
    X, y = load_digits(return_X_y=True)
    model = CalibratedClassifierCV(nbayes.MultinomialNB(decision_threshold=0.0), cv=3)
    with pytest.raises(ParameterError, match="two classes"):
        model.fit(X[:300], y[:300]).predict(X[:5])


def test_bad_parameters_say_what_to_pass():
    X, y = load_digits(return_X_y=True)
    with pytest.raises(ParameterError, match="needs an estimator"):
        CalibratedClassifierCV().fit(X, y)
    with pytest.raises(ParameterError, match="'method' must be one of"):
        CalibratedClassifierCV(nbayes.MultinomialNB(), method="platt").fit(X, y)
    with pytest.raises(ParameterError, match="fewer folds"):
        CalibratedClassifierCV(nbayes.MultinomialNB(), cv=5).fit(X[:12], y[:12])


def test_a_calibrated_model_saves_and_loads_with_the_same_probabilities(tmp_path):
    X, y = load_digits(return_X_y=True)
    model = CalibratedClassifierCV(nbayes.MultinomialNB(), cv=3).fit(X[:300], y[:300])
    loaded = nbayes.load(nbayes.save(model, tmp_path / "calibrated.nbayes"))
    assert np.array_equal(loaded.predict_proba(X[300:]), model.predict_proba(X[300:]))


@pytest.mark.parametrize("method", ["sigmoid", "isotonic", "temperature"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_decision_values_and_calibrators_are_scikit_learns(method, n_classes):
    # The decision values and the one-vs-rest targets come without scikit-learn's checks of
    # the labels and classes: the same values and calibrators, to the last bit.
    from sklearn.calibration import _fit_calibrator
    from sklearn.utils._response import _get_response_values

    from nbayes.calibration._out_of_fold import RESPONSE_METHODS, fit_calibrator, response

    rng = np.random.default_rng(0)
    classes = np.array(["ant", "bee", "cat"][:n_classes])
    codes = rng.integers(0, n_classes, 300)
    X = rng.poisson(1.0 + codes[:, None] * (np.arange(4) < 2), (300, 4))
    model = nbayes.MultinomialNB().fit(X, classes[codes])
    values, w = response(model, X), rng.random(300)
    expected, _ = _get_response_values(model, X, response_method=RESPONSE_METHODS)
    np.testing.assert_array_equal(values, expected.reshape(300, -1))
    y = codes if method == "temperature" else classes[codes]  # as scikit-learn passes it
    ours = fit_calibrator(model, values, y, codes, classes, method, sample_weight=w)
    theirs = _fit_calibrator(model, values, y, classes, method, xp=np, sample_weight=w)
    assert len(ours.calibrators) == len(theirs.calibrators)
    for mine, reference in zip(ours.calibrators, theirs.calibrators):  # bounded: 3
        for name, value in vars(reference).items():  # the fitted attributes
            if name != "f_":  # isotonic's interpolant of the thresholds compared here
                np.testing.assert_array_equal(getattr(mine, name), value, err_msg=name)
    np.testing.assert_array_equal(ours.predict_proba(X), theirs.predict_proba(X))
