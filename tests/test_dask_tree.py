"""The one tree reduce of nbayes.dask: every distributed pass combines its partitions'
results through it, ``split_every`` at a time."""

import dask
import pandas as pd
import pytest

from nbayes.dask._parts import tree_reduce


def _count_and_add(calls, *children):
    calls.append(len(children))
    return sum(children)


@pytest.mark.parametrize(
    ("n", "split_every", "nodes"), [(1, 2, 0), (5, 2, 6), (9, 3, 4), (8, 8, 1)]
)
def test_tree_reduce_combines_split_every_at_a_time(n, split_every, nodes):
    calls: list = []
    tasks = [dask.delayed(lambda i: pd.Series([i], dtype=object))(i) for i in range(n)]
    # In this process (a cluster from another test would copy ``calls`` to its workers).
    tree = tree_reduce(tasks, _count_and_add, split_every, (calls,))
    (result,) = dask.compute(tree, scheduler="sync")
    total = result.iloc[0] if isinstance(result, pd.Series) else result  # one task: unreduced
    assert total == n * (n - 1) // 2
    assert len(calls) == nodes and all(1 <= c <= split_every for c in calls)


def test_tree_reduce_of_nothing_is_the_combine_of_nothing():
    (result,) = dask.compute(tree_reduce([], lambda *parts: len(parts), 4), scheduler="sync")
    assert result == 0
