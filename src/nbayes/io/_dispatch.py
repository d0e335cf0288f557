"""Model files per estimator kind: one table from kind to (dump, load).

After skops' ``io/_dispatch.py``: persistence is a closed table, not hooks spread through the
classes being saved. Each entry turns the estimator's plain state (``get_state``, part of the
estimator protocol) into the format-1 layout of a model file -- a JSON ``meta`` dict and flat
named numpy arrays -- and back, checking every value read before ``set_state`` sees it.

:data:`KINDS` follows the registry (:func:`nbayes.base.register`): a registered estimator is
written in the layout it was registered with, one of :data:`LAYOUTS`; the estimator itself
imports nothing from :mod:`nbayes.io`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping

import numpy as np

from .. import _registry as registry
from .. import base
from ..columns import Calendar
from ..distributions.statistics import CLASS_COUNT
from ..exceptions import ModelFormatError
from ..seminaive import _counts
from . import _plain as plain
from . import _statistics as statistics

#: Version of MixedNB's column layout inside the format-1 ``state`` (``meta["mixed"]``):
#: 2 adds the calendar features of timestamp columns (``"calendar"``), written only by a
#: model that has some, so that a model without them stays readable by older nbayes.
MIXED_LAYOUT_VERSION = 1
MIXED_LAYOUT_VERSIONS = (1, 2)
_VOCABULARY_PARTS = {"values", "kinds", "column", "code"}


# -- the statistics every BaseNB has ----------------------------------------------------------
def _dump_base(state: dict) -> tuple[dict, dict]:
    """meta and arrays of a BaseNB state: families, classes, feature names, statistics."""
    meta = {
        "n_features_in": int(state["n_features_in"]),
        "families": [plain.family_spec(f) for f in state["families"]],
    }
    # Labels from pandas are an object array; the file stores their items' own type (unicode,
    # int64) and this note, so that a loaded model predicts the same objects.
    dtype = plain.label_dtype(state["classes"])
    if dtype is not None:
        meta["classes_dtype"] = dtype
    stats = state["statistics"]
    arrays = {
        "classes": plain.label_array(state["classes"]),
        **statistics.dump((CLASS_COUNT,), stats, "", "The model"),
    }
    if state["feature_names_in"] is not None:
        arrays["feature_names_in"] = plain.label_array(state["feature_names_in"], "feature names")
    for i, (family, group) in enumerate(zip(state["families"], stats["groups"])):
        arrays.update(statistics.dump_group(family, group, f"stats/{i}/"))
    return meta, arrays


def _load_base(meta: dict, arrays: dict, widths: list[int] | None = None) -> dict:
    """A checked BaseNB state (``layout`` None) from :func:`_dump_base` output.

    ``widths`` are the numbers of columns of the column groups (default: one group of all
    columns). Families are built only from ``nbayes.distributions.REGISTRY``.
    """
    if not isinstance(meta, dict):
        raise ModelFormatError("Model file: the estimator state is not a mapping.")
    n_features = meta.get("n_features_in")
    if not isinstance(n_features, int) or isinstance(n_features, bool) or n_features < 1:
        raise ModelFormatError(
            f"Model file: 'n_features_in' must be a positive integer; got {n_features!r}."
        )
    specs = meta.get("families")
    if not isinstance(specs, list) or not specs:
        raise ModelFormatError("Model file: the list of families is missing or empty.")
    families = [plain.make_family(s, f"family {i}") for i, s in enumerate(specs)]
    classes = plain.take(arrays, "classes", ndim=1)
    n_classes = classes.shape[0]
    if n_classes == 0 or np.unique(classes).shape[0] != n_classes:
        raise ModelFormatError(
            f"Model file: 'classes' must be non-empty and distinct; got {classes.tolist()!r}."
        )
    class_count = statistics.restore((CLASS_COUNT,), arrays, "", n_classes, 0, "the model")
    names = None
    if "feature_names_in" in arrays:
        names = plain.take(arrays, "feature_names_in", kinds="U", shape=(n_features,))
    widths = [n_features] if widths is None else widths
    if len(widths) != len(families):
        raise ModelFormatError(
            f"Model file: {len(families)} families stored for {len(widths)} column groups."
        )
    groups = [
        statistics.restore_group(fam, arrays, f"stats/{i}/", n_classes, fam.block_width(width))
        for i, (fam, width) in enumerate(zip(families, widths))
    ]
    return {
        "n_features_in": n_features,
        "feature_names_in": names,
        "classes": plain.restore_label_dtype(classes, meta.get("classes_dtype")),
        "families": families,
        "statistics": {**class_count, "groups": groups},
        "layout": None,
    }


def _install(model, state: dict) -> None:
    """``model.set_state(state)``; an inconsistency becomes a ModelFormatError, and so do NaN
    parameters (which forged statistics can produce)."""
    try:
        model.set_state(state)
    except ModelFormatError:
        raise
    except (ValueError, TypeError, KeyError) as exc:
        raise ModelFormatError(
            f"Model file: the stored state cannot be restored ({type(model).__name__}): {exc}"
        ) from None
    inner = base.inner_model(model)
    plain.check_params(inner.params_, type(inner).__name__)
    backoff = getattr(model, "backoff_", None)  # JointBayes' fitted backoff model
    if backoff is not None:
        plain.check_params(backoff.params_, type(backoff).__name__)


def _dump_vocabulary(spec: dict, prefix: str) -> tuple[dict, dict]:
    """A vocabulary's JSON part (its first code) and its arrays under ``prefix``."""
    arrays = {f"{prefix}{k}": np.asarray(v) for k, v in spec.items() if k != "first_code"}
    return {"first_code": int(spec["first_code"])}, arrays


def _load_vocabulary(spec, arrays: dict, prefix: str, where: str) -> dict:
    parts = {
        k[len(prefix) :]: plain.take(arrays, k, ndim=1) for k in arrays if k.startswith(prefix)
    }
    if (
        not isinstance(spec, dict)
        or spec.get("first_code") not in (0, 1)
        or set(parts) != _VOCABULARY_PARTS
    ):
        raise ModelFormatError(f"Model file: {where} is malformed.")
    return {"first_code": spec["first_code"], **parts}


# -- the kinds ------------------------------------------------------------------------------------
def dump_preset(state: dict) -> tuple[dict, dict]:
    return _dump_base(state)


def load_preset(meta: dict, arrays: dict) -> dict:
    return _load_base(meta, arrays)


def dump_categorical(state: dict) -> tuple[dict, dict]:
    """CategoricalNB: the generic state plus the vocabulary when it was fitted on values."""
    meta, arrays = _dump_base(state)
    if state["layout"] is not None:
        meta["vocabulary"], more = _dump_vocabulary(state["layout"]["vocabulary"], "vocabulary/")
        arrays.update(more)
    return meta, arrays


def load_categorical(meta: dict, arrays: dict) -> dict:
    state = _load_base(meta, {k: v for k, v in arrays.items() if not k.startswith("vocabulary/")})
    if meta.get("vocabulary") is not None:
        vocabulary = _load_vocabulary(
            meta["vocabulary"], arrays, "vocabulary/", "the category vocabulary"
        )
        state["layout"] = {"vocabulary": vocabulary}
    return state


def dump_mixed(state: dict) -> tuple[dict, dict]:
    """MixedNB: the generic state plus the table layout (column labels, groups, and each
    categorical group's vocabulary)."""
    meta, arrays = _dump_base(state)
    layout = state["layout"]
    specs: list[dict | None] = []
    for g, vocab in enumerate(layout["vocabularies"]):
        if vocab is None:
            specs.append(None)
            continue
        spec, more = _dump_vocabulary(vocab, f"vocabulary/{g}/")
        specs.append(spec)
        arrays.update(more)
    meta["mixed"] = {
        "version": MIXED_LAYOUT_VERSION,
        "columns": plain.to_jsonable(list(layout["columns"]), "column labels"),
        "from_table": bool(layout["from_table"]),
        "positions": [[int(p) for p in pos] for pos in layout["positions"]],
        "vocabularies": specs,
    }
    if layout.get("calendar"):
        meta["mixed"]["version"] = 2
        meta["mixed"]["calendar"] = layout["calendar"]
    if layout.get("choices") is not None:  # the choices table (older files lack it)
        meta["mixed"]["choices"] = plain.to_jsonable(layout["choices"], "column choices")
    return meta, arrays


def load_mixed(meta: dict, arrays: dict) -> dict:
    layout = meta.get("mixed") if isinstance(meta, dict) else None
    if not isinstance(layout, dict) or layout.get("version") not in MIXED_LAYOUT_VERSIONS:
        version = layout.get("version") if isinstance(layout, dict) else None
        raise ModelFormatError(
            "Model file: MixedNB state lacks its column layout, or has a layout version "
            f"this nbayes does not read (got {version!r}, reads {MIXED_LAYOUT_VERSION})."
        )
    columns = plain.from_jsonable(layout.get("columns"), "column labels")
    positions, vocab_specs = layout.get("positions"), layout.get("vocabularies")
    if (
        not isinstance(columns, list)
        or not isinstance(positions, list)
        or not isinstance(vocab_specs, list)
        or len(vocab_specs) != len(positions)
        or not all(
            isinstance(p, list)
            and p
            and all(isinstance(i, int) and not isinstance(i, bool) for i in p)
            for p in positions
        )
    ):
        raise ModelFormatError("Model file: MixedNB column layout is malformed.")
    calendar = layout.get("calendar", []) if layout.get("version") == 2 else []
    try:
        derived = Calendar.from_state(calendar).names(columns)
    except (ValueError, TypeError, IndexError):
        raise ModelFormatError("Model file: MixedNB calendar features are malformed.") from None
    flat = [i for p in positions for i in p]
    if flat and (min(flat) < 0 or max(flat) >= len(columns) or len(set(flat)) != len(flat)):
        raise ModelFormatError(
            "Model file: MixedNB column groups overlap or name columns outside the table."
        )
    vocabularies = [
        None
        if spec is None
        else _load_vocabulary(spec, arrays, f"vocabulary/{g}/", f"vocabulary of column group {g}")
        for g, spec in enumerate(vocab_specs)
    ]
    state = _load_base(
        meta,
        {k: v for k, v in arrays.items() if not k.startswith("vocabulary/")},
        widths=[len(p) for p in positions],
    )
    if state["n_features_in"] + len(derived) != len(columns):
        raise ModelFormatError(
            f"Model file: {len(columns)} column labels for {state['n_features_in']} features "
            f"and {len(derived)} calendar features."
        )
    state["layout"] = {
        "columns": columns,
        "from_table": bool(layout.get("from_table")),
        "positions": [np.asarray(p, dtype=np.intp) for p in positions],
        "vocabularies": vocabularies,
        "calendar": calendar,
    }
    if "choices" in layout:
        state["layout"]["choices"] = plain.from_jsonable(layout["choices"], "column choices")
    return state


def dump_text(state: dict) -> tuple[dict, dict]:
    """TextNB: the vectoriser (parameters and vocabulary) and the classifier's own entry."""
    vec, clf = state["vectorizer"], state["classifier"]
    clf_meta, clf_arrays = KINDS[type(clf).__name__][0](state["classifier_state"])
    meta = {
        "vectorizer": {
            "estimator": type(vec).__name__,
            "params": plain.to_jsonable(vec.get_params(deep=False), "vectorizer"),
        },
        "classifier": {
            "estimator": type(clf).__name__,
            "params": plain.to_jsonable(clf.get_params(deep=False), "classifier"),
            "state": clf_meta,
        },
    }
    arrays = {f"classifier/{k}": v for k, v in clf_arrays.items()}
    if state["vocabulary"] is not None:
        arrays["vocabulary"] = plain.label_array(state["vocabulary"], "vocabulary")
    return meta, arrays


def load_text(meta: dict, arrays: dict) -> dict:
    if not isinstance(meta, dict) or set(meta) != {"vectorizer", "classifier"}:
        raise ModelFormatError("Model file: TextNB state must name a vectorizer and a classifier.")
    parts = {}
    for key in ("vectorizer", "classifier"):
        spec = meta[key]
        if not isinstance(spec, dict) or not {"estimator", "params"} <= set(spec):
            raise ModelFormatError(f"Model file: TextNB's {key} is malformed.")
        parts[key] = plain.build(spec["estimator"], plain.from_jsonable(spec["params"], key), key)
    vec, clf = parts["vectorizer"], parts["classifier"]
    _check_vectorizer(vec)
    kind = KINDS.get(type(clf).__name__)
    if kind is None or not base.supports(clf, base.WORD_COUNTS):
        raise ModelFormatError(f"Model file: TextNB cannot use a {type(clf).__name__}.")
    sub = {
        k.removeprefix("classifier/"): v for k, v in arrays.items() if k.startswith("classifier/")
    }
    clf_state = kind[1](meta["classifier"].get("state"), sub)
    vocabulary = None
    if type(vec).__name__ == "CountVectorizer":
        vocabulary = plain.take(arrays, "vocabulary", kinds="U", ndim=1)
    return {
        "vectorizer": vec,
        "vocabulary": vocabulary,
        "classifier": clf,
        "classifier_state": clf_state,
    }


def _check_vectorizer(vec) -> None:
    """A vectoriser built from a file's parameters reads the texts it is given (never files
    they name) and can turn a text into counts; otherwise the file is refused now, not at the
    first predict."""
    from sklearn.base import clone

    if vec.get_params().get("input") != "content":
        raise ModelFormatError(
            f"Model file: TextNB's vectorizer has input={vec.get_params().get('input')!r}; "
            "model files only hold vectorizers that read texts (input='content')."
        )
    probe = clone(vec)
    if type(vec).__name__ == "CountVectorizer":
        probe.set_params(vocabulary={"probe": 0})  # transform needs some vocabulary
    try:
        probe._validate_params()  # scikit-learn's own parameter constraints
        probe.transform(["probe text"])
    except (ValueError, TypeError, AttributeError, KeyError, IndexError, re.error) as exc:
        raise ModelFormatError(
            f"Model file: TextNB's vectorizer has invalid parameters ({type(exc).__name__}: {exc})."
        ) from None


#: Version of the semi-naive models' column layout inside the format-1 ``state``; 2 adds
#: the table reading (identifiers left out, calendar features).
SEMINAIVE_LAYOUT_VERSION = 1
SEMINAIVE_LAYOUT_VERSIONS = (1, 2)


def dump_seminaive(state: dict) -> tuple[dict, dict]:
    """AODE, TAN, KDB, JointBayes: classes, the count tables, and the column layout (labels,
    numeric flags, the categories' vocabulary, the numeric columns' bin edges)."""
    layout = state["layout"]
    spec, arrays = _dump_vocabulary(layout["vocabulary"], "vocabulary/")
    arrays["classes"] = plain.label_array(state["classes"])
    if state["feature_names_in"] is not None:
        arrays["feature_names_in"] = plain.label_array(state["feature_names_in"], "feature names")
    stats = state["statistics"]
    typed = statistics.dump(_counts.slots_of(stats), stats, "stats/", "A semi-naive model")
    arrays.update(sorted(typed.items()))  # one order, so a loaded model saves the same bytes
    for i, edges in enumerate(layout["edges"]):
        arrays[f"edges/{i}"] = np.asarray(edges, dtype=np.float64)
    meta = {
        "n_features_in": int(state["n_features_in"]),
        "seminaive": {
            "version": SEMINAIVE_LAYOUT_VERSION,
            "columns": plain.to_jsonable(list(layout["columns"]), "column labels"),
            "from_table": bool(layout["from_table"]),
            "numeric": [bool(v) for v in layout["numeric"]],
            "vocabulary": spec,
            "n_edges": len(layout["edges"]),
            "order": _counts.orders(stats),
        },
    }
    kept: dict = meta["seminaive"]  # type: ignore[assignment]
    for key in ("reading", "choices"):  # how a table was read (see estimators/_table_reading)
        if layout.get(key) is not None:
            kept[key] = plain.to_jsonable(layout[key], f"the table's {key}")
    if layout.get("reading") is not None:
        kept["version"] = 2  # a reader of version 1 would model other columns
    if state.get("backoff") is not None:  # JointBayes' fitted backoff model, under backoff/
        name = type(state["params"]["backoff"]).__name__
        inner_meta, inner_arrays = KINDS[name][0](state["backoff"])
        meta["backoff"] = {"estimator": name, "state": inner_meta}
        arrays.update({f"backoff/{k}": v for k, v in inner_arrays.items()})
    return meta, arrays


def _load_backoff(meta: dict, arrays: dict) -> dict | None:
    """The plain state of JointBayes' backoff model (``meta["backoff"]``), or None."""
    spec = meta.get("backoff")
    if spec is None:
        return None
    name = spec.get("estimator") if isinstance(spec, dict) else None
    if not isinstance(name, str) or not may_be_held(name):
        raise ModelFormatError(
            f"Model file: JointBayes' backoff is {name!r}; a backoff is a registered estimator "
            "that holds no model of its own (not JointBayes or TextNB)."
        )
    inner = {k.removeprefix("backoff/"): v for k, v in arrays.items() if k.startswith("backoff/")}
    return {"estimator": name, **KINDS[name][1](spec.get("state"), inner)}


def load_seminaive(meta: dict, arrays: dict) -> dict:
    layout = meta.get("seminaive") if isinstance(meta, dict) else None
    if not isinstance(layout, dict) or layout.get("version") not in SEMINAIVE_LAYOUT_VERSIONS:
        raise ModelFormatError(
            "Model file: the semi-naive model's column layout is missing or of a version this "
            f"nbayes does not read (reads {SEMINAIVE_LAYOUT_VERSION})."
        )
    n_features = meta.get("n_features_in")
    columns = plain.from_jsonable(layout.get("columns"), "column labels")
    numeric, n_edges = layout.get("numeric"), layout.get("n_edges")
    if (
        not isinstance(n_features, int)
        or not isinstance(columns, list)
        or not isinstance(numeric, list)
        or len(columns) != n_features
        or len(numeric) != n_features
        or not all(isinstance(v, bool) for v in numeric)
        or n_edges != sum(numeric)
    ):
        raise ModelFormatError("Model file: the semi-naive model's column layout is malformed.")
    classes = plain.take(arrays, "classes", ndim=1)
    if classes.size == 0 or np.unique(classes).size != classes.size:
        raise ModelFormatError("Model file: 'classes' must be non-empty and distinct.")
    names = None
    if "feature_names_in" in arrays:
        names = plain.take(arrays, "feature_names_in", kinds="U", shape=(n_features,))
    backoff = _load_backoff(meta, arrays)
    slots = statistics.seminaive_slots(layout, arrays, "")
    stats = statistics.restore(
        slots, arrays, "stats/", classes.size, n_features, "the semi-naive model"
    )
    return {
        "n_features_in": n_features,
        "feature_names_in": names,
        "classes": classes,
        "families": [],
        "statistics": stats,
        "layout": {
            "columns": columns,
            "from_table": bool(layout.get("from_table")),
            "numeric": np.asarray(numeric, dtype=bool),
            "vocabulary": _load_vocabulary(
                layout.get("vocabulary"), arrays, "vocabulary/", "the category vocabulary"
            ),
            "edges": [plain.take(arrays, f"edges/{i}", kinds="f", ndim=1) for i in range(n_edges)],
            **{
                key: plain.from_jsonable(layout[key], f"the table's {key}")
                for key in ("reading", "choices")
                if key in layout and (key != "reading" or layout.get("version") == 2)
            },
        },
        **({} if backoff is None else {"backoff": backoff}),
    }


Dump = Callable[[dict], tuple[dict, dict]]
Load = Callable[[dict, dict], dict]

#: Model-file layout (:data:`nbayes._registry.LAYOUTS`) -> (dump, load). ``dump(state)`` turns
#: the plain state of a fitted model (its ``get_state()``) into the format-1 ``state`` (JSON)
#: and arrays of a model file; ``load(state, arrays)`` checks them and gives back a plain
#: state for ``set_state``.
LAYOUTS: dict[str, tuple[Dump, Load]] = {
    "preset": (dump_preset, load_preset),
    "categorical": (dump_categorical, load_categorical),
    "mixed": (dump_mixed, load_mixed),
    "text": (dump_text, load_text),
    "seminaive": (dump_seminaive, load_seminaive),
}


class _Kinds(Mapping):
    """Registered estimator class name -> (dump, load) of its layout, read from the registry
    (:func:`nbayes.base.register`) on each use, so that a model registered later is in it."""

    @staticmethod
    def _layouts() -> dict[str, str]:
        from .. import estimators  # noqa: F401 -- importing it registers the shipped models

        return {name: r.layout for name, r in registry.registrations().items()}

    def __getitem__(self, name: str) -> tuple[Dump, Load]:
        return LAYOUTS[self._layouts()[name]]

    def __iter__(self) -> Iterator[str]:
        return iter(self._layouts())

    def __len__(self) -> int:
        return len(self._layouts())


#: Estimator class name -> (dump, load), one entry per registered model.
KINDS: Mapping[str, tuple[Dump, Load]] = _Kinds()


def may_be_held(name) -> bool:
    """Whether a registered estimator of this name may be stored inside another model (a
    TextNB's classifier, a JointBayes' backoff): one that holds no model of its own, so that
    a file's models nest one level deep."""
    if not isinstance(name, str) or name not in KINDS:
        return False
    return not base.supports(plain.build(name, {}, name), base.HOLDS_MODEL)


def dump(model) -> tuple[dict, dict, dict]:
    """(parameters as tagged JSON, state, arrays) of a fitted registered estimator."""
    state = model.get_state()
    meta, arrays = KINDS[type(model).__name__][0](state)
    return plain.to_jsonable(state["params"], "params"), meta, arrays


def load(name, params, meta, arrays):
    """The fitted estimator of class ``name`` from :func:`dump` output; never runs code."""
    params = plain.from_jsonable(params, "params")
    if not isinstance(params, dict):
        raise ModelFormatError("Model file: 'params' is not a mapping.")
    model = plain.build(name, params, "estimator")
    if name not in KINDS:
        raise ModelFormatError(f"Model file: {name} cannot be restored.")
    _install(model, KINDS[name][1](meta, arrays))
    return model
