"""Structure learning at finalize: TAN's tree and KDB's parents from the merged counts.

Both are functions of I(X_j; Y) and I(X_i; X_j | Y), computed from the merged count tables,
so ``fit``, ``partial_fit`` over any chunking and merged shards choose the same structure.
Sums of float weights in another order may differ in the last bits, so the measures are
rounded to :data:`DECIMALS` decimals first and every remaining tie goes to the lower feature
index: equal data give equal structures.
"""

from __future__ import annotations

import numpy as np

#: Information measures (nats) are rounded to this many decimals before they are compared.
DECIMALS = 10


def _rounded(values: np.ndarray) -> np.ndarray:
    return np.round(values, DECIMALS)


def feature_order(mi: np.ndarray) -> np.ndarray:
    """Features by decreasing I(X_j; Y), ties by index."""
    mi = _rounded(mi)
    return np.lexsort((np.arange(mi.size), -mi))


def tan_parents(mi: np.ndarray, cmi: np.ndarray) -> np.ndarray:
    """Each feature's parent in TAN's tree (-1 for the root), shape (d,).

    The tree is the maximum spanning tree of I(X_i; X_j | Y) (Friedman, Geiger & Goldszmidt
    1997), found by scipy's minimum spanning tree over the edges' ranks: edges sorted by
    decreasing rounded CMI, ties by (i, j), get weights 1, 2, 3, ... so the tree is unique
    and a zero CMI is still an edge (scipy reads a zero weight as no edge). The root is the
    feature most informative about the class, max I(X_j; Y) (ties: lowest index): any root
    gives the same likelihood (the tree is undirected up to its factorisation), and this one
    keeps the most predictive feature's table the smallest, estimated from the most rows.
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import breadth_first_order, minimum_spanning_tree

    d = mi.size
    parents = np.full(d, -1, dtype=np.intp)
    if d < 2:
        return parents
    i, j = np.triu_indices(d, k=1)
    rank = np.empty(i.size)
    rank[np.lexsort((j, i, -_rounded(cmi[i, j])))] = np.arange(1, i.size + 1)
    tree = minimum_spanning_tree(csr_matrix((rank, (i, j)), shape=(d, d)))
    root = int(feature_order(mi)[0])
    _, predecessors = breadth_first_order(tree, root, directed=False)
    parents[:] = predecessors
    parents[root] = -1
    return parents


def kdb_parents(mi: np.ndarray, cmi: np.ndarray, k: int) -> list[tuple[int, ...]]:
    """Parents of each feature in the k-dependence Bayesian classifier (Sahami 1996).

    Features are taken by decreasing I(X_j; Y); each takes as parents the (up to) ``k``
    features before it with the largest I(X_j; X_p | Y) (ties: earlier in that order).
    Returns one tuple per feature, strongest parent first.
    """
    order = feature_order(mi)
    cmi = _rounded(cmi)
    parents: list[tuple[int, ...]] = [()] * mi.size
    for t, j in enumerate(order.tolist()):  # bounded by the features
        earlier = order[:t]
        best = earlier[np.lexsort((np.arange(t), -cmi[j, earlier]))][:k]
        parents[j] = tuple(int(p) for p in best)
    return parents
