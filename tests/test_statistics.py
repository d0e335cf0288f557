"""The typed statistics (nbayes.distributions.statistics): their algebra, their declaration
by families and by the semi-naive models, and the model-file table over them
(nbayes.io._statistics)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from nbayes.distributions import (
    REGISTRY,
    CategoryCounts,
    ClassSums,
    Family,
    Labels,
    Moments,
)
from nbayes.distributions.statistics import ClassCounts, Statistic, by_slots, check_statistics
from nbayes.exceptions import DataError, ModelFormatError, ParameterError
from nbayes.io import _statistics
from nbayes.seminaive import _counts, joint
from nbayes.seminaive._counts import CountTables
from nbayes.seminaive.joint import VectorCounts


def moments_of(x: np.ndarray) -> Moments:
    """Moments of one class and one column from the rows ``x``."""
    return Moments(
        np.array([[x.size]], dtype=float),
        np.array([[x.mean() if x.size else 0.0]]),
        np.array([[((x - x.mean()) ** 2).sum() if x.size else 0.0]]),
    )


def test_moments_merge_like_one_pass_and_subtract_back():
    rng = np.random.default_rng(0)
    a, b, c = rng.normal(1e6, 1.0, 7), rng.normal(1e6, 2.0, 5), rng.normal(0, 1, 3)
    merged = (moments_of(a) + moments_of(b)) + moments_of(c)
    other = moments_of(a) + (moments_of(b) + moments_of(c))  # associative
    whole = moments_of(np.concatenate([a, b, c]))
    for got in (merged, other):
        for field, want in zip(got.fields(), whole.fields()):
            np.testing.assert_allclose(field, want, rtol=1e-9)
    back = merged - moments_of(c)
    np.testing.assert_allclose(back.mean, moments_of(np.concatenate([a, b])).mean, rtol=1e-12)
    zero = Moments.zeros(1, 1)
    np.testing.assert_array_equal((zero + moments_of(a)).m2, moments_of(a).m2)
    with pytest.raises(DataError, match="not part of what the model learned"):
        moments_of(a) - moments_of(c)


def test_scale_keeps_averages_and_add_classes_pads():
    m = moments_of(np.array([1.0, 3.0])).scale(0.5)
    assert (m.weight.item(), m.mean.item(), m.m2.item()) == (1.0, 2.0, 1.0)
    sums = ClassSums(np.array([[1.0, 2.0]])).add_classes(2)
    np.testing.assert_array_equal(sums.table, [[1.0, 2.0], [0.0, 0.0], [0.0, 0.0]])
    counts = CategoryCounts(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([2]))
    laid = counts.align_classes(np.array([2, 0]), 3)  # re-coded to a union of three labels
    np.testing.assert_array_equal(laid.counts, [[3.0, 4.0], [0.0, 0.0], [1.0, 2.0]])
    np.testing.assert_array_equal(laid.n_categories, [2])
    with pytest.raises(DataError, match="'n_ones'"):
        ClassSums(np.ones((1, 2))).subtract(ClassSums(np.full((1, 2), 2.0)), ("n_ones",))


def test_category_counts_grow_align_and_shrink_back():
    a = CategoryCounts(np.array([[1.0, 2.0, 3.0]]), np.array([2, 1]))
    b = CategoryCounts(np.array([[0.0, 0.0, 4.0, 5.0]]), np.array([3, 1]))
    both = a + b
    np.testing.assert_array_equal(both.n_categories, [3, 1])
    np.testing.assert_array_equal(both.counts, [[1.0, 2.0, 4.0, 8.0]])
    back = both - b
    np.testing.assert_array_equal(back.n_categories, a.n_categories)
    np.testing.assert_array_equal(back.counts, a.counts)
    assert both.consistent() and not CategoryCounts(both.counts, np.array([9, 9])).consistent()
    assert CategoryCounts.declared(4, 2) == {
        "counts": ((4, None), "f"),
        "n_categories": ((2,), "iu"),
    }


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_family_declares_every_statistic_once(name):
    family = REGISTRY[name]()
    keys = [k for slot in family.statistics for k in slot.keys]
    assert len(keys) == len(set(keys))
    zeros = family.zeros(3, 2)
    assert list(zeros) == keys
    declared = _statistics.declared_statistics(family, 3, 2)
    for key, (shape, kinds) in declared.items():
        assert zeros[key].dtype.kind in kinds
        assert all(w is None or w == n for w, n in zip(shape, zeros[key].shape)), key
    for slot in family.statistics:  # every type a family keeps can go in a model file
        assert slot.type in _statistics.TYPES


def test_a_family_setting_class_keys_is_told_to_declare_statistics():
    with pytest.raises(TypeError, match=r"declare its statistics instead"):

        class Old(Family):
            class_keys = ("n_counts",)


def test_model_files_refuse_statistic_types_outside_the_table():
    @dataclasses.dataclass(frozen=True, eq=False)
    class Odd(Statistic):
        table: np.ndarray

    class Keeper:
        name = "keeper"
        statistics = (Odd.at("x"),)

    with pytest.raises(ModelFormatError, match="not among those a model file holds"):
        _statistics._entry(Odd)
    with pytest.raises(ModelFormatError, match="layout version 2"):
        _statistics._entry(ClassSums, 2)
    with pytest.raises(ParameterError, match="model files cannot hold"):
        _statistics.dump_group(Keeper(), {"x": np.zeros(1)}, "g/")


# -- the class counts and the semi-naive models' statistics ----------------------------------


def semi_naive_stats(seed: int, n: int = 60) -> tuple[dict, dict, dict]:
    """JointBayes-like statistics (count tables of orders 1 and 2, class counts, vectors) of
    ``n`` rows, of their first third and of the rest."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, (n, 3))
    X[rng.random(X.shape) < 0.1] = -1
    labels = Labels(rng.integers(0, 2, n), rng.integers(1, 3, n).astype(float), 2)

    def stats(rows):
        out = _counts.accumulate(X[rows], labels[rows], 2, n_categories=[3, 3, 3])
        return {**out, **joint.accumulate(X[rows], labels[rows])}

    return stats(slice(None)), stats(slice(0, n // 3)), stats(slice(n // 3, None))


def assert_same(a: dict, b: dict) -> None:
    assert set(a) == set(b)
    for key in a:
        np.testing.assert_allclose(a[key], b[key], err_msg=key, atol=1e-12)


def test_semi_naive_statistics_merge_subtract_scale_and_clear_by_their_types():
    slots = _counts.slots(2, vectors=True)
    whole, first, rest = semi_naive_stats(0)
    assert [type(s.take(whole)) for s in slots] == [CountTables, ClassCounts, VectorCounts]
    assert_same(by_slots(slots, "add", first, rest), whole)
    assert_same(by_slots(slots, "add", rest, first), whole)
    assert_same(by_slots(slots, "subtract", whole, rest), first)
    doubled = by_slots(slots, "scale", whole, 2.0)
    assert_same(doubled, by_slots(slots, "add", whole, whole))
    cleared = by_slots(slots, "clear", whole)
    assert_same(by_slots(slots, "add", cleared, whole), whole)  # an identity, same codes
    np.testing.assert_array_equal(cleared["vectors"], whole["vectors"])
    assert not any(cleared[k].any() for k in ("class_count", "n1", "n2", "n_vectors"))
    with pytest.raises(DataError, match=r"statistic 'n1' for class 'a'.*would become negative"):
        by_slots(slots, "subtract", first, whole, ["a", "b"])


def test_semi_naive_statistics_align_classes_and_recode_categories():
    slots = _counts.slots(2, vectors=True)
    whole, _, _ = semi_naive_stats(1)
    aligned = by_slots(slots, "align_classes", whole, np.array([2, 0]), 3)
    for key in ("class_count", "n1", "n2", "n_vectors"):
        np.testing.assert_array_equal(aligned[key][[2, 0]], whole[key])
        assert not aligned[key][1].any()
    # Code 0 and 2 of the middle feature swapped, one more category: as if counted so.
    swap = np.array([2, 1, 0])
    recoded = by_slots(slots, "recode", whole, np.array([3, 4, 3]), [None, swap, None])
    assert recoded["n_categories"].tolist() == [3, 4, 3]
    back = by_slots(slots, "recode", recoded, None, [None, np.array([2, 1, 0, 3]), None])
    assert_same(by_slots(slots, "recode", whole, np.array([3, 4, 3]), None), back)


def test_semi_naive_statistics_declare_their_shapes_and_check_a_stored_copy():
    slots = _counts.slots(3, vectors=True)
    shapes = _statistics.declared(slots, 2, 4)
    assert shapes == {
        "n_categories": ((4,), "i"),
        "n1": ((2, None), "f"),
        "n2": ((2, None), "f"),
        "n3": ((2, None), "f"),
        "class_count": ((2,), "f"),
        "vectors": ((None, 4), "i"),
        "n_vectors": ((2, None), "f"),
    }
    whole, _, _ = semi_naive_stats(2)
    slots = _counts.slots(2, vectors=True)
    check_statistics(slots, whole, 2, 3)
    with pytest.raises(ValueError, match="expected"):
        check_statistics(slots, {**whole, "n3": whole["n2"]}, 2, 3)
    with pytest.raises(ValueError, match="'n2' are missing or of the wrong shape"):
        check_statistics(slots, {**whole, "n2": whole["n2"][:1]}, 2, 3)
    with pytest.raises(ValueError, match="'class_count' must be finite, non-negative"):
        check_statistics(slots, {**whole, "class_count": -whole["class_count"]}, 2, 3)
    with pytest.raises(ValueError, match="do not fit together"):  # cells of 4 categories
        check_statistics(slots, {**whole, "n_categories": np.array([4, 3, 3])}, 2, 3)
    with pytest.raises(ValueError, match="do not fit together"):
        check_statistics(slots, {**whole, "n_vectors": whole["n_vectors"][:, 1:]}, 2, 3)


def test_semi_naive_statistics_go_through_the_file_table_and_back():
    whole, _, _ = semi_naive_stats(3)
    slots = _counts.slots(2, vectors=True)
    arrays = _statistics.dump(slots, whole, "stats/", "test")
    assert sorted(arrays) == sorted(f"stats/{k}" for k in whole)
    back = _statistics.restore(slots, arrays, "stats/", 2, 3, "test")
    assert_same(back, whole)
    forged = {**arrays, "stats/n1": arrays["stats/n1"][:, :-1]}
    with pytest.raises(ModelFormatError, match="inconsistent shapes"):
        _statistics.restore(slots, forged, "stats/", 2, 3, "test")


def test_class_counts_add_align_and_refuse_what_was_never_learned():
    a, b = ClassCounts(np.array([1.0, 2.0])), ClassCounts(np.array([0.5, 0.0]))
    assert (a + b).weight.tolist() == [1.5, 2.0]
    assert a.align_classes(np.array([1, 0]), 3).weight.tolist() == [2.0, 1.0, 0.0]
    assert ClassCounts.declared(4, 7) == {"weight": ((4,), "f")}
    with pytest.raises(DataError, match="class weight"):
        b.subtract(a, ("class_count",))


def test_a_semi_naive_state_is_checked_by_its_declared_types():
    import pandas as pd

    from nbayes import TAN, JointBayes

    df = pd.DataFrame({"a": ["x", "x", "y", "y"], "b": ["u", "v", "u", "v"]})
    state = JointBayes().fit(df, [0, 1, 1, 0]).get_state()
    with pytest.raises(ValueError, match=r"hold \[.*'vectors'\]; expected"):
        TAN().set_state(state)  # a TAN keeps no vectors (and pairs JointBayes lacks)
    state["statistics"]["vectors"] = state["statistics"]["vectors"] + 5
    with pytest.raises(ValueError, match="table of feature vectors is inconsistent"):
        JointBayes().set_state(state)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_clearing_a_family_s_statistics_keeps_their_encoding(name):
    from nbayes import _engine as engine

    family = REGISTRY[name]()
    rng = np.random.default_rng(0)
    X = family.example_data(rng, 40, 3)
    labels = Labels(rng.integers(0, 2, 40), np.ones(40), 2)
    stats = engine.accumulate([family], [X], labels)
    cleared = engine.clear([family], stats)
    assert not cleared["class_count"].any()
    for key, value in stats["groups"][0].items():
        if key in family.class_keys:
            assert not cleared["groups"][0][key].any(), key
        else:  # the encoding (numbers of categories, ranges) is kept
            np.testing.assert_array_equal(cleared["groups"][0][key], value)


def test_a_state_is_checked_by_its_families_declared_types():
    from nbayes import CategoricalNB, GaussianNB

    X = np.array([[0, 1], [1, 0], [2, 1]])
    state = CategoricalNB().fit(X, [0, 1, 1]).get_state()
    state["statistics"]["groups"][0]["n_categories"] = np.array([2, 9])
    with pytest.raises(ValueError, match=r"\['n_counts', 'n_categories'\] of column group 0"):
        CategoricalNB().set_state(state)
    state = GaussianNB().fit(X, [0, 1, 1]).get_state()
    state["statistics"]["groups"][0]["n_weight"] = -state["statistics"]["groups"][0]["n_weight"]
    with pytest.raises(ValueError, match="'n_weight' of column group 0 holds a negative"):
        GaussianNB().set_state(state)
