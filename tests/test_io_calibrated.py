"""Calibrated models in the safe model files: the inner nbayes estimators as their own kinds'
layouts, scikit-learn's calibrators as plain numbers, rebuilt on load; forged files refused."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest

import nbayes
from nbayes import GaussianNB, MultinomialNB, TextNB
from nbayes.calibration import CalibratedClassifierCV
from nbayes.exceptions import ModelFormatError, ParameterError

METHODS = ["sigmoid", "isotonic", "temperature"]


def counts(n_classes=3, n=240, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    X = rng.poisson(1 + 2 * (y[:, None] == np.arange(6) % n_classes), (n, 6))
    return X, y


def round_trip(model, tmp_path):
    return nbayes.load(nbayes.save(model, tmp_path / "calibrated.nbayes"))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("ensemble", [True, False])
@pytest.mark.parametrize("labels", ["codes", "two", "strings"])
def test_predictions_are_bit_identical_after_a_round_trip(method, ensemble, labels, tmp_path):
    X, y = counts()
    y = {"codes": y, "two": y % 2, "strings": np.array(["ham", "eggs", "spam"])[y]}[labels]
    model = CalibratedClassifierCV(MultinomialNB(), method=method, cv=3, ensemble=ensemble)
    model.fit(X, y)
    loaded = round_trip(model, tmp_path)
    assert type(loaded) is CalibratedClassifierCV
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert np.array_equal(loaded.predict(X), model.predict(X))
    assert np.array_equal(loaded.classes_, model.classes_)
    assert loaded.get_params()["method"] == method
    assert loaded.fold_statistics_ == model.fold_statistics_
    assert len(loaded.calibrated_classifiers_) == (3 if ensemble else 1)


@pytest.mark.parametrize("method", METHODS)
def test_gaussian_and_text_models_round_trip(method, tmp_path):
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 120)
    X = rng.normal(y[:, None], 1.0, (120, 3))
    model = CalibratedClassifierCV(
        GaussianNB(decision_threshold=0.7, threshold_scale="proba"), method=method, cv=4
    ).fit(X, y)
    loaded = round_trip(model, tmp_path)
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))
    assert np.array_equal(loaded.predict(X), model.predict(X))
    assert loaded.threshold() == model.threshold()

    words = np.array(["cheap", "offer", "win", "meeting", "lunch", "report"])
    texts = [" ".join(rng.choice(words[3 * c : 3 * c + 3], 4)) for c in y]
    text = CalibratedClassifierCV(TextNB(), method=method, cv=3).fit(texts, y)
    loaded = round_trip(text, tmp_path)
    assert np.array_equal(loaded.predict_proba(texts), text.predict_proba(texts))


def test_a_splitter_is_not_stored_and_not_needed_to_predict(tmp_path):
    from sklearn.model_selection import StratifiedKFold

    X, y = counts()
    model = CalibratedClassifierCV(MultinomialNB(), cv=StratifiedKFold(3)).fit(X, y)
    loaded = round_trip(model, tmp_path)
    assert loaded.get_params()["cv"] is None
    assert np.array_equal(loaded.predict_proba(X), model.predict_proba(X))


def test_calibrations_of_other_estimators_and_unfitted_ones_are_refused(tmp_path):
    from sklearn.linear_model import LogisticRegression

    X, y = counts()
    other = CalibratedClassifierCV(LogisticRegression(), cv=3).fit(X, y)
    with pytest.raises(ParameterError, match="calibrations of nbayes estimators only"):
        nbayes.save(other, tmp_path / "other.nbayes")
    with pytest.raises(nbayes.exceptions.NotFittedError):
        nbayes.save(CalibratedClassifierCV(MultinomialNB()), tmp_path / "unfitted.nbayes")


# -- forged files ---------------------------------------------------------------------------
def rewrite(source, target, edit=None, arrays=None):
    """Copy a model file with ``edit(manifest)`` applied and the arrays of ``arrays``
    ({name: values}) replaced, declared as they are."""
    with zipfile.ZipFile(source) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        members = {n: zf.read(n) for n in zf.namelist() if n != "manifest.json"}
    for name, values in (arrays or {}).items():
        buf = io.BytesIO()
        np.save(buf, values, allow_pickle=False)
        members[f"arrays/{name}.npy"] = buf.getvalue()
        manifest["arrays"][name] = {"shape": list(values.shape), "dtype": values.dtype.str}
    if edit is not None:
        edit(manifest)
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("manifest.json", json.dumps(manifest))
        for name, data in members.items():
            zf.writestr(name, data)
    return target


@pytest.fixture(params=METHODS)
def calibrated(request, tmp_path):
    X, y = counts()
    model = CalibratedClassifierCV(MultinomialNB(), method=request.param, cv=3).fit(X, y)
    return request.param, nbayes.save(model, tmp_path / "good.nbayes")


def state(manifest):
    return manifest["state"]["calibration"]


def test_a_calibrator_array_outside_the_layout_is_refused(calibrated, tmp_path):
    _, path = calibrated
    forged = rewrite(path, tmp_path / "f.nbayes", arrays={"calibrator/0/9/a": np.ones(1)})
    with pytest.raises(ModelFormatError, match="which a CalibratedClassifierCV model file"):
        nbayes.load(forged)


def test_a_wrapper_inside_a_calibration_is_refused(calibrated, tmp_path):
    _, path = calibrated

    def nest(manifest):
        state(manifest)["models"][0]["estimator"] = "CalibratedClassifierCV"

    with pytest.raises(ModelFormatError, match="registered estimators only"):
        nbayes.load(rewrite(path, tmp_path / "f.nbayes", edit=nest))


def test_a_method_other_than_the_calibrators_is_refused(calibrated, tmp_path):
    method, path = calibrated
    other = "isotonic" if method == "sigmoid" else "sigmoid"

    def params_say(manifest):
        manifest["params"]["__dict__"]["method"] = other

    def unknown(manifest):
        state(manifest)["method"] = "magic"

    with pytest.raises(ModelFormatError, match="the parameters say"):
        nbayes.load(rewrite(path, tmp_path / "f.nbayes", edit=params_say))
    with pytest.raises(ModelFormatError, match="'magic' is not one of"):
        nbayes.load(rewrite(path, tmp_path / "g.nbayes", edit=unknown))


@pytest.mark.parametrize("method", ["sigmoid", "isotonic"])  # temperature: one calibrator
def test_a_count_of_calibrators_other_than_the_classes_need_is_refused(method, tmp_path):
    X, y = counts()
    model = CalibratedClassifierCV(MultinomialNB(), method=method, cv=3).fit(X, y)
    path = nbayes.save(model, tmp_path / "good.nbayes")

    def fewer(manifest):
        state(manifest)["models"][0]["n_calibrators"] = 2
        state(manifest)["models"][0]["increasing"] = [True, True]
        for key in [k for k in manifest["arrays"] if k.startswith("calibrator/0/2/")]:
            del manifest["arrays"][key]

    def drop_members(path_in, path_out):
        with zipfile.ZipFile(path_in) as zf, zipfile.ZipFile(path_out, "w") as out:
            for name in zf.namelist():
                if not name.startswith("arrays/calibrator/0/2/"):
                    out.writestr(name, zf.read(name))
        return path_out

    forged = drop_members(rewrite(path, tmp_path / "f.nbayes", edit=fewer), tmp_path / "g.nbayes")
    with pytest.raises(ModelFormatError, match="has 2 calibrators; its 3 classes"):
        nbayes.load(forged)


def test_calibrator_values_that_no_fit_gives_are_refused(tmp_path):
    X, y = counts()
    iso = nbayes.save(
        CalibratedClassifierCV(MultinomialNB(), method="isotonic", cv=3).fit(X, y),
        tmp_path / "iso.nbayes",
    )
    with zipfile.ZipFile(iso) as zf:
        x = np.load(io.BytesIO(zf.read("arrays/calibrator/0/0/x.npy")))
        y0 = np.load(io.BytesIO(zf.read("arrays/calibrator/0/0/y.npy")))
    for name, values in [("x", x[::-1].copy()), ("y", np.where(y0 > 0.5, 2.0, y0))]:
        forged = rewrite(
            iso, tmp_path / f"{name}.nbayes", arrays={f"calibrator/0/0/{name}": values}
        )
        with pytest.raises(ModelFormatError, match="needs increasing thresholds x"):
            nbayes.load(forged)
    temp = nbayes.save(
        CalibratedClassifierCV(MultinomialNB(), method="temperature", cv=3).fit(X, y),
        tmp_path / "temp.nbayes",
    )
    forged = rewrite(temp, tmp_path / "beta.nbayes", arrays={"calibrator/0/0/beta": -np.ones(1)})
    with pytest.raises(ModelFormatError, match="needs beta > 0"):
        nbayes.load(forged)
    sig = nbayes.save(
        CalibratedClassifierCV(MultinomialNB(), cv=3).fit(X, y), tmp_path / "s.nbayes"
    )
    forged = rewrite(sig, tmp_path / "nan.nbayes", arrays={"calibrator/0/0/a": np.full(1, np.nan)})
    with pytest.raises(ModelFormatError, match="NaN"):
        nbayes.load(forged)


def test_an_inner_model_bomb_is_refused_unread(calibrated, tmp_path, monkeypatch):
    _, path = calibrated

    def widen(manifest):
        manifest["arrays"]["model/0/class_count"] = {"shape": [4_000_000], "dtype": "<f8"}

    forged = rewrite(path, tmp_path / "f.nbayes", edit=widen)
    opened = []
    real = zipfile.ZipFile.open
    monkeypatch.setattr(
        zipfile.ZipFile,
        "open",
        lambda self, n, *a, **k: opened.append(getattr(n, "filename", n)) or real(self, n, *a, **k),
    )
    with pytest.raises(ModelFormatError, match="'model/0/class_count' with shape"):
        nbayes.load(forged)
    assert opened == ["manifest.json"]


@pytest.mark.parametrize(
    "where, message",
    [
        ("classes", "must declare classes as a 1-D array"),
        ("model/0/classes", "must declare model/0/classes as a 1-D array"),
    ],
)
def test_classes_declared_other_than_one_dimensional_are_refused(
    calibrated, tmp_path, where, message
):
    _, path = calibrated

    def two_d(manifest):
        manifest["arrays"][where]["shape"] = [3, 1]

    with pytest.raises(ModelFormatError, match=message):
        nbayes.load(rewrite(path, tmp_path / "f.nbayes", edit=two_d))


def test_the_layout_check_refuses_what_load_would_not_hand_it():
    # load() checks the manifest's shape and the estimator's name first; the layout check
    # holds on its own for any other caller.
    from nbayes.io import _declared

    with pytest.raises(ModelFormatError, match="not a mapping"):
        _declared.check("CalibratedClassifierCV", [1], {})
    with pytest.raises(ModelFormatError, match="'NoSuchNB' is not a registered estimator"):
        _declared.check("NoSuchNB", {}, {})
