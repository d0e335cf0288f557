"""The report's pictures of models beyond one column at a time: the learned structure of TAN,
KDB and AODE, each feature's share of the evidence over DATA, JointBayes' joint and backoff
rows, and the parameters table with long values folded.

Each function returns the HTML parts of one section (see :mod:`._html`); ``report`` places
them.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._html import details, figure, note, table

#: Rows of DATA explained for the share of evidence (and checked for JointBayes' table).
EVIDENCE_ROWS = 2000
#: Bars of the share-of-evidence chart at most (the largest shares).
EVIDENCE_BARS = 40
#: Cells of one explanation block (rows x classes x features): bounds its memory.
EXPLAIN_CELLS = 4_000_000
#: A parameter value longer than this (as text) is folded into a collapsible detail.
LONG_VALUE = 80


def _figure(width: float, height: float):
    from matplotlib.figure import Figure

    return Figure(figsize=(width, height))


# -- the structure -------------------------------------------------------------------------------
def _tree_layout(parents: dict[str, list[str]]) -> dict[str, tuple[float, float]]:
    """(depth, row) of every feature, laid out as a tree along each feature's first (strongest)
    parent: roots at depth 0, leaves on consecutive rows, a parent level with the middle of its
    children. Rows grow with the leaves, so 50+ features stay legible (a taller figure)."""
    children: dict[str, list[str]] = {name: [] for name in parents}
    roots = []
    for name, pa in parents.items():  # bounded by the features
        (children[pa[0]] if pa else roots).append(name)
    place: dict[str, tuple[float, float]] = {}
    next_row = 0.0

    def visit(name: str, depth: int) -> float:
        nonlocal next_row
        rows = [visit(child, depth + 1) for child in children[name]]
        row = float(np.mean(rows)) if rows else next_row
        if not rows:
            next_row += 1
        place[name] = (depth, row)
        return row

    for root in roots:  # a tree (TAN) or a DAG along first parents (KDB): no cycles
        visit(root, 0)
    return place


def _draw_structure(ax, parents: dict[str, list[str]], mi: pd.Series, cmi: pd.DataFrame):
    place = _tree_layout(parents)
    n_rows = max(row for _, row in place.values()) + 1
    depth = max(d for d, _ in place.values()) + 1
    top = (n_rows - 1) / 2
    ax.annotate(
        "class",
        (-1.2, top),
        ha="center",
        va="center",
        fontsize=10,
        fontweight="bold",
        bbox={"boxstyle": "round", "fc": "#ddf4ff", "ec": "#0969da"},
    )
    for x, y in place.values():  # the class is every feature's parent
        ax.plot([-1.2, x], [top, y], color="#0969da", alpha=0.12, lw=0.8, zorder=0)
    shade = mi / mi.max() if mi.max() > 0 else mi * 0
    for name, pa in parents.items():  # bounded by the features x k
        for i, parent in enumerate(pa):
            (x0, y0), (x1, y1) = place[parent], place[name]
            ax.annotate(
                "",
                (x1, y1),
                (x0, y0),
                arrowprops={
                    "arrowstyle": "-|>",
                    "color": "#57606a" if i == 0 else "#bc4c00",
                    "lw": 1.0,
                    "shrinkA": 14,
                    "shrinkB": 14,
                    "connectionstyle": "arc3" if i == 0 else "arc3,rad=0.25",
                    "linestyle": "-" if i == 0 else "--",
                },
            )
            ax.text(
                (x0 + x1) / 2,
                (y0 + y1) / 2 + (0 if i == 0 else 0.25),
                f"{cmi.loc[name, parent]:.3f}",
                fontsize=7,
                ha="center",
                va="center",
                color="#57606a" if i == 0 else "#bc4c00",
                bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8},
            )
    for name, (x, y) in place.items():
        ax.text(
            x,
            y,
            str(name),
            ha="center",
            va="center",
            fontsize=8,
            bbox={"boxstyle": "round", "fc": (1, 1 - 0.35 * shade[name], 0.75), "ec": "#57606a"},
        )
    ax.set_xlim(-1.8, depth - 0.4)
    ax.set_ylim(n_rows - 0.4, -0.6)
    ax.set_axis_off()


def _draw_pairs(ax, cmi: pd.DataFrame):
    """AODE: every feature is in turn every other's parent, so the picture is the matrix of
    the edges' conditional mutual information."""
    image = ax.imshow(cmi.to_numpy(), cmap="Oranges")
    labels = [str(c) for c in cmi.columns]
    ax.set_xticks(range(len(labels)), labels, rotation=90, fontsize=7)
    ax.set_yticks(range(len(labels)), labels, fontsize=7)
    if len(labels) <= 16:
        for (i, j), value in np.ndenumerate(cmi.to_numpy()):
            if i != j:
                ax.text(j, i, f"{value:.2f}", ha="center", va="center", fontsize=6)
    ax.figure.colorbar(image, ax=ax, label="I(X_i; X_j | class), nats", shrink=0.8)


def structure(est) -> list[str]:
    """The learned structure with the conditional mutual information of its edges, or [] for
    a model without pair counts (naive Bayes, JointBayes)."""
    measures = getattr(est, "mutual_information", None)
    if not callable(measures):
        return []
    try:
        mi, cmi = measures()
    except NotImplementedError:
        return []
    parents = getattr(est, "structure_", None)
    if parents is not None:
        n_rows = max(row for _, row in _tree_layout(parents).values()) + 1
        depth = max(d for d, _ in _tree_layout(parents).values()) + 1
        fig = _figure(min(2.0 + 2.2 * depth, 16), max(2.5, 0.5 * n_rows))
        _draw_structure(fig.subplots(), parents, mi, cmi)
        text = (
            "The learned structure: an arrow from each feature's parent, labelled with "
            "I(child; parent | class) in nats (a dashed arrow: a further parent); the class "
            "(faint lines) is every feature's parent; the redder a feature, the more it tells "
            "of the class alone (I(X; class))."
        )
        return [note(text), figure(fig, "learned structure")]
    side = min(3.0 + 0.3 * len(mi), 16)
    fig = _figure(side + 1.5, side)
    _draw_pairs(fig.subplots(), cmi)
    text = (
        "AODE has no single structure: every feature is in turn the parent of all the others "
        "(a super-parent). The matrix shows each pair's I(X_i; X_j | class) in nats: the "
        "dependences that the averaged estimators capture and naive Bayes ignores."
    )
    return [note(text), figure(fig, "conditional mutual information of feature pairs")]


def joint_counts(est, inputs) -> list[str]:
    """JointBayes: how many rows of DATA its joint table scored and how many its backoff."""
    scored = getattr(est, "scored_by_joint", None)
    if not callable(scored) or inputs is None:
        return []
    own = np.asarray(scored(inputs))
    rows = [
        ["joint table (the whole vector seen in training)", int(own.sum())],
        ["backoff model", int((~own).sum())],
    ]
    return [
        "<h3>Joint table and backoff</h3>",
        table(rows, ["scored by", "rows"]),
        note(f"Over the first {len(own):,} rows of DATA."),
    ]


# -- the evidence --------------------------------------------------------------------------------
def evidence_share(est, inputs) -> pd.Series:
    """Each feature's share of the evidence: the mean absolute contribution to the log-odds
    of the predicted class against the runner-up (``explain``) over the rows, summed to 1."""
    rows = inputs.iloc[:EVIDENCE_ROWS]
    total = None
    step = max(1, EXPLAIN_CELLS // max(1, len(est.classes_) * _n_features(est)))
    for start in range(0, len(rows), step):  # bounded: EVIDENCE_ROWS rows
        ex = est.explain(rows.iloc[start : start + step])
        part = np.abs(ex.contributions).sum(axis=0)
        total = part if total is None else total + part
    names = [str(n) for n in ex.feature_names]
    share = pd.Series(total, index=names) / max(float(total.sum()), 1e-300)
    return share.sort_values(ascending=False, kind="stable")


def _n_features(est) -> int:
    names = getattr(est, "get_feature_names_out", None)
    try:
        return len(names()) if callable(names) else int(est.n_features_in_)
    except (AttributeError, ValueError):
        return int(getattr(est, "n_features_in_", 1))


def evidence(est, inputs) -> list[str]:
    """The section's parts: a bar chart of each feature's share of the evidence."""
    from .. import base

    if inputs is None:
        return [
            note(
                "Given a labelled DATA table, the report shows each feature's share of "
                "the evidence over its rows."
            )
        ]
    if not base.supports(est, base.EXPLANATIONS):
        return [note(f"{type(est).__name__} gives no per-feature explanation.")]
    share = evidence_share(est, inputs)
    shown = share.iloc[:EVIDENCE_BARS][::-1]
    fig = _figure(6.5, 1.0 + 0.24 * len(shown))
    ax = fig.subplots()
    ax.barh(shown.index, shown.to_numpy(), color="#0969da")
    ax.set_xlabel("share of |log-odds evidence| (mean over rows)")
    ax.tick_params(axis="y", labelsize=8)
    ax.grid(axis="x", alpha=0.3)
    parts = [
        note(
            "How much each feature moves the predictions on DATA: the mean absolute "
            "contribution to the log-odds of the predicted class against the runner-up "
            f"(nbayes explain), over the first {min(len(inputs), EVIDENCE_ROWS):,} rows, as a "
            "share of all features' contributions."
        ),
        figure(fig, "share of the evidence per feature"),
    ]
    if len(share) > EVIDENCE_BARS:
        rest = float(share.iloc[EVIDENCE_BARS:].sum())
        parts.append(
            note(
                f"The {EVIDENCE_BARS} largest of {len(share):,} features; the "
                f"others together hold {rest:.1%}."
            )
        )
    return parts


# -- the parameters ------------------------------------------------------------------------------
def _short(value) -> str:
    """A long value's summary: its kind and size, and its first items."""
    if isinstance(value, dict):
        keys = ", ".join(str(k) for k in list(value)[:4])
        more = ", ..." if len(value) > 4 else ""
        return f"{len(value):,} {'entry' if len(value) == 1 else 'entries'}: {keys}{more}"
    if isinstance(value, list | tuple | np.ndarray):
        head = ", ".join(str(v) for v in list(value)[:4])
        more = ", ..." if len(value) > 4 else ""
        return f"{len(value):,} items: {head}{more}"
    text = str(value)
    return text[: LONG_VALUE - 3] + "..."


def _whole(value) -> str:
    """The whole value, one entry a line."""
    if isinstance(value, dict):
        return "\n".join(f"{k}: {v}" for k, v in value.items())
    if isinstance(value, list | tuple | np.ndarray):
        return "\n".join(str(v) for v in value)
    return str(value)


def parameters(params: dict) -> str:
    """The parameters table, each long value (bin edges, vocabularies) folded into a
    collapsible detail with its summary shown."""
    rows = []
    for name, value in params.items():
        if hasattr(value, "get_params"):  # an estimator: as it would be written in Python
            value = repr(value)
        text = str(value)
        cell = text if len(text) <= LONG_VALUE else details(_short(value), _whole(value))
        rows.append([name, cell])
    return table(rows, ["parameter", "value"])
