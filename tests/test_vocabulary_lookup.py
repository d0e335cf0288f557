"""The category look-up is kept between calls, not rebuilt from the whole vocabulary.

Rebuilding it per call made MixedNB.partial_fit over 100 chunks growing to 1e6 categories
take 20x as long as fit, and a one-row predict_proba hundreds of milliseconds
(benchmarks/vocab_lookup.py measures both). These tests check the mechanism and that the
kept state never goes stale: after appends, failed batches, merges and model files.
"""

import copy
import pickle

import numpy as np
import pandas as pd
import pytest

import nbayes
from nbayes.distributions import Categorical
from nbayes.estimators._encoding import UNSEEN_CODE, Vocabulary
from nbayes.exceptions import UnknownLabelError


def mixed():
    """MixedNB with the column of codes named categorical: distinct in every row, it is an
    identifier, which columns="auto" leaves out (issue 30); these tests need its vocabulary."""
    return nbayes.MixedNB(columns=[("categorical", ["id", "colour"])])


def ids(n, start=0, seed=0):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "id": [f"id{i}" for i in range(start, start + n)],
            "colour": rng.choice(["red", "green", "blue"], size=n),
            "size": rng.normal(size=n),
        }
    )
    return frame, rng.integers(0, 2, size=n)


@pytest.fixture
def builds(monkeypatch):
    """Count how often a vocabulary's look-up is built from its flat arrays, and how often
    the categorical scoring tables are made."""
    counts = {"lookup": 0, "scoring": 0}
    tables, scoring = Vocabulary._tables, Categorical.scoring_params

    def count_tables(self):
        counts["lookup"] += self._lookup is None
        return tables(self)

    def count_scoring(self, params):
        counts["scoring"] += 1
        return scoring(self, params)

    monkeypatch.setattr(Vocabulary, "_tables", count_tables)
    monkeypatch.setattr(Categorical, "scoring_params", count_scoring)
    return counts


def test_partial_fit_and_predict_keep_one_lookup(builds):
    X, y = ids(600)
    model = mixed()
    for rows in np.array_split(np.arange(600), 12):
        model.partial_fit(X.iloc[rows], y[rows], classes=[0, 1])
    whole = mixed().fit(X, y)
    for i in range(10):
        np.testing.assert_allclose(
            model.predict_proba(X.iloc[[i]]), whole.predict_proba(X.iloc[[i]]), rtol=1e-12
        )
    assert builds["lookup"] == 2  # one per model, each built once
    assert builds["scoring"] == 2  # the scoring tables too: once per fitted state
    model.partial_fit(*ids(5, start=600))  # a new state: tables made again, once
    model.predict_proba(X.iloc[:3])
    model.predict_proba(X.iloc[3:6])
    assert builds["scoring"] == 3
    assert model.categories_["id"].size == 605


def test_a_failed_batch_leaves_the_lookup_as_it_was():
    X, y = ids(40)
    model = mixed().partial_fit(X[:20], y[:20], classes=[0, 1])
    bad = y[20:].astype(object)
    bad[-1] = "neither"
    with pytest.raises(UnknownLabelError):
        model.partial_fit(X[20:], bad)
    assert model.categories_["id"].tolist() == sorted(f"id{i}" for i in range(20))
    model.partial_fit(X[20:], y[20:])
    np.testing.assert_allclose(
        model.predict_proba(X), mixed().fit(X, y).predict_proba(X), rtol=1e-12
    )


def test_snapshots_share_arrays_but_not_what_is_appended_later():
    vocab = Vocabulary(1)
    vocab.encode(np.array([["a"], ["b"]], dtype=object), True, False)
    snap = copy.copy(vocab)
    vocab.encode(np.array([["c"], ["d"]], dtype=object), True, False)
    codes, unseen = snap.encode(np.array([["c"], ["a"]], dtype=object), False, False)
    assert snap.values.tolist() == ["a", "b"] and unseen == 0
    codes, _ = snap.encode(np.array([["e"], ["b"]], dtype=object), True, False)
    assert codes.ravel().tolist() == [2, 1]
    assert vocab.values.tolist() == ["a", "b", "c", "d"]
    assert vocab.encode(np.array([["d"]], dtype=object), False, False)[0].item() == 3


def test_merged_and_loaded_vocabularies_look_up_what_they_hold(tmp_path):
    a = mixed().fit(*ids(30))
    b = mixed().fit(*ids(30, start=20, seed=1))
    merged = nbayes.merge(a, b)
    X, _ = ids(50)
    loaded = nbayes.load(nbayes.save(merged, tmp_path / "m.nbayes"))
    np.testing.assert_array_equal(loaded.predict_proba(X), merged.predict_proba(X))
    assert merged.categories_["id"].size == 50
    # values only b saw are known to the merged model: none is scored as unseen
    unseen = mixed().set_params(unseen="error").fit(*ids(30))
    with pytest.raises(Exception, match="no training batch contained"):
        unseen.predict(X.iloc[[45]])
    nbayes.merge(unseen, mixed().set_params(unseen="error").fit(*ids(30, start=20))).predict(
        X.iloc[[45]]
    )


def test_integer_blocks_encode_as_the_general_path(recwarn):
    """Integer columns take a compiled path (no hashing: each column's values counted over
    its range); codes, appended vocabulary, unseen cells, type coercion and warnings are
    those of the general path (pandas factorize per column)."""
    from nbayes._accel import compiled_kernels, numpy_only

    if not compiled_kernels():
        pytest.skip("the integer path needs the compiled loops")
    rng = np.random.default_rng(0)
    learn = rng.integers(-3, 40, size=(500, 3)) * np.array([1, 1000, 7])
    score = rng.integers(-5, 60, size=(300, 3)) * np.array([1, 1000, 7])
    score[:, 2] = 10**6 + np.arange(300)  # column 2: all unseen -> a warning

    def run():
        vocab = Vocabulary(3)
        first = vocab.encode(learn, True, False)
        second = vocab.encode(pd.DataFrame(score.astype(np.int32)), False, False)
        text = Vocabulary(1)
        text.encode(np.array([["7"], ["12"]], dtype=object), True, False)
        coerced = text.encode(np.array([[7], [12], [13]]), False, False, warn=False)
        return first, second, coerced, vocab.by_column(), [str(w.message) for w in recwarn]

    fast = run()
    recwarn.clear()
    with numpy_only():
        slow = run()
    for a, b in zip(fast[:3], slow[:3]):  # (codes, first unseen cell)
        np.testing.assert_array_equal(a[0], b[0])
        assert a[1] == b[1]
    assert fast[1][1] is not None and fast[2][0].ravel().tolist()[:2] == [1, 0]  # "12" < "7"
    for a, b in zip(fast[3], slow[3]):
        assert a.tolist() == b.tolist()
    assert fast[4] == slow[4] and any("300 of its 300 values" in m for m in fast[4])


def test_a_pickle_carries_the_values_not_the_lookup_cache():
    # A Dask worker that holds a shell sends it on to another worker while it scores with
    # it, so the shell can be pickled while its look-up is being built. The cache never
    # travels: a copy rebuilt from the values knows them all (this failed now and then in
    # the Dask conformance suite: "training saw nothing values such as 0, 1, 2").
    vocab = Vocabulary(2)
    vocab.encode(np.array([["a", 1], ["b", 2]], dtype=object), True, False)
    vocab._lookup = [{} for _ in range(2)]  # as a concurrent pickle would see it mid-build
    vocab._types = [set(), set()]
    copy_ = pickle.loads(pickle.dumps(vocab))
    assert copy_._lookup is None and "_buffers" not in vars(copy_)
    codes, unseen = copy_.encode(np.array([["b", 2], ["a", "1"]], dtype=object), False, False)
    assert codes.tolist() == [[1, 1], [0, 0]] and unseen is None


def test_a_column_that_learned_no_value_scores_values_as_unseen():
    vocab = Vocabulary(1)
    vocab.encode(np.array([[None], [None]], dtype=object), True, False)
    codes, unseen = vocab.encode(np.array([["z"]], dtype=object), False, False, warn=False)
    assert unseen == 0 and codes.item() == UNSEEN_CODE


def test_text_columns_use_the_compiled_table_and_answer_as_a_dict(recwarn):
    """A column of text gets the compiled TextTable; it finds exactly what a dict of the same
    values finds (non-ASCII text, str subclasses, values of other types, text with no UTF-8
    form), and a column that learns a value of another type turns into a dict, still
    answering the same."""
    from nbayes._accel import compiled_kernels, numpy_only

    if not compiled_kernels():
        pytest.skip("the text table needs the compiled loops")
    learned = np.array(
        [["é"], ["a"], ["日本"], ["b" * 30], ["7"], ["2.5"], ["a" * 8], ["\ud800"]], dtype=object
    )
    probe = [
        ["é"],
        [np.str_("a")],
        ["日本"],
        ["b" * 30],
        ["b" * 29],
        ["\ud800"],
        ["\udfff"],
        [7],
        [1.5],
        [2.5],
        [True],
        ["a" * 8],
        ["a" * 9],
        ["7"],
    ]

    def run():
        text = Vocabulary(1)
        text.encode(learned[:-1], True, False)  # all with a UTF-8 form
        text.encode(np.array([["z"]], dtype=object), True, False)  # look-up built, grown
        kinds = [type(t).__name__ for t in text._lookup]
        # known and new values learned together: new ones get the next codes, in order
        grown = text.encode(np.array([["r"], ["a"], ["q"], ["é"]], dtype=object), True, False)
        first = text.encode(np.array(probe, dtype=object), False, False, warn=False)
        text.encode(np.array([[5], ["y"]], dtype=object), True, False)  # a number joins
        after = [type(t).__name__ for t in text._lookup]
        second = text.encode(np.array([*probe, [5]], dtype=object), False, False, warn=False)
        odd = Vocabulary(1)  # a lone surrogate has no UTF-8 form: a dict from the start
        odd.encode(learned, True, False)
        odd._tables()
        third = odd.encode(np.array(probe, dtype=object), False, False, warn=False)
        return first, second, third, grown, kinds, after, type(odd._lookup[0]).__name__

    fast = run()
    with numpy_only():
        slow = run()
    for a, b in zip(fast[:4], slow[:4]):
        np.testing.assert_array_equal(a[0], b[0])
        assert a[1] == b[1]
    assert fast[3][0].ravel().tolist() == [9, 2, 8, 5]  # q, r new after z (code 7)
    assert fast[4] == ["TextTable"] and fast[5] == ["dict"] and fast[6] == "dict"
    assert slow[4] == ["dict"]
    # Not found: b*29, the surrogates, 1.5 (no "1.5"), True, a*9; the numbers 7 and 2.5 are
    # read as the text "7" and "2.5" while the column holds text only.
    found = fast[0][0].ravel() != UNSEEN_CODE
    assert found.tolist() == [1, 1, 1, 1, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1]
    found = fast[1][0].ravel() != UNSEEN_CODE
    assert found.tolist() == [1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1]


def test_partial_fit_adds_each_batch_without_a_table_of_the_whole_vocabulary(monkeypatch):
    """partial_fit counts a batch of categorical codes over the codes it holds and adds
    them to the statistics (Categorical.batch_delta, add_deltas): no batch table as wide as the
    vocabulary is made and merged. The result equals fit's."""
    widths = []
    merge = Categorical.merge

    def spy(self, a, b):
        widths.append(b["n_counts"].shape[1])
        return merge(self, a, b)

    monkeypatch.setattr(Categorical, "merge", spy)
    X, y = ids(3000)
    model = mixed()
    for rows in np.array_split(np.arange(3000), 30):
        model.partial_fit(X.iloc[rows], y[rows], classes=[0, 1])
    assert widths == []  # no batch statistics were merged
    whole = mixed().fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), whole.predict_proba(X), rtol=1e-12)
    for a, b in zip(model.stats_["groups"], whole.stats_["groups"]):
        for key in a:
            if key != "n_counts":
                np.testing.assert_allclose(a[key], b[key], rtol=1e-12)


@pytest.mark.parametrize("compiled", [True, False])
def test_batch_deltas_add_up_as_merging_the_batch_statistics(compiled):
    """Categorical.add_deltas(stats, [batch_delta(X, labels)]) equals
    merge(stats, accumulate(X, labels)):
    missing cells, rows of zero weight (which add no category), fractional weights, a
    column the batch leaves empty, codes past the statistics' categories; None for sparse
    batches and soft labels."""
    import contextlib

    import scipy.sparse as sp

    from nbayes._accel import numpy_only
    from nbayes.distributions import Labels, SoftLabels

    rng = np.random.default_rng(4)
    fam = Categorical(missing="ignore")
    with contextlib.nullcontext() if compiled else numpy_only():
        old = fam.accumulate(
            rng.integers(0, [5, 3, 40], size=(50, 3)),
            Labels(rng.integers(0, 3, 50), rng.random(50), 3),
        )
        X = rng.integers(0, [9, 2, 60], size=(40, 3)) + np.array([0, 0, 30])
        X[rng.random((40, 3)) < 0.2] = -1
        X[:, 1] = -1  # nothing observed in column 1
        weights = rng.random(40) * 3
        weights[X[:, 0] == 8] = 0  # the largest code of column 0 only in rows of weight 0
        labels = Labels(rng.integers(0, 3, 40), weights, 3)
        added = fam.add_deltas(old, [fam.batch_delta(X, labels)])
        merged = fam.merge(old, fam.accumulate(X, labels))
        assert fam.batch_delta(sp.csr_matrix(np.maximum(X, 0)), labels) is None
        soft = SoftLabels(rng.random((40, 3)))
        assert fam.batch_delta(X, soft) is None
    np.testing.assert_array_equal(added["n_categories"], merged["n_categories"])
    assert added["n_categories"][:2].tolist() == [8, 3] and added["n_categories"][2] > 80
    np.testing.assert_allclose(added["n_counts"], merged["n_counts"], rtol=1e-14)
    assert added["n_counts"] is not old["n_counts"] and old["n_counts"].shape == (3, 48)


def stats_close(a, b):
    np.testing.assert_allclose(a["class_count"], b["class_count"], rtol=1e-12)
    for ga, gb in zip(a["groups"], b["groups"]):
        assert ga.keys() == gb.keys()
        for key in ga:
            np.testing.assert_allclose(ga[key], gb[key], rtol=1e-12, atol=1e-12)


def test_batches_kept_apart_are_added_when_stats_are_read_and_never_change_a_copy(tmp_path):
    """partial_fit keeps the categorical counts of its latest batches apart and adds them
    when stats_ is read: the same statistics as adding each batch at once (a model whose
    stats_ is read after every batch). Nothing shared with a copy, a pickle, a snapshot of
    stats_ or a saved file changes when later batches arrive."""
    from nbayes._engine import PENDING_BATCHES
    from nbayes.estimators._base import PENDING

    X, y = ids(4000)
    chunks = np.array_split(np.arange(4000), 200)
    model, eager = mixed(), mixed()
    for rows in chunks[:100]:
        model.partial_fit(X.iloc[rows], y[rows], classes=[0, 1])
        eager.partial_fit(X.iloc[rows], y[rows], classes=[0, 1]).stats_  # noqa: B018
    _, kept = vars(model)[PENDING]
    assert "stats_" not in vars(model) and 0 < len(kept) <= PENDING_BATCHES
    shallow, pickled = copy.copy(model), pickle.dumps(model)
    half = copy.deepcopy(eager.stats_)
    snapshot = model.stats_  # read: the kept batches are added, once
    assert PENDING not in vars(model) and model.stats_ is snapshot
    stats_close(snapshot, half)
    saved = nbayes.save(model, tmp_path / "half.nbayes")
    for rows in chunks[100:]:
        model.partial_fit(X.iloc[rows], y[rows])
        eager.partial_fit(X.iloc[rows], y[rows]).stats_  # noqa: B018
    assert PENDING in vars(model)
    stats_close(model.stats_, eager.stats_)
    whole = mixed().fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), whole.predict_proba(X), rtol=1e-12)
    for other in (shallow, pickle.loads(pickled), nbayes.load(saved)):
        stats_close(other.stats_, half)
    stats_close(snapshot, half)
    # A copy taken while batches are kept apart learns on its own.
    shallow.partial_fit(X.iloc[2000:2100], y[2000:2100])
    np.testing.assert_allclose(
        shallow.predict_proba(X[:2100]),
        mixed().fit(X.iloc[:2100], y[:2100]).predict_proba(X[:2100]),
        rtol=1e-12,
    )
    # Setting the statistics drops what was kept; unlearning and refitting start afresh.
    before = copy.deepcopy(model.stats_)
    model.partial_fit(X.iloc[:10], y[:10])
    model.unlearn(X.iloc[:10], y[:10])
    stats_close(model.stats_, before)
    model.partial_fit(X.iloc[:10], y[:10])
    model.fit(X.iloc[:30], y[:30])
    assert PENDING not in vars(model)
    stats_close(model.stats_, mixed().fit(X.iloc[:30], y[:30]).stats_)


def test_presets_keep_batches_apart_too():
    rng = np.random.default_rng(5)
    X, y = rng.integers(0, 300, size=(3000, 4)), rng.integers(0, 3, size=3000)
    weights = rng.random(3000)
    model = nbayes.CategoricalNB()
    for rows in np.array_split(np.arange(3000), 60):
        model.partial_fit(X[rows], y[rows], classes=[0, 1, 2], sample_weight=weights[rows])
    whole = nbayes.CategoricalNB().fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(model.predict_log_proba(X), whole.predict_log_proba(X), rtol=1e-10)
    stats_close(model.stats_, whole.stats_)


def test_batches_wider_than_the_table_are_merged_at_once(monkeypatch):
    # Counting a batch apart pays only on a table wider than the batch; on a small
    # vocabulary accumulate's compiled count and one merge are cheaper (partial_fit of
    # 500k x 50 codes was 3x slower with every batch counted apart).
    def refuse(*args, **kwargs):
        raise AssertionError("a batch wider than the table was counted apart")

    monkeypatch.setattr(Categorical, "batch_delta", refuse)
    rng = np.random.default_rng(0)
    X, y = rng.integers(0, 5, (400, 6)), rng.integers(0, 3, 400)
    model = nbayes.CategoricalNB()
    for rows in np.array_split(np.arange(400), 4):
        model.partial_fit(X[rows], y[rows], classes=[0, 1, 2])
    np.testing.assert_allclose(
        model.predict_proba(X), nbayes.CategoricalNB().fit(X, y).predict_proba(X), rtol=1e-12
    )


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"estimate": "map", "alpha": 2.0},
        {"estimate": "mle"},
        {"alpha": 0.5, "min_categories": 50, "unseen": "smooth", "missing": "ignore"},
    ],
)
def test_partial_fit_finalizes_each_batch_from_the_parameters_before_it(monkeypatch, params):
    """partial_fit finalizes every call; a categorical group counted apart is finalized from
    the parameters before the batch (Categorical.finalize_onto: a patch of log numerators
    over the cells the batch counts, and the (classes, features) normalisers), not by a
    pass over the table. Every state equals fit on the rows so far, and a copy, a pickle
    or a saved file of an earlier state never changes when later batches arrive; reading
    stats_ between batches (which adds the batches kept apart) changes nothing either."""
    full = {"n": 0}
    finalize = Categorical.finalize

    def spy(self, stats):
        full["n"] += 1
        return finalize(self, stats)

    monkeypatch.setattr(Categorical, "finalize", spy)
    rng = np.random.default_rng(7)
    n = 3000
    # Column 0 grows by a few new codes per batch and revisits old ones; column 1 is small.
    X = np.stack([np.arange(n) // 4 + rng.integers(0, 30, n), rng.integers(0, 3, n)], axis=1)
    if params.get("missing") == "ignore":
        X[rng.random(n) < 0.05, 1] = -1
    y, w = rng.integers(0, 3, n), rng.integers(1, 3, n).astype(float)
    model = nbayes.CategoricalNB(**params)
    kept, chunks = [], np.array_split(np.arange(n), 60)
    for i, rows in enumerate(chunks):
        model.partial_fit(X[rows], y[rows], classes=[0, 1, 2], sample_weight=w[rows])
        if i % 9 == 4:
            kept.append((i, copy.copy(model), pickle.dumps(model), copy.deepcopy(model)))
        if i == 30:
            _ = model.stats_  # adds the batches kept apart: a merge, same statistics
    assert full["n"] < len(chunks) // 3  # mostly from the parameters before
    assert any(len(p["patches"]) for p in model.params_)

    def same(a, upto):
        rows = np.concatenate(chunks[: upto + 1])
        ref = nbayes.CategoricalNB(**params).fit(X[rows], y[rows], sample_weight=w[rows])
        for p, q in zip(a.feature_log_prob_, ref.feature_log_prob_):
            np.testing.assert_allclose(p, q, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(a.params_[0]["log_unseen"], ref.params_[0]["log_unseen"])
        with np.errstate(invalid="ignore"):
            np.testing.assert_allclose(
                a.predict_log_proba(X[rows]), ref.predict_log_proba(X[rows]), rtol=1e-10
            )

    same(model, len(chunks) - 1)
    for i, shallow, pickled, deep in kept:
        for other in (shallow, pickle.loads(pickled), deep):
            same(other, i)


def test_an_earlier_state_saved_to_a_file_never_changes(tmp_path):
    X, y = ids(2000)
    model = mixed()
    chunks = np.array_split(np.arange(2000), 40)
    for rows in chunks[:20]:
        model.partial_fit(X.iloc[rows], y[rows], classes=[0, 1])
    assert any(len(p.get("patches", ())) for p in model.params_)
    saved = nbayes.save(model, tmp_path / "half.nbayes")
    before = model.predict_proba(X)
    for rows in chunks[20:]:
        model.partial_fit(X.iloc[rows], y[rows])
    np.testing.assert_allclose(nbayes.load(saved).predict_proba(X), before, rtol=1e-12)
    np.testing.assert_allclose(
        model.predict_proba(X), mixed().fit(X, y).predict_proba(X), rtol=1e-12
    )


def test_many_columns_finalized_from_the_parameters_before_each_batch():
    # More than 16 columns with cells: the counts before a batch are gathered in one pass
    # rather than a slice per column (_categorical_patches._copy_ranges); the same model either way.
    rng = np.random.default_rng(3)
    n, d = 2400, 20
    X = (np.arange(n)[:, None] // 3 + rng.integers(0, 40, (n, d))) % 700
    y = rng.integers(0, 2, n)
    model, most = nbayes.CategoricalNB(alpha=0.3), 0
    for rows in np.array_split(np.arange(n), 40):
        model.partial_fit(X[rows], y[rows], classes=[0, 1])
        most = max(most, len(model.params_[0]["patches"]))
    assert most > 1
    whole = nbayes.CategoricalNB(alpha=0.3).fit(X, y)
    for p, q in zip(model.feature_log_prob_, whole.feature_log_prob_):
        np.testing.assert_allclose(p, q, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.predict_log_proba(X), whole.predict_log_proba(X), rtol=1e-10)
