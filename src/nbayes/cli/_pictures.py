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
    from ..plot import StructureDisplay

    display = StructureDisplay(getattr(est, "structure_", None), mi, cmi)
    fig = _figure(*display.size())
    display.plot(ax=fig.subplots())
    if display.parents is not None:
        text = (
            "The learned structure: an arrow from each feature's parent, labelled with "
            "I(child; parent | class) in nats (a dashed arrow: a further parent); the class "
            "(faint lines) is every feature's parent; the redder a feature, the more it tells "
            "of the class alone (I(X; class))."
        )
        return [note(text), figure(fig, "learned structure")]
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
    step = max(1, EXPLAIN_CELLS // max(1, len(est.classes_) * _n_features(est)))
    parts = []
    for start in range(0, len(rows), step):  # bounded: EVIDENCE_ROWS rows
        ex = est.explain(rows.iloc[start : start + step])
        parts.append(pd.Series(np.abs(ex.contributions).sum(axis=0), index=ex.feature_names))
    total = sum(parts[1:], parts[0])
    total.index = [str(n) for n in total.index]
    share = total / max(float(total.sum()), 1e-300)
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
