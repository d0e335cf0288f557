"""The pure core of AODE / TAN / KDB / JointBayes against brute force on tiny data."""

import contextlib
import itertools
from collections import Counter

import numpy as np
import pytest

from nbayes._accel import numpy_only
from nbayes.distributions import Labels
from nbayes.exceptions import DataError
from nbayes.seminaive import _counts, _structure, aode, joint, network


def tiny(seed=0, n=60, d=4, k=3, n_classes=2, missing=0.1, weights=False):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, k, (n, d))
    X[:, 1] = np.where(rng.random(n) < 0.7, X[:, 0], X[:, 1])  # some dependence
    X[rng.random(X.shape) < missing] = -1
    y = rng.integers(0, n_classes, n)
    w = rng.integers(1, 4, n).astype(float) if weights else np.ones(n)
    return X, Labels(y, w, n_classes)


def brute_counts(X, labels, features):
    counts = Counter()
    for row, c, w in zip(X, labels.codes, labels.weights):
        values = tuple(row[list(features)])
        if min(values) >= 0:
            counts[(c, *values)] += w
    return counts


@pytest.mark.parametrize("weights", [False, True])
@pytest.mark.parametrize("compiled", [True, False], ids=["compiled", "numpy"])
def test_count_tables_equal_brute_force(weights, compiled):
    X, labels = tiny(weights=weights)
    with contextlib.nullcontext() if compiled else numpy_only():
        stats = _counts.accumulate(X, labels, order=3)
    K = stats["n_categories"]
    assert K.tolist() == [3, 3, 3, 3]
    for m in (1, 2, 3):
        for features in itertools.combinations(range(4), m):
            table = _counts.block(stats, features)
            expected = brute_counts(X, labels, features)
            for cell in itertools.product(range(2), *[range(K[f]) for f in features]):
                assert table[cell] == expected.get(cell, 0.0), (features, cell)
    assert (
        stats["class_count"].tolist() == np.bincount(labels.codes, weights=labels.weights).tolist()
    )


def test_fit_equals_chunks_equals_shards_with_other_category_counts():
    X, labels = tiny(n=200, weights=True)
    X[:, 2] = np.where(X[:, 2] >= 0, X[:, 2] * 2, -1)  # codes up to 4, absent early
    whole = _counts.accumulate(X, labels, order=3)
    rng = np.random.default_rng(1)
    cuts = np.sort(rng.choice(np.arange(1, 200), 6, replace=False))
    parts = [
        _counts.accumulate(X[s], labels[s], order=3)
        for s in map(lambda ab: slice(*ab), zip([0, *cuts], [*cuts, 200]))
    ]
    assert len({tuple(p["n_categories"]) for p in parts}) > 1  # layouts differ per chunk
    chunked = parts[0]
    for p in parts[1:]:
        chunked = _counts.merge(chunked, p)
    # A tree of merges in another order: associative and commutative.
    left = _counts.merge(_counts.merge(parts[3], parts[0]), parts[5])
    right = _counts.merge(parts[1], _counts.merge(parts[6], _counts.merge(parts[2], parts[4])))
    tree = _counts.merge(right, left)
    for other in (chunked, tree):
        for key in whole:
            np.testing.assert_allclose(other[key], whole[key], rtol=1e-12, atol=0)
    zero = _counts.zeros(whole["n_categories"], 2, 3)
    assert np.array_equal(_counts.merge(zero, whole)["n2"], whole["n2"])
    # subtract is merge's inverse.
    rest = _counts.subtract(whole, parts[0])
    expected = parts[1]
    for p in parts[2:]:
        expected = _counts.merge(expected, p)
    expected = _counts.relayout(expected, rest["n_categories"])
    for key in rest:
        np.testing.assert_allclose(rest[key], expected[key], atol=1e-12)


def test_subtract_refuses_rows_never_learned():
    X, labels = tiny()
    stats = _counts.accumulate(X[:30], labels[:30], order=2)
    with pytest.raises(DataError, match="Cannot unlearn"):
        _counts.subtract(stats, _counts.accumulate(X[30:], labels[30:], order=2))


def test_relayout_with_code_maps_recodes_counts():
    X, labels = tiny(missing=0.0)
    stats = _counts.accumulate(X, labels, order=2)
    swap = np.array([2, 0, 1])  # feature 1: code c becomes swap[c]
    moved = _counts.relayout(stats, [3, 4, 3, 3], [None, swap, None, None])
    X2 = X.copy()
    X2[:, 1] = swap[X[:, 1]]
    direct = _counts.accumulate(X2, labels, order=2, n_categories=[3, 4, 3, 3])
    for key in ("n1", "n2", "class_count"):
        np.testing.assert_array_equal(moved[key], direct[key])


def test_wide_input_is_refused_with_the_size_it_needs():
    X = np.zeros((3, 2000), dtype=np.int64)
    X[0] = 9  # ten categories per feature
    with pytest.raises(DataError, match=r"AODE would need 1\.6 GiB .*2000 features") as info:
        _counts.accumulate(X, Labels(np.zeros(3, int), np.ones(3), 1), 2, model="AODE")
    assert "max_table_bytes=1.0 GiB" in str(info.value)
    with pytest.raises(DataError, match="code 5 at row 1"):
        _counts.accumulate(
            np.array([[0], [5]]), Labels(np.zeros(2, int), np.ones(2), 1), 2, n_categories=[3]
        )


def test_mutual_information_equals_hand_computation():
    X, labels = tiny(n=300, missing=0.15, weights=True)
    stats = _counts.accumulate(X, labels, order=2)
    cmi = _counts.conditional_mutual_information(stats)
    mi = _counts.class_mutual_information(stats)
    for i, j in itertools.combinations(range(4), 2):
        n = brute_counts(X, labels, (i, j))
        total = sum(n.values())
        n_y, n_ya, n_yb = Counter(), Counter(), Counter()
        for (c, a, b), v in n.items():
            n_y[c] += v
            n_ya[c, a] += v
            n_yb[c, b] += v
        expected = sum(
            v / total * np.log(v * n_y[c] / (n_ya[c, a] * n_yb[c, b]))
            for (c, a, b), v in n.items()
            if v > 0
        )
        assert cmi[i, j] == pytest.approx(expected, rel=1e-12)
        assert cmi[j, i] == cmi[i, j]
    for j in range(4):
        n = brute_counts(X, labels, (j,))
        total = sum(n.values())
        n_c, n_a = Counter(), Counter()
        for (c, a), v in n.items():
            n_c[c] += v
            n_a[a] += v
        expected = sum(v / total * np.log(v * total / (n_c[c] * n_a[a])) for (c, a), v in n.items())
        assert mi[j] == pytest.approx(expected, rel=1e-12)


def test_tan_tree_is_the_maximum_spanning_tree_rooted_at_the_most_informative_feature():
    mi = np.array([0.1, 0.3, 0.2, 0.05])
    cmi = np.zeros((4, 4))
    for i, j, v in [(0, 1, 0.5), (1, 2, 0.4), (0, 2, 0.45), (2, 3, 0.3), (0, 3, 0.1)]:
        cmi[i, j] = cmi[j, i] = v
    # Max spanning tree: 0-1 (0.5), 0-2 (0.45), 2-3 (0.3); root 1 (largest MI).
    assert _structure.tan_parents(mi, cmi).tolist() == [1, -1, 0, 2]
    # Ties (all CMI equal, also zero) go to the lowest indices: a star around feature 0 ...
    flat = np.zeros((4, 4))
    assert _structure.tan_parents(np.zeros(4), flat).tolist() == [-1, 0, 0, 0]
    # ... and differences below the rounding do not change the tree.
    noisy = flat + 1e-14 * np.random.default_rng(0).random((4, 4))
    noisy = noisy + noisy.T
    assert _structure.tan_parents(np.zeros(4) + 1e-15, noisy).tolist() == [-1, 0, 0, 0]
    # KDB(2): order 1, 2, 0, 3 by MI; each takes its best earlier features by CMI.
    assert _structure.kdb_parents(mi, cmi, 2) == [(1, 2), (), (1,), (2, 0)]


def brute_network_joint(X_row, stats, parents, a, log_prior):
    """log P(y, x) of a complete row by the product of smoothed conditional tables."""
    K = stats["n_categories"]
    out = log_prior.copy()
    for j, pa in enumerate(parents):
        scope = tuple(sorted((*pa, j)))
        counts = _counts.block(stats, scope)
        for c in range(len(log_prior)):
            idx = {f: X_row[f] for f in scope}
            num = counts[(c, *[idx[f] for f in scope])]
            den_cells = [
                counts[(c, *[idx[f] if f != j else v for f in scope])] for v in range(K[j])
            ]
            out[c] += np.log((num + a) / (sum(den_cells) + K[j] * a))
    return out


@pytest.mark.parametrize("k", [None, 1, 2])
def test_network_joint_equals_product_and_sums_to_one(k):
    X, labels = tiny(n=120, missing=0.0, weights=True)
    stats = _counts.accumulate(X, labels, order=3)
    parents = network.structure(stats, k)
    assert all(len(p) <= (1 if k is None else k) for p in parents)
    if k is None:
        assert sum(len(p) == 0 for p in parents) == 1  # a tree: one root
    a = np.full(4, 0.5)
    net = network.finalize(stats, parents, a)
    log_prior = np.log([0.4, 0.6])
    every = np.array(list(itertools.product(range(3), repeat=4)))
    jll = network.log_joint(every, net, log_prior)
    assert np.exp(jll).sum() == pytest.approx(1.0, rel=1e-12)
    for row in every[::7]:
        expected = brute_network_joint(row, stats, parents, 0.5, log_prior)
        np.testing.assert_allclose(network.log_joint(row[None], net, log_prior)[0], expected)


@pytest.mark.parametrize("k", [None, 2])
def test_compiled_and_numpy_scoring_agree(k):
    X, labels = tiny(n=150, missing=0.1)
    stats = _counts.accumulate(X, labels, order=3)
    net = network.finalize(stats, network.structure(stats, k), np.ones(4))
    levels = aode.finalize(stats, 2, np.ones(4), 2)
    rows = np.vstack([X, [[9, 0, 1, 2], [-1] * 4]])  # an unseen code, an empty row
    log_prior = np.log([0.3, 0.7])
    fast = network.log_joint(rows, net, log_prior), aode.log_joint(rows, levels, log_prior)
    with numpy_only():
        slow = network.log_joint(rows, net, log_prior), aode.log_joint(rows, levels, log_prior)
    for a, b in zip(fast, slow):
        np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.parametrize("k", [None, 2])
def test_network_sums_out_missing_values_exactly(k):
    X, labels = tiny(n=150, missing=0.1)
    stats = _counts.accumulate(X, labels, order=3)
    net = network.finalize(stats, network.structure(stats, k), np.ones(4))
    log_prior = np.log([0.3, 0.7])
    rows = np.array(
        [[0, -1, 2, 1], [-1, -1, 0, 2], [-1, 1, -1, -1], [-1] * 4, [1, 2, -1, 0], [-1] * 4]
    )
    got = network.log_joint(rows, net, log_prior)
    for row, g in zip(rows, got):
        hidden = np.flatnonzero(row < 0)
        fills = np.array(list(itertools.product(range(3), repeat=hidden.size)))
        full = np.repeat(row[None], len(fills), axis=0)
        full[:, hidden] = fills
        expected = np.log(np.exp(network.log_joint(full, net, log_prior)).sum(axis=0))
        np.testing.assert_allclose(g, expected, rtol=1e-12)
    np.testing.assert_allclose(got[3], log_prior, rtol=1e-12)


def test_network_unseen_category_gets_the_smoothed_mass():
    X, labels = tiny(missing=0.0)
    stats = _counts.accumulate(X, labels, order=2)
    net = network.finalize(stats, [(), (0,), (1,), (2,)], np.ones(4))
    zero = np.zeros(2)
    # Feature 3 unseen (code 7): its factor is a / (n(y, x_2) + K a).
    row = np.array([[0, 1, 2, 7]])
    known = network.log_joint(np.array([[0, 1, 2, -1]]), net, zero)
    n = _counts.block(stats, (2, 3))[:, 2, :].sum(axis=1)
    np.testing.assert_allclose(network.log_joint(row, net, zero), known - np.log(n + 3)[None])


def brute_aode(row, stats, n, a, m, log_prior):
    """AnDE by its formula, with the fallback to lower levels."""
    K = stats["n_categories"]
    d = len(K)
    for level in range(n, -1, -1):
        scores = []
        for S in itertools.combinations(range(d), level):
            if any(row[s] < 0 for s in S):
                continue
            if level and _counts.block(stats, S).sum(axis=0)[tuple(row[list(S)])] < m:
                continue
            out = log_prior.copy()
            if level:
                c = _counts.block(stats, S)
                cells = np.prod(K[list(S)])
                for y in range(len(log_prior)):
                    out[y] += np.log((c[(y, *row[list(S)])] + a) / (c[y].sum() + cells * a))
            for child in range(d):
                if child in S or row[child] < 0:
                    continue
                scope = tuple(sorted((*S, child)))
                c = _counts.block(stats, scope)
                for y in range(len(log_prior)):
                    at = {f: row[f] for f in scope}
                    num = c[(y, *[at[f] for f in scope])]
                    den = sum(
                        c[(y, *[at[f] if f != child else v for f in scope])]
                        for v in range(K[child])
                    )
                    out[y] += np.log((num + a) / (den + K[child] * a))
            scores.append(out)
        if scores:
            s = np.array(scores)
            top = s.max(axis=0)
            return top + np.log(np.exp(s - top).sum(axis=0) / len(scores))
    raise AssertionError("level 0 always qualifies")


@pytest.mark.parametrize("n", [1, 2])
@pytest.mark.parametrize("m", [1, 12])
def test_aode_equals_its_formula(n, m):
    X, labels = tiny(n=80, missing=0.15, weights=True)
    stats = _counts.accumulate(X, labels, order=n + 1)
    levels = aode.finalize(stats, n, np.full(4, 0.7), m)
    log_prior = np.log([0.45, 0.55])
    rows = np.vstack([X[:25], [[-1, -1, -1, 0], [-1] * 4, [0, 1, 2, 1]]])
    got = aode.log_joint(rows, levels, log_prior)
    for row, g in zip(rows, got):
        np.testing.assert_allclose(g, brute_aode(row, stats, n, 0.7, m, log_prior), rtol=1e-12)


def test_aode_min_parent_count_makes_rare_parents_fall_back_to_naive_bayes():
    X, labels = tiny(n=40, missing=0.0)
    stats = _counts.accumulate(X, labels, order=2)
    log_prior = np.log([0.5, 0.5])
    never = aode.log_joint(X, aode.finalize(stats, 1, np.ones(4), 1e9), log_prior)
    naive = aode.log_joint(X, aode.finalize(stats, 0, np.ones(4), 1), log_prior)
    np.testing.assert_allclose(never, naive)


def test_joint_counts_vectors_and_backs_off():
    X, labels = tiny(n=100, d=3, k=2, missing=0.05, weights=True)
    stats = joint.accumulate(X, labels)
    complete = (X >= 0).all(axis=1)
    expected = brute_counts(X, labels, (0, 1, 2))
    assert len(stats["vectors"]) == len({k[1:] for k in expected})
    for (c, *v), w in expected.items():
        i = joint.find(stats, np.array([v]))[0]
        assert stats["n_vectors"][c, i] == w
    assert stats["n_vectors"].sum() == labels.weights[complete].sum()
    halves = joint.merge(
        joint.accumulate(X[:37], labels[:37]), joint.accumulate(X[37:], labels[37:])
    )
    np.testing.assert_array_equal(halves["vectors"], stats["vectors"])
    np.testing.assert_allclose(halves["n_vectors"], stats["n_vectors"])
    back = joint.subtract(stats, joint.accumulate(X[37:], labels[37:]))
    first = joint.accumulate(X[:37], labels[:37])
    np.testing.assert_array_equal(back["vectors"], first["vectors"])
    np.testing.assert_allclose(back["n_vectors"], first["n_vectors"])

    params = joint.finalize(stats, 1.0, min_count=5)
    rows = np.array([[0, 0, 0], [1, -1, 0], [0, 1, 1]])
    got = joint.log_joint(rows, stats, params, lambda r: np.full((len(r), 2), -99.0))
    n_x = stats["n_vectors"].sum(axis=0)
    for row, g in zip(rows, got):
        i = joint.find(stats, row[None])[0]
        if i < 0 or n_x[i] < 5:
            assert g.tolist() == [-99.0, -99.0]
        else:
            post = (stats["n_vectors"][:, i] + 1) / (n_x[i] + 2)
            np.testing.assert_allclose(g, np.log(n_x[i] / n_x.sum() * post))
    recoded = joint.recode(stats, [None, np.array([1, 0]), None])
    flipped = X.copy()
    flipped[:, 1] = np.where(X[:, 1] >= 0, 1 - X[:, 1], -1)
    direct = joint.accumulate(flipped, labels)
    np.testing.assert_array_equal(recoded["vectors"], direct["vectors"])
    np.testing.assert_allclose(recoded["n_vectors"], direct["n_vectors"])


def test_compiled_pieces_and_threads_give_the_same_tables_and_scores(monkeypatch):
    """The compiled count and scoring loops work in fixed row pieces on the engine's threads:
    tiny pieces on two threads give the counts of one piece and the scores of the numpy
    code."""
    import nbayes

    X, labels = tiny(n=300, missing=0.1, weights=True)
    whole = _counts.accumulate(X, labels, order=3)
    stats = _counts.accumulate(X, labels, order=3)
    net = network.finalize(stats, network.structure(stats, 2), np.ones(4))
    levels = aode.finalize(stats, 2, np.ones(4), 3)
    log_prior = np.log([0.3, 0.7])
    with numpy_only():
        expected = network.log_joint(X, net, log_prior), aode.log_joint(X, levels, log_prior)
    monkeypatch.setattr(_counts, "PIECE_ROWS", 7)
    monkeypatch.setattr(network, "SCORE_PIECE_ROWS", 11)
    with nbayes.threads(2):
        pieces = _counts.accumulate(X, labels, order=3)
        got = network.log_joint(X, net, log_prior), aode.log_joint(X, levels, log_prior)
    for key in ("n1", "n2", "n3", "class_count"):
        np.testing.assert_allclose(pieces[key], whole[key], rtol=1e-13)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-12)
