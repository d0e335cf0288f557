"""The typed statistics (nbayes.distributions.statistics): their algebra, their declaration
by families, and the model-file table over them (nbayes.io._statistics)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from nbayes.distributions import (
    REGISTRY,
    CategoryCounts,
    ClassSums,
    Family,
    Moments,
)
from nbayes.distributions.statistics import Statistic
from nbayes.exceptions import DataError, ModelFormatError, ParameterError
from nbayes.io import _statistics


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
