"""ONNX export of nbayes models through skl2onnx's converter registry.

Importing this module (``from nbayes.export import to_onnx`` does) registers a shape
calculator and a converter for every nbayes classifier with ``skl2onnx``, so that
``skl2onnx.to_onnx(model, X[:1])`` converts nbayes models alone or inside a scikit-learn
pipeline, with skl2onnx's usual outputs: ``label`` and ``probabilities`` (a ZipMap of them
unless ``options={"zipmap": False}``).

The graph is derived from the fitted parameters, group by group (``_onnx_families``):

* inputs: one per column, named as the column, where skl2onnx is given a DataFrame (numbers
  as double with NaN for a missing value; category values as strings, with ``""`` standing
  for a missing one), else one (N, d) matrix;
* each column group's class scores by its family (dispatched on the family's name), their sum
  plus the class prior where the scores use it, and a softmax; a row that every class rules
  out gets the uniform posterior, as in nbayes.
"""

from __future__ import annotations

try:  # the install hint, before anything needs onnx or skl2onnx
    import onnx  # noqa: F401
    import skl2onnx  # type: ignore[import-untyped]  # noqa: F401
except ImportError as exc:  # pragma: no cover - exercised only without the extra
    raise ImportError(
        "nbayes.export.to_onnx needs onnx and skl2onnx; install them with: "
        'pip install "nbayes[export]"'
    ) from exc

import numpy as np
import pandas as pd
from onnx import TensorProto
from skl2onnx import convert_sklearn, update_registered_converter
from skl2onnx import to_onnx as _skl2onnx_to_onnx
from skl2onnx.common.data_types import (  # type: ignore[import-untyped]
    DoubleTensorType,
    FloatTensorType,
    Int64TensorType,
    StringTensorType,
)

from .. import _engine as engine
from .._capabilities import CANDIDATE_SCORING, TEXT_INPUT, supports
from ..estimators._base import log_odds_threshold
from ..exceptions import ParameterError
from ._advice import derived_fix, family_fix
from ._onnx_families import EMITTERS, OPSET, REFUSED, UNSEEN, Graph

#: Target opsets of the graphs: the default domain and ai.onnx.ml (LabelEncoder, ZipMap).
TARGET_OPSET = {"": OPSET, "ai.onnx.ml": 2}
#: What a missing category value is written as in a string input.
MISSING_STRING = ""


def _refuse(model, why: str) -> ParameterError:
    return ParameterError(f"{type(model).__name__} cannot be exported to ONNX: {why}.")


def _check_exportable(model) -> None:
    """Raise a ParameterError saying why ``model`` has no ONNX form."""
    if supports(model, TEXT_INPUT):
        raise _refuse(
            model,
            f"it reads raw texts, and {REFUSED['text']}. Export a MultinomialNB fitted on "
            "word counts instead, counted where the model is served",
        )
    # The models that score as the engine does -- a sum of per-group family terms plus the
    # class prior -- are those that declare candidate scoring (the seminaive models, which
    # condition features on each other, and wrappers do not).
    if not supports(model, CANDIDATE_SCORING) or not hasattr(model, "params_"):
        raise _refuse(
            model,
            "its scores are not sums of per-column family terms (TAN, KDB, AODE and "
            "JointBayes condition features on each other; wrappers hold another model). "
            "Export the naive Bayes model it is built on instead",
        )
    classes = np.asarray(model.classes_)
    if classes.dtype.kind not in "iuUSO" or (
        classes.dtype.kind == "O" and not all(isinstance(c, str) for c in classes)
    ):
        raise _refuse(
            model,
            f"its labels must be integers or strings for ONNX; got {classes.dtype} "
            f"({', '.join(map(str, classes[:3]))}). Fit it on the labels as strings "
            "(y.astype(str)) or integer codes; from the command line, write the target "
            "column as words (yes/no) or whole numbers; or export --format sql, whose "
            "prediction column keeps any label",
        )
    groups = getattr(model, "column_groups_", None) or [(None, None)] * len(model.families_)
    for fam, (_, cols) in zip(model.families_, groups):  # bounded by the column groups
        if fam.name in REFUSED:
            where = (
                f"columns {[f'x{c}' if isinstance(c, int) else str(c) for c in cols][:3]} use"
                if cols is not None
                else "it uses"
            )
            raise _refuse(
                model,
                f"{where} the {fam.name} family, and {REFUSED[fam.name]}. To export it, "
                f"{family_fix(fam.name, cols or [])}",
            )
        if fam.name not in EMITTERS:
            raise _refuse(model, f"the {fam.name} family has no ONNX converter")


def _groups(model) -> list:
    """Per column group: (family, params, input column indices, categories per column or
    None). Categories are the values in code order (None: the model reads codes)."""
    names = getattr(model, "feature_names_in_", None)
    index: dict = (
        {str(n): j for j, n in enumerate(names)}
        if names is not None
        else {j: j for j in range(model.n_features_in_)}
    )
    if hasattr(model, "column_groups_"):  # a model over column groups (MixedNB)
        categories = model.categories_
        groups = []
        for (_, labels), fam, p in zip(model.column_groups_, model.families_, model.params_):
            key = [str(c) if names is not None else c for c in labels]
            absent = [c for c in key if c not in index]
            if absent:
                raise _refuse(
                    model,
                    f"columns {absent!r} are derived from others (calendar features of a date), "
                    f"which the ONNX export does not compute. To export it, {derived_fix(absent)}",
                )
            cats = [categories[c] for c in labels] if fam.name == "categorical" else None
            groups.append((fam, p, [index[c] for c in key], cats))
        return groups
    cats = getattr(model, "categories_", None)
    return [(model.families_[0], model.params_[0], list(range(model.n_features_in_)), cats)]


def _first_code(model) -> int:
    """1 where code 0 is reserved for the "missing" category (missing="category")."""
    return int(getattr(model, "missing", None) == "category")


def _is_text(var) -> bool:
    return isinstance(var.type, StringTensorType)


class _Columns:
    """The model's input columns, from one (N, d) input or one (N, 1) input per column."""

    def __init__(self, g: Graph, model, inputs):
        self.g, self.inputs = g, list(inputs)
        n = self.width = model.n_features_in_
        if len(self.inputs) not in (1, n):
            raise ParameterError(
                f"{type(model).__name__} takes {n} columns: give ONNX one (N, {n}) input or "
                f"one input per column; got {len(self.inputs)} inputs."
            )

    def text(self, j: int) -> bool:
        return _is_text(self.inputs[0] if len(self.inputs) == 1 else self.inputs[j])

    def raw(self, j: int) -> str:
        """Column j as an (N, 1) tensor of the input's type."""
        if len(self.inputs) > 1:
            return self.inputs[j].full_name
        idx = self.g.const(np.array([j], dtype=np.int64))
        return self.g.op("Gather", [self.inputs[0].full_name, idx], axis=1)

    def numbers(self, cols: list[int]) -> str:
        """Columns ``cols`` as one (N, m) double tensor."""
        for j in cols:
            if self.text(j):
                raise ParameterError(
                    f"Input column {j} is a string tensor, but the model reads numbers there; "
                    "give ONNX a double input for it."
                )
        if len(self.inputs) == 1:
            x = self.g.to_double(self.inputs[0].full_name)
            if cols == list(range(self.width)):
                return x
            return self.g.op("Gather", [x, self.g.const(np.array(cols, dtype=np.int64))], axis=1)
        parts = [self.g.to_double(self.inputs[j].full_name) for j in cols]
        return parts[0] if len(parts) == 1 else self.g.op("Concat", parts, axis=1)


def _codes(g: Graph, columns: _Columns, j: int, values, first_code: int) -> str:
    """Column j's category values as (N, 1) double codes: known values their code, a missing
    value -1 (0 under missing="category"), anything else :data:`UNSEEN`."""
    codes = first_code + np.arange(len(values), dtype=np.int64)
    missing = 0 if first_code else -1
    x = columns.raw(j)
    if columns.text(j):
        keys = [str(v) for v in values]
        vals = codes.tolist()
        if MISSING_STRING not in keys:
            keys.append(MISSING_STRING)
            vals.append(missing)
        coded = g.op(
            "LabelEncoder",
            [x],
            domain="ai.onnx.ml",
            keys_strings=keys,
            values_int64s=vals,
            default_int64=int(UNSEEN),
        )
        return g.to_double(coded)
    numeric = [v for v in values if isinstance(v, (int, float, np.integer, np.floating, bool))]
    if len(numeric) != len(values):
        raise ParameterError(
            f"Input column {j} holds numbers, but the model's categories there are text; give "
            "ONNX a string input for it (a DataFrame column of str)."
        )
    x = g.to_double(x)
    known = np.asarray(values, dtype=np.float64)
    nan = g.op("IsNaN", [x])
    fallback = g.op("Where", [nan, g.const(np.array(float(missing))), g.const(np.array(UNSEEN))])
    if not known.size:
        return fallback
    equal = g.to_double(g.op("Equal", [x, g.const(known[None, :])]))  # (N, V)
    found = g.op("ReduceSum", [equal, g.const(np.array([1], dtype=np.int64))], keepdims=1)
    code = g.op("MatMul", [equal, g.const(codes[:, None].astype(np.float64))])
    return g.op("Where", [g.op("Greater", [found, g.const(np.array(0.0))]), code, fallback])


def _class_scores(g: Graph, model, inputs) -> str:
    """(N, K) double: log P(x, y) up to a term per row, as nbayes scores it."""
    columns = _Columns(g, model, inputs)
    first_code = _first_code(model)
    scores = []
    for fam, params, cols, cats in _groups(model):  # bounded by the column groups
        if cats is None:
            x = columns.numbers(cols)
        else:
            parts = [_codes(g, columns, j, values, first_code) for j, values in zip(cols, cats)]
            x = parts[0] if len(parts) == 1 else g.op("Concat", parts, axis=1)
        scores.append(EMITTERS[fam.name](g, fam, params, x))
    total = g.add_all(scores)
    log_prior = np.asarray(model.class_log_prior_, dtype=np.float64)
    if engine.uses_class_prior(model.families_, log_prior.shape[0]):
        total = g.op("Add", [total, g.const(log_prior[None, :], "log_prior")])
    return total


def _option(operator, name: str, default):
    """A converter option the user gave skl2onnx for this model (``zipmap``, ``nocl``)."""
    return operator.scope_inst.get_options(operator.raw_operator, {name: default})[name]


def _label_type(operator):
    """String labels for string classes; int64 for integer classes and under ``nocl`` (the
    class's index for its name, skl2onnx's option)."""
    text = np.asarray(operator.raw_operator.classes_).dtype.kind in "USO"
    return StringTensorType if text and not _option(operator, "nocl", False) else Int64TensorType


def _double_probabilities(operator) -> bool:
    """Double probabilities for a double first input (skl2onnx's parser declares the
    per-class outputs of ``zipmap="columns"`` by that rule), but float for a ZipMap of dicts,
    the only type the ZipMap operator takes."""
    zipmap = _option(operator, "zipmap", True)
    return isinstance(operator.inputs[0].type, DoubleTensorType) and zipmap is not True


def shape_calculator(operator) -> None:
    """skl2onnx's shape calculator: ``label`` (N,) and ``probabilities`` (N, K).

    Parameters
    ----------
    operator : skl2onnx operator
        Holds the model (``raw_operator``), its inputs and the outputs to type.
    """
    model = operator.raw_operator
    _check_exportable(model)
    n = operator.inputs[0].get_first_dimension()
    operator.outputs[0].type = _label_type(operator)([n])
    proba = DoubleTensorType if _double_probabilities(operator) else FloatTensorType
    operator.outputs[1].type = proba([n, len(model.classes_)])


def converter(scope, operator, container) -> None:
    """skl2onnx's converter: the class scores of every column group, normalised.

    Parameters
    ----------
    scope : skl2onnx scope
        Makes unique names.
    operator : skl2onnx operator
        Holds the model (``raw_operator``), its inputs and outputs.
    container : skl2onnx container
        Receives the nodes and initializers.
    """
    model = operator.raw_operator
    _check_exportable(model)
    g = Graph(scope, container)
    jll = _class_scores(g, model, operator.inputs)
    n_classes = len(model.classes_)
    # A row that every class rules out (all -inf) gets the uniform posterior, as in nbayes.
    ruled_out = g.to_double(g.op("IsInf", [jll], detect_positive=0))
    n_out = g.op("ReduceSum", [ruled_out, g.const(np.array([1], dtype=np.int64))], keepdims=1)
    none_left = g.op("Equal", [n_out, g.const(np.array(float(n_classes)))])
    jll = g.op("Where", [none_left, g.const(np.array(0.0)), jll])
    to = TensorProto.DOUBLE if _double_probabilities(operator) else TensorProto.FLOAT
    proba = g.op("Cast", [g.op("Softmax", [jll], axis=1)], to=to)
    best = _decision(g, model, jll, _option(operator, "threshold", None))
    if _label_type(operator) is StringTensorType:
        label = g.op("Gather", [g.const(np.asarray(model.classes_).astype(str)), best], axis=0)
    elif _option(operator, "nocl", False):
        label = best
    else:
        classes = np.asarray(model.classes_).astype(np.int64)
        label = g.op("Gather", [g.const(classes, "classes"), best], axis=0)
    container.add_node("Identity", [label], [operator.outputs[0].full_name])
    container.add_node("Identity", [proba], [operator.outputs[1].full_name])


def _decision(g: Graph, model, jll: str, threshold: float | None) -> str:
    """(N,) int64: the index of the predicted class, as ``predict`` decides: by the log-odds
    threshold of two classes (``threshold``, else the model's ``decision_threshold``), else
    the most probable class. A row that both classes rule out has log-odds 0."""
    if threshold is None:
        threshold = log_odds_threshold(
            getattr(model, "decision_threshold", None),
            getattr(model, "threshold_scale", "log_odds"),
            len(model.classes_),
        )
    if threshold is None:
        return g.op("ArgMax", [jll], axis=1, keepdims=0)
    if len(model.classes_) != 2:
        raise ParameterError(
            f"threshold applies to a model of two classes; this one has "
            f"{len(model.classes_)}. Leave threshold=None."
        )
    second, first = (g.op("Gather", [jll, g.const(np.array(k))], axis=1) for k in (1, 0))
    diff = g.op("Sub", [second, first])
    diff = g.op("Where", [g.op("IsNaN", [diff]), g.const(np.array(0.0)), diff])
    above = g.op("Greater", [diff, g.const(np.array(float(threshold)))])
    return g.op("Cast", [above], to=TensorProto.INT64)


def _register() -> None:
    """Register the converter for every nbayes classifier (those with predict_proba)."""
    import nbayes

    for name in nbayes.__all__:  # bounded: the package's public names
        cls = getattr(nbayes, name)
        if isinstance(cls, type) and hasattr(cls, "predict_proba"):
            update_registered_converter(
                cls,
                f"Nbayes{name}",
                shape_calculator,
                converter,
                options={
                    "zipmap": [True, False, "columns"],
                    "nocl": [True, False],
                    "threshold": None,
                },
            )


_register()


def _initial_types(model) -> list:
    """Inputs for a fitted model without example rows: one per column for a model fitted
    on a DataFrame (strings where the model keeps category values as text), else one matrix."""
    _check_exportable(model)
    n = model.n_features_in_
    text = np.zeros(n, dtype=bool)
    for _, _, cols, cats in _groups(model):  # bounded by the column groups
        for j, values in zip(cols, cats or []):
            text[j] = any(isinstance(v, str) for v in values)
    names = getattr(model, "feature_names_in_", None)
    if names is not None or (text.any() and not text.all()):
        labels = names if names is not None else [f"x{j}" for j in range(n)]
        return [
            (str(c), StringTensorType([None, 1]) if t else DoubleTensorType([None, 1]))
            for c, t in zip(labels, text)
        ]
    return [("X", StringTensorType([None, n]) if text.all() and n else DoubleTensorType([None, n]))]


def _example(X):
    """X's first row for skl2onnx, a DataFrame's text columns as object with ``""`` for a
    missing value (skl2onnx guesses no input type for pandas' Arrow-backed strings)."""
    if not isinstance(X, pd.DataFrame):
        return X[:1]
    head = X.iloc[:1].copy()
    for name in head.columns:  # bounded by the columns
        if head[name].dtype.kind not in "iufb":
            head[name] = head[name].astype(object).fillna(MISSING_STRING)
    return head


def to_onnx(model, X=None, threshold: float | None = None, **options):
    """Convert a fitted nbayes model into an ONNX graph that gives the same labels and
    probabilities.

    Parameters
    ----------
    model : fitted nbayes classifier
        BernoulliNB, MultinomialNB, ComplementNB, PoissonNB, GaussianNB, CategoricalNB,
        DensityNB (binned and normal readings) or MixedNB over those families.
    X : array-like or DataFrame, optional
        Example rows that give the inputs, as for ``skl2onnx.to_onnx``: a DataFrame gives one
        input per column, named as the column. By default the inputs are derived from the
        model: one per column for a model fitted on a DataFrame (double, or string for
        category values), else one (N, d) double (string) matrix named ``X``.
    threshold : float, optional
        Log-odds of ``classes_[1]`` above which a two-class ``label`` is ``classes_[1]``
        (``nbayes train --threshold``); by default the model's own rule, its
        ``decision_threshold`` or else the most probable class. Also a converter option of
        skl2onnx (``options={model: {"threshold": t}}``).
    **options
        The converter options of skl2onnx for the model, e.g. ``zipmap=False`` for a plain
        (N, K) probability tensor instead of a list of dicts.

    Returns
    -------
    onnx.ModelProto
        Outputs ``label`` (N,) and ``probabilities``.

    Raises
    ------
    ParameterError
        The model, or one of its families, has no ONNX form; the message says why.

    Notes
    -----
    A missing number is NaN; a missing category value in a string input is ``""`` (unless
    ``""`` is itself a category of that column). Where nbayes would raise at predict (a
    missing value under ``missing="error"``, an unseen category under ``unseen="error"``),
    the row's probabilities are NaN.

    Examples
    --------
    >>> import numpy as np, onnxruntime as ort
    >>> from nbayes import MultinomialNB
    >>> from nbayes.export import to_onnx
    >>> X = np.array([[2.0, 0.0], [0.0, 3.0]])
    >>> model = MultinomialNB().fit(X, ["a", "b"])
    >>> onx = to_onnx(model, zipmap=False)
    >>> session = ort.InferenceSession(onx.SerializeToString())
    >>> label, proba = session.run(None, {"X": X})
    >>> label.tolist()
    ['a', 'b']
    """
    if threshold is not None:
        options["threshold"] = float(threshold)
    opts = {id(model): options} if options else None
    if X is not None:
        onx = _skl2onnx_to_onnx(model, _example(X), options=opts, target_opset=TARGET_OPSET)
        return (
            _name_inputs(onx, [str(c) for c in X.columns]) if isinstance(X, pd.DataFrame) else onx
        )
    initial = _initial_types(model)
    onx = convert_sklearn(model, initial_types=initial, options=opts, target_opset=TARGET_OPSET)
    return _name_inputs(onx, [name for name, _ in initial])


def _name_inputs(onx, names: list[str]):
    """``onx`` with its inputs named ``names``, the columns' own names: skl2onnx replaces
    every character outside ``[A-Za-z0-9_]`` (``"Colour name"`` becomes ``Colour_name``,
    ``"a-b"`` and ``"a b"`` both ``a_b`` and ``a_b1``), while an ONNX name may be any string."""
    renamed = {
        given.name: name for given, name in zip(onx.graph.input, names) if given.name != name
    }
    if not renamed:
        return onx
    for given in onx.graph.input:  # bounded by the columns
        given.name = renamed.get(given.name, given.name)
    for node in onx.graph.node:  # bounded by the graph's nodes
        node.input[:] = [renamed.get(i, i) for i in node.input]
    return onx
