"""Model files of wrappers: estimators that hold fitted nbayes estimators and more.

:data:`nbayes.io._dispatch.KINDS` is the table of the registered estimators
(``nbayes.estimators.REGISTRY``, one entry each). A wrapper is not one of them, so it has
its own closed table, :data:`WRAPPERS`: name -> (class, dump, load, layout check). Its file
holds the models it wraps as their own kinds' layouts under ``model/<i>/`` (one level deep:
a wrapper never holds a wrapper) and what it adds as plain arrays.

:class:`nbayes.calibration.CalibratedClassifierCV` is the one wrapper: per calibrated model,
its fitted estimator and scikit-learn's fitted calibrators as plain numbers -- Platt's sigmoid
as ``a`` and ``b``, isotonic regression as the thresholds ``x`` and ``y`` of its fit (its
interpolation is rebuilt from them, as scikit-learn's own unpickling does), temperature
scaling as ``beta`` -- rebuilt into scikit-learn's objects on load, so predictions are
bit-identical.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..exceptions import ModelFormatError, NotFittedError, ParameterError
from . import _dispatch
from . import _plain as plain

#: Version of the calibration layout inside the format-1 ``state`` (``meta["calibration"]``).
CALIBRATION_VERSION = 1
#: The arrays of one calibrator, by method: name -> (shape, kinds); None: one per threshold.
#: A number is an array of one (model files hold no 0-d arrays).
CALIBRATOR_ARRAYS: dict[str, dict[str, tuple]] = {
    "sigmoid": {"a": ((1,), "f"), "b": ((1,), "f")},
    "isotonic": {"x": ((None,), "f"), "y": ((None,), "f")},
    "temperature": {"beta": ((1,), "f")},
}
#: Constructor parameters stored (``estimator`` as an unfitted registered estimator).
_PARAMS = ("estimator", "method", "cv", "ensemble", "n_jobs")


def _calibrated_class():
    from ..calibration import CalibratedClassifierCV

    return CalibratedClassifierCV


def dump_calibrated(model) -> tuple[dict, dict, dict]:
    """(parameters as tagged JSON, state, arrays) of a fitted CalibratedClassifierCV."""
    if not hasattr(model, "calibrated_classifiers_"):
        raise NotFittedError("not fitted")
    params = model.get_params(deep=False)
    kept = {k: params[k] for k in _PARAMS}
    try:
        plain.to_jsonable(kept["cv"], "cv")
    except ParameterError:
        kept["cv"] = None  # a splitter object: fitting used it; a loaded model needs no folds
    arrays: dict = {"classes": plain.label_array(model.classes_)}
    models = []
    for i, calibrated in enumerate(model.calibrated_classifiers_):  # bounded by the folds
        name = type(calibrated.estimator).__name__
        if name not in _dispatch.KINDS or not isinstance(
            calibrated.estimator, plain.components(vectorisers=False)[name]
        ):
            raise ParameterError(
                f"save() stores calibrations of nbayes estimators only; fold model {i} is a "
                f"{name}. Calibrate one of {sorted(_dispatch.KINDS)}."
            )
        inner_params, inner_meta, inner_arrays = _dispatch.dump(calibrated.estimator)
        arrays.update({f"model/{i}/{k}": v for k, v in inner_arrays.items()})
        increasing = []
        for j, calibrator in enumerate(calibrated.calibrators):  # bounded by the classes
            for key, value in _calibrator_values(model.method, calibrator).items():
                arrays[f"calibrator/{i}/{j}/{key}"] = value
            increasing.append(bool(getattr(calibrator, "increasing_", True)))
        models.append(
            {
                "estimator": name,
                "params": inner_params,
                "state": inner_meta,
                "n_calibrators": len(calibrated.calibrators),
                "increasing": increasing,
            }
        )
    meta: dict[str, Any] = {
        "calibration": {
            "version": CALIBRATION_VERSION,
            "method": model.method,
            "fold_statistics": bool(getattr(model, "fold_statistics_", False)),
            "models": models,
        }
    }
    dtype = plain.label_dtype(model.classes_)
    if dtype is not None:
        meta["classes_dtype"] = dtype
    return plain.to_jsonable(kept, "params"), meta, arrays


def _calibrator_values(method: str, calibrator) -> dict:
    """The plain numbers of one fitted scikit-learn calibrator."""
    if method == "sigmoid":
        return {
            "a": np.array([calibrator.a_], np.float64),
            "b": np.array([calibrator.b_], np.float64),
        }
    if method == "isotonic":
        return {"x": calibrator.X_thresholds_, "y": calibrator.y_thresholds_}
    return {"beta": np.array([calibrator.beta_], dtype=np.float64)}


def calibration_models(meta) -> tuple[str, list]:
    """(method, model entries) of a calibration state, its structure checked."""
    layout = meta.get("calibration") if isinstance(meta, dict) else None
    if not isinstance(layout, dict) or layout.get("version") != CALIBRATION_VERSION:
        version = layout.get("version") if isinstance(layout, dict) else None
        raise ModelFormatError(
            "Model file: CalibratedClassifierCV state lacks its calibration layout, or has a "
            f"version this nbayes does not read (got {version!r}, reads {CALIBRATION_VERSION})."
        )
    method = layout.get("method")
    if method not in CALIBRATOR_ARRAYS:
        raise ModelFormatError(
            f"Model file: calibration method {method!r} is not one of {sorted(CALIBRATOR_ARRAYS)}."
        )
    models = layout.get("models")
    if not isinstance(models, list) or not models or len(models) > 1000:
        raise ModelFormatError("Model file: CalibratedClassifierCV holds no list of models.")
    for i, entry in enumerate(models):  # bounded above
        n = entry.get("n_calibrators") if isinstance(entry, dict) else None
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("estimator"), str)
            or not isinstance(n, int)
            or isinstance(n, bool)
            or not 1 <= n <= 10_000
            or not isinstance(entry.get("increasing"), list)
            or len(entry["increasing"]) != n
            or not all(isinstance(v, bool) for v in entry["increasing"])
        ):
            raise ModelFormatError(f"Model file: CalibratedClassifierCV's model {i} is malformed.")
        if entry["estimator"] not in _dispatch.KINDS:
            raise ModelFormatError(
                f"Model file: CalibratedClassifierCV's model {i} is a {entry['estimator']!r}; "
                f"a calibration holds registered estimators only ({sorted(_dispatch.KINDS)})."
            )
    return method, models


def load_calibrated(params, meta, arrays):
    """The fitted CalibratedClassifierCV of :func:`dump_calibrated` output; never runs code."""
    from sklearn.calibration import _CalibratedClassifier, _SigmoidCalibration

    params = plain.from_jsonable(params, "params")
    if not isinstance(params, dict) or set(params) != set(_PARAMS):
        raise ModelFormatError(
            f"Model file: CalibratedClassifierCV's parameters must be {sorted(_PARAMS)}."
        )
    method, models = calibration_models(meta)
    if params["method"] != method:
        raise ModelFormatError(
            f"Model file: the calibrators are {method!r}; the parameters say {params['method']!r}."
        )
    classes = plain.restore_label_dtype(
        plain.take(arrays, "classes", ndim=1), meta.get("classes_dtype")
    )
    if classes.size < 2 or np.unique(classes).size != classes.size:
        raise ModelFormatError("Model file: 'classes' must hold two or more distinct labels.")
    if params["estimator"] is None or params["ensemble"] not in ("auto", True, False):
        raise ModelFormatError(
            "Model file: CalibratedClassifierCV's parameters need an estimator and an "
            f"ensemble of True, False or 'auto'; got {params['estimator']!r} and "
            f"{params['ensemble']!r}."
        )
    model = _calibrated_class()(**params)
    calibrated = []
    for i, entry in enumerate(models):  # bounded by calibration_models()
        prefix = f"model/{i}/"
        inner = {k.removeprefix(prefix): v for k, v in arrays.items() if k.startswith(prefix)}
        est = _dispatch.load(entry["estimator"], entry.get("params"), entry.get("state"), inner)
        own = np.asarray(est.classes_)
        # Temperature scaling fits its models on the class codes (as scikit-learn does).
        if (
            not (np.all(np.isin(own, classes)) or method == "temperature")
            or own.size > classes.size
        ):
            raise ModelFormatError(f"Model file: model {i} has classes outside 'classes'.")
        want = 1 if method == "temperature" or own.size == 2 else own.size
        if entry["n_calibrators"] != want:
            raise ModelFormatError(
                f"Model file: model {i} has {entry['n_calibrators']} calibrators; its "
                f"{own.size} classes and method {method!r} need {want}."
            )
        calibrators = []
        for j, increasing in enumerate(entry["increasing"]):  # bounded by calibration_models()
            where = f"calibrator/{i}/{j}/"
            if method == "sigmoid":
                calibrator = _SigmoidCalibration()
                calibrator.a_ = np.float64(
                    plain.take(arrays, where + "a", kinds="f", shape=(1,))[0]
                )
                calibrator.b_ = np.float64(
                    plain.take(arrays, where + "b", kinds="f", shape=(1,))[0]
                )
            elif method == "isotonic":
                calibrator = _isotonic(arrays, where, increasing)
            else:
                calibrator = _temperature(arrays, where)
            calibrators.append(calibrator)
        calibrated.append(_CalibratedClassifier(est, calibrators, classes=classes, method=method))
    model.classes_ = classes
    model.calibrated_classifiers_ = calibrated
    model.fold_statistics_ = bool(meta["calibration"].get("fold_statistics"))
    for name in ("n_features_in_", "feature_names_in_"):
        if hasattr(calibrated[0].estimator, name):
            setattr(model, name, getattr(calibrated[0].estimator, name))
    return model


def _isotonic(arrays: dict, where: str, increasing: bool):
    """scikit-learn's fitted IsotonicRegression from its thresholds, as its unpickling
    rebuilds it: sorted distinct x, y in [0, 1] and monotone in the stored direction."""
    from sklearn.isotonic import IsotonicRegression

    x = plain.take(arrays, where + "x", kinds="f", ndim=1)
    y = plain.take(arrays, where + "y", kinds="f", shape=x.shape)
    steps = np.diff(y) if increasing else -np.diff(y)
    if x.size == 0 or np.any(np.diff(x) <= 0) or np.any(steps < 0) or np.any((y < 0) | (y > 1)):
        raise ModelFormatError(
            f"Model file: the isotonic calibrator {where.rstrip('/')!r} needs increasing "
            "thresholds x and probabilities y in [0, 1] that are monotone in x."
        )
    calibrator = IsotonicRegression(out_of_bounds="clip")
    calibrator.increasing_ = increasing
    calibrator.X_min_, calibrator.X_max_ = np.min(x), np.max(x)
    calibrator.X_thresholds_, calibrator.y_thresholds_ = x, y
    calibrator._build_f(x, y)
    return calibrator


def _temperature(arrays: dict, where: str):
    from sklearn.calibration import _TemperatureScaling

    beta = plain.take(arrays, where + "beta", kinds="f", shape=(1,)).reshape(())
    if not beta > 0:
        raise ModelFormatError(
            f"Model file: the temperature calibrator {where.rstrip('/')!r} needs beta > 0."
        )
    calibrator = _TemperatureScaling()
    calibrator.beta_ = beta
    return calibrator


Dump = Callable[[object], tuple[dict, dict, dict]]

#: Wrapper class name -> (the class, dump, load). ``dump(model)`` gives (params, state,
#: arrays) as :func:`nbayes.io._dispatch.dump` does; ``load(params, state, arrays)`` checks
#: them and gives back the fitted wrapper. The arrays its file may declare are checked by
#: :mod:`nbayes.io._declared` (its ``WRAPPER_LAYOUTS``). Kept apart from ``KINDS``, the table
#: of ``nbayes.estimators.REGISTRY``, because a wrapper is no registered estimator.
WRAPPERS: dict[str, tuple[Callable, Dump, Callable]] = {
    "CalibratedClassifierCV": (_calibrated_class, dump_calibrated, load_calibrated),
}


def is_wrapper(model) -> bool:
    """Whether ``model`` is an instance of a class in :data:`WRAPPERS` (that very class)."""
    entry = WRAPPERS.get(type(model).__name__)
    return entry is not None and type(model) is entry[0]()
