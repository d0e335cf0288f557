"""ONNX nodes that score one column group: each family's class scores from its fitted tables.

Every emitter takes the group's input as one (N, m) double tensor (NaN for a missing cell;
category codes for the categorical family) and returns the name of an (N, K) double tensor of
class scores, the ONNX form of ``Family.joint_log_likelihood``. Emitters are found by the
family's registry name (:data:`EMITTERS`), never by its class.

What nbayes refuses at predict time (a missing value where ``missing="error"``, an unseen
category where ``unseen="error"``) has no error path in a graph: such a cell scores NaN, so the
row's probabilities are NaN rather than a silent answer.
"""

from __future__ import annotations

import numpy as np
from onnx import TensorProto, numpy_helper

from ..exceptions import ParameterError

#: Opset of the default domain the graphs are written for (ReduceSum takes its axes as input).
OPSET = 15
#: Code that the string and number look-ups give a value outside the vocabulary.
UNSEEN = -2.0


class Graph:
    """Thin helper over skl2onnx's scope and container: unique names, constants and nodes."""

    def __init__(self, scope, container):
        self.scope, self.container = scope, container

    def const(self, value, name: str = "c") -> str:
        """An initializer holding ``value`` (float64 unless it is already integer or text)."""
        out = self.scope.get_unique_variable_name(name)
        arr = np.asarray(value)
        if arr.dtype.kind in "OUS":
            flat = [str(v) for v in arr.ravel()]
            self.container.add_initializer(out, TensorProto.STRING, list(arr.shape), flat)
            return out
        if arr.dtype.kind not in "iub":
            arr = arr.astype(np.float64)
        self.container.add_initializer(out, None, None, numpy_helper.from_array(arr, out))
        return out

    def op(self, op_type: str, inputs, domain: str = "", version=None, **attrs) -> str:
        """Add one node and return the name of its (single) output."""
        out = self.scope.get_unique_variable_name(op_type.lower())
        self.container.add_node(
            op_type,
            list(inputs),
            [out],
            op_domain=domain,
            op_version=version if version is not None else (OPSET if domain == "" else 2),
            name=self.scope.get_unique_operator_name(op_type),
            **attrs,
        )
        return out

    def add_all(self, names: list[str]) -> str:
        """The sum of one or more tensors of the same shape."""
        total = names[0]
        for name in names[1:]:  # bounded: a few groups or tables
            total = self.op("Add", [total, name])
        return total

    def to_double(self, name: str) -> str:
        return self.op("Cast", [name], to=TensorProto.DOUBLE)

    def where_nan(self, x: str, fill: float = 0.0) -> str:
        """``x`` with NaN cells replaced by ``fill``."""
        return self.op("Where", [self.op("IsNaN", [x]), self.const(np.array(fill)), x])


def _split_inf(table: np.ndarray):
    """(finite part, 0/1 indicator of -inf cells or None) of a log-probability table."""
    hit = np.isneginf(table)
    return np.where(hit, 0.0, table), (hit.astype(np.float64) if hit.any() else None)


def table_scores(g: Graph, terms) -> str:
    """``sum_i X_i @ W_i.T`` over ``terms`` of (X (N, m) with non-negative entries, W (K, m)),
    where a positive entry times a -inf weight makes the class impossible (-inf) and a zero
    entry times -inf adds nothing, as the families' split products do."""
    parts, hits = [], []
    for x, W in terms:  # bounded: a family's one or two tables
        finite, hit = _split_inf(np.asarray(W, dtype=np.float64))
        parts.append(g.op("MatMul", [x, g.const(finite.T, "w")]))
        if hit is not None:
            hits.append(g.op("MatMul", [x, g.const(hit.T, "hit")]))
    total = g.add_all(parts)
    if not hits:
        return total
    impossible = g.op("Greater", [g.add_all(hits), g.const(np.array(0.0))])
    return g.op("Where", [impossible, g.const(np.array(-np.inf)), total])


def _observed(g: Graph, family, x: str) -> tuple[str, str | None]:
    """(x with missing cells 0, 0/1 tensor of observed cells or None) under the family's
    ``missing`` policy: NaN stays in x (and makes the score NaN) unless missing is ignored."""
    if family.missing != "ignore":
        return x, None
    observed = g.op("Cast", [g.op("Not", [g.op("IsNaN", [x])])], to=TensorProto.DOUBLE)
    return g.where_nan(x), observed


def _ones_like(g: Graph, x: str) -> str:
    return g.op("Add", [g.op("Mul", [x, g.const(np.array(0.0))]), g.const(np.array(1.0))])


def bernoulli(g: Graph, family, params, x: str) -> str:
    params = family.ready(params)
    if family.binarize is not None:
        nan = g.op("IsNaN", [x])
        above = g.to_double(g.op("Greater", [x, g.const(np.array(float(family.binarize)))]))
        x = g.op("Where", [nan, g.const(np.array(np.nan)), above])
    x0, observed = _observed(g, family, x)
    observed = observed if observed is not None else _ones_like(g, x0)
    zeros = g.op("Sub", [observed, x0])
    return table_scores(g, [(x0, params["log_p"]), (zeros, params["log_1mp"])])


def multinomial(g: Graph, family, params, x: str) -> str:
    x0, _ = _observed(g, family, x)
    return table_scores(g, [(x0, family.ready(params)["log_theta"])])


def poisson(g: Graph, family, params, x: str) -> str:
    params = family.ready(params)
    x0, observed = _observed(g, family, x)
    observed = observed if observed is not None else _ones_like(g, x0)
    return table_scores(g, [(x0, params["log_rate"]), (observed, -params["rate"])])


def _per_cell(g: Graph, family, x: str, terms) -> str:
    """Sum over features of ``terms(x3)``, an (N, K, m) tensor made from x as (N, 1, m);
    a missing cell adds 0 where missing values are ignored."""
    x3 = g.op("Unsqueeze", [x, g.const(np.array([1], dtype=np.int64))])
    t = terms(x3)
    if family.missing == "ignore":
        t = g.op("Where", [g.op("IsNaN", [x3]), g.const(np.array(0.0)), t])
    return g.op("ReduceSum", [t, g.const(np.array([2], dtype=np.int64))], keepdims=0)


def gaussian(g: Graph, family, params, x: str) -> str:
    mean, var = params["mean"], params["var"]
    if "dof" in params:  # the Student-t posterior predictive
        from scipy.special import gammaln

        nu = params["dof"]
        const = gammaln((nu + 1) / 2) - gammaln(nu / 2) - 0.5 * np.log(nu * np.pi * var)

        def terms(x3):
            z = g.op("Div", [g.op("Sub", [x3, g.const(mean)]), g.const(np.sqrt(nu * var))])
            log1p = g.op("Log", [g.op("Add", [g.op("Mul", [z, z]), g.const(np.array(1.0))])])
            return g.op("Add", [g.const(const), g.op("Mul", [log1p, g.const(-(nu + 1) / 2)])])

    else:

        def terms(x3):
            z = g.op("Div", [g.op("Sub", [x3, g.const(mean)]), g.const(np.sqrt(var))])
            square = g.op("Mul", [z, z])
            half = g.op("Mul", [square, g.const(np.array(-0.5))])
            return g.op("Add", [half, g.const(-0.5 * np.log(2 * np.pi * var))])

    return _per_cell(g, family, x, terms)


def _lookup(g: Graph, index: str, table: np.ndarray) -> str:
    """Sum over features of ``table[index]``: ``index`` (N, m) int64 rows of ``table``
    (rows, K); gathered to (N, m, K) and summed to (N, K)."""
    rows = g.op("Gather", [g.const(table, "table"), index], axis=0)
    return g.op("ReduceSum", [rows, g.const(np.array([1], dtype=np.int64))], keepdims=0)


def categorical(g: Graph, family, params, codes: str) -> str:
    """Codes as doubles: 0..K_j-1 known, NaN or -1 missing, anything else unseen."""
    params = family.ready(params)
    log_theta = params["log_theta"]
    n_cat = params["n_categories"].astype(np.float64)
    K, total, m = log_theta.shape[0], log_theta.shape[1], n_cat.size
    offsets = np.concatenate([[0.0], np.cumsum(n_cat)[:-1]])
    # Rows: every (feature, category) of log theta, then the row of a missing cell, then one
    # row per feature for its unseen values.
    missing_row = np.zeros((1, K)) if family.missing == "ignore" else np.full((1, K), np.nan)
    if family.unseen == "smooth":
        unseen_rows = params["log_unseen"].T
    elif family.unseen == "ignore":
        unseen_rows = np.zeros((m, K))
    else:
        unseen_rows = np.full((m, K), np.nan)
    table = np.vstack([log_theta.T, missing_row, unseen_rows])
    zero = g.const(np.array(0.0))
    missing = g.op("Or", [g.op("IsNaN", [codes]), g.op("Equal", [codes, g.const(np.array(-1.0))])])
    whole = g.op("Equal", [g.op("Floor", [codes]), codes])
    known = g.op(
        "And",
        [
            g.op("And", [g.op("GreaterOrEqual", [codes, zero]), whole]),
            g.op("Less", [codes, g.const(n_cat)]),
        ],
    )
    safe = g.op("Where", [known, codes, zero])
    row = g.op(
        "Where",
        [
            known,
            g.op("Add", [safe, g.const(offsets)]),
            g.op(
                "Where",
                [missing, g.const(np.array(float(total))), g.const(total + 1.0 + np.arange(m))],
            ),
        ],
    )
    return _lookup(g, g.op("Cast", [row], to=TensorProto.INT64), table)


def density(g: Graph, family, params, x: str) -> str:
    """The binned and normal readings; a kernel density's interpolated lattice is refused."""
    params = family.ready(params)
    gauss_cols, kde_cols, bin_cols = params["columns"]
    if kde_cols.size:
        raise ParameterError(
            f"The {family.name} family reads {kde_cols.size} column(s) as kernel densities, "
            "whose interpolated lattice and Gaussian tails the ONNX export does not write. "
            "Fit with density='binned' or 'gaussian' (or reading=...) to export."
        )
    parts = []
    if gauss_cols.size:
        cols = g.const(gauss_cols.astype(np.int64))
        sub = g.op("Gather", [x, cols], axis=1)
        gp = params["gaussian"]
        parts.append(gaussian(g, family, {"mean": gp["mean"], "var": gp["var"]}, sub))
    if bin_cols.size:
        table = params["bin_log"][:, bin_cols]  # (K, m, B)
        K, m, B = table.shape
        sub = g.op("Gather", [x, g.const(bin_cols.astype(np.int64))], axis=1)
        missing = g.op("IsNaN", [sub])
        scale = np.ldexp(1.0, (-params["level"][bin_cols]).astype(np.int32))
        b = g.op("Floor", [g.op("Mul", [g.where_nan(sub), g.const(scale)])])
        b = g.op("Sub", [b, g.const(params["start"][bin_cols].astype(np.float64))])
        b = g.op("Clip", [b, g.const(np.array(0.0)), g.const(np.array(B - 1.0))])
        flat = g.op("Add", [b, g.const(np.arange(m) * float(B))])
        missing_row = 0.0 if family.missing == "ignore" else np.nan
        rows = np.vstack([table.transpose(1, 2, 0).reshape(m * B, K), np.full((1, K), missing_row)])
        flat = g.op("Where", [missing, g.const(np.array(m * float(B))), flat])
        parts.append(_lookup(g, g.op("Cast", [flat], to=TensorProto.INT64), rows))
    return g.add_all(parts)


#: Family registry name -> emitter of its class scores.
EMITTERS = {
    "bernoulli": bernoulli,
    "multinomial": multinomial,
    "complement": multinomial,
    "poisson": poisson,
    "gaussian": gaussian,
    "categorical": categorical,
    "binned": density,
    "density": density,
}

#: Why the other families are not exported.
REFUSED = {
    "kde": "its interpolated kernel-density lattice and Gaussian tails are not written as ONNX",
    "text": "its tokeniser and vectoriser have no ONNX form that matches nbayes' words",
}
