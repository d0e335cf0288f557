"""The learned structure of the semi-naive models (TAN, KDB, AODE) as a picture."""

from __future__ import annotations

import numpy as np
import pandas as pd

from ._common import matplotlib_axes

#: Where along an edge its label sits, from the parent: near the child, so that the labels of
#: a parent's many children spread as the children do.
AT = 0.6


class StructureDisplay:
    """The learned structure of a TAN or KDB model, every edge labelled with the conditional
    mutual information it was chosen by; for AODE, whose every feature is in turn the parent
    of all the others, the matrix of those measures.

    The network is laid out as a tree along each feature's first (strongest) parent, leaves
    on rows of their own, so that 50 and more features stay legible in a taller figure; a
    KDB feature's further parents are dashed arrows. The class, every feature's parent, is
    drawn with faint lines; the redder a feature, the more it tells of the class alone.
    Create it with :meth:`from_estimator`.

    Parameters
    ----------
    parents : dict or None
        Feature -> list of its feature parents, strongest first (``structure_``); None for
        AODE (the matrix is drawn).
    mutual_information : Series
        I(X_j; Y) in nats per feature.
    conditional_mutual_information : DataFrame
        I(X_i; X_j | Y) in nats, features by features.

    Attributes
    ----------
    ax_ : matplotlib Axes
    figure_ : matplotlib Figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import pandas as pd
    >>> from nbayes import TAN
    >>> from nbayes.plot import StructureDisplay
    >>> X = pd.DataFrame({"a": list("xxyyxy"), "b": list("xxyyxx"), "c": list("pqpqpq")})
    >>> display = StructureDisplay.from_estimator(TAN().fit(X, [0, 0, 1, 1, 0, 1]))
    >>> display.parents
    {'a': [], 'b': ['a'], 'c': ['b']}
    >>> display.layout()["c"]  # (depth, row): a chain
    (2, 0.0)
    """

    def __init__(self, parents, mutual_information, conditional_mutual_information):
        self.parents = parents
        self.mutual_information = mutual_information
        self.conditional_mutual_information = conditional_mutual_information

    @classmethod
    def from_estimator(cls, estimator, *, ax=None) -> StructureDisplay:
        """Draw the structure of a fitted TAN, KDB or AODE (A2DE) model.

        Parameters
        ----------
        estimator : fitted model with ``mutual_information()``
            ``structure_`` (TAN, KDB) gives the network drawn; without it (AODE) the matrix
            of the pairs' conditional mutual information is drawn.
        ax : matplotlib Axes, optional
            A new figure by default.

        Returns
        -------
        StructureDisplay
            The display, drawn.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import pandas as pd
        >>> from nbayes import AODE
        >>> X = pd.DataFrame({"a": list("xxyy"), "b": list("xxyx"), "c": list("pqpq")})
        >>> display = StructureDisplay.from_estimator(AODE().fit(X, [0, 0, 1, 1]))
        >>> display.parents is None, display.conditional_mutual_information.shape
        (True, (3, 3))
        """
        mi, cmi = estimator.mutual_information()
        parents = getattr(estimator, "structure_", None)
        return cls(parents, mi, cmi).plot(ax=ax)

    def size(self) -> tuple[float, float]:
        """A figure size that keeps every name legible.

        Returns
        -------
        tuple of float
            (width, height) in inches, growing with the tree's depth and leaves.

        Examples
        --------
        >>> display = StructureDisplay({"a": [], "b": ["a"]}, None, None)
        >>> display.size()
        (6.4, 2.5)
        """
        if self.parents is None:
            side = min(3.0 + 0.3 * len(self.mutual_information), 16)
            return side + 1.5, side
        place = self.layout()
        rows = max(row for _, row in place.values()) + 1
        depth = max(d for d, _ in place.values()) + 1
        return min(2.0 + 2.2 * depth, 16), max(2.5, 0.5 * rows)

    def plot(self, ax=None) -> StructureDisplay:
        """Draw (again).

        Parameters
        ----------
        ax : matplotlib Axes, optional
            A new figure by default.

        Returns
        -------
        StructureDisplay
            The display, drawn on ``ax``.

        Examples
        --------
        >>> import matplotlib
        >>> matplotlib.use("Agg")
        >>> import pandas as pd
        >>> mi = pd.Series([0.3, 0.1], index=["a", "b"])
        >>> cmi = pd.DataFrame([[0.0, 0.2], [0.2, 0.0]], index=mi.index, columns=mi.index)
        >>> display = StructureDisplay({"a": [], "b": ["a"]}, mi, cmi).plot()
        >>> sorted(t.get_text() for t in display.ax_.texts if t.get_text())
        ['0.200', 'a', 'b', 'class']
        """
        ax = matplotlib_axes(ax)
        if self.parents is None:
            _draw_pairs(ax, self.conditional_mutual_information)
        else:
            _draw_network(ax, self)
        self.ax_, self.figure_ = ax, ax.figure
        return self

    def layout(self) -> dict:
        """Where each feature is drawn: along first parents, roots at depth 0, leaves on
        consecutive rows, a parent level with the middle of its children.

        Returns
        -------
        dict
            Feature -> (depth, row).

        Examples
        --------
        >>> StructureDisplay({"a": [], "b": ["a"], "c": ["a"]}, None, None).layout()
        {'b': (1, 0.0), 'c': (1, 1.0), 'a': (0, 0.5)}
        """
        children: dict[str, list[str]] = {name: [] for name in self.parents}
        roots: list[str] = []
        for name, pa in self.parents.items():  # bounded by the features
            (children[pa[0]] if pa else roots).append(name)
        place: dict[str, tuple[float, float]] = {}
        next_row = 0
        for root in roots:  # a tree (TAN) or a DAG along first parents (KDB): no cycles
            stack = [(root, 0, False)]
            while stack:  # depth first, children before their parent (no recursion limit)
                name, depth, children_placed = stack.pop()
                kids = children[name]
                if not children_placed:
                    stack.append((name, depth, True))
                    stack.extend((kid, depth + 1, False) for kid in reversed(kids))
                elif kids:
                    place[name] = (depth, float(np.mean([place[k][1] for k in kids])))
                else:
                    place[name] = (depth, float(next_row))
                    next_row += 1
        return place


def _draw_network(ax, display: StructureDisplay) -> None:
    parents = display.parents
    mi, cmi = display.mutual_information, display.conditional_mutual_information
    place = display.layout()
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
                x0 + AT * (x1 - x0),
                y0 + AT * (y1 - y0) + (0 if i == 0 else 0.25),
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


def _draw_pairs(ax, cmi: pd.DataFrame) -> None:
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
