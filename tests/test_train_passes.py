"""``nbayes train`` reads DATA once per pass the model needs: one for naive Bayes on known
columns (the statistics of every chunk accumulated, merged and finalized once), one more where
bin edges must be found first (the semi-naive models' numeric columns), and the two passes of
``--alpha cv``. The bytes every reader reads are counted (``_reads``): the passes are the
readers that read the whole file, the rest are the starts (separator, column types)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _reads import count_reads, passes

from nbayes import load
from nbayes.cli import main


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """Numbers, counts, categories, a short text and integer labels (10 sorts after 2 only
    once typed), one class first seen in the last rows."""
    rng = np.random.default_rng(0)
    n = 150_000
    y = rng.choice([2, 10, -1], n)
    y[-300:] = 7
    df = pd.DataFrame(
        {
            "num": rng.normal(size=n) + y,
            "count": rng.poisson(3, n),
            "colour": rng.choice(["red", "green", "blue", "grey"], n),
            "text": rng.choice(["cheap cash now", "lunch at noon", "see you", "win big"], n),
            "label": y,
        }
    )
    path = tmp_path_factory.mktemp("passes") / "table.csv"
    df.to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    "options, expected",
    [
        (["--exclude", "text"], 1),
        (["--model", "gaussian", "--features", "num,count"], 1),
        (["--model", "categorical", "--features", "colour,count"], 1),
        (["--exclude", "text", "--continuous", "kde"], 1),
        (["--model", "aode", "--features", "colour,count", "--categorical", "count"], 1),
        (["--model", "aode", "--exclude", "text"], 2),  # bin edges first
        (["--model", "tan", "--exclude", "text", "--binning", "quantile"], 2),
        (["--exclude", "text", "--alpha", "cv"], 3),  # fold counts, fold scores
        (["--text-column", "text"], 1),
        (["--text-column", "text", "--hashing", "64"], 1),
    ],
)
def test_train_reads_data_once_per_pass(table, tmp_path, monkeypatch, capsys, options, expected):
    size = table.stat().st_size
    readers = count_reads(monkeypatch)
    out = tmp_path / "m.nbayes"
    argv = ["train", table, "-t", "label", "-o", out, "-q", "--chunk-rows", "20000", *options]
    assert main([str(a) for a in argv]) == 0
    capsys.readouterr()
    read = [r.n for r in readers]
    assert passes(readers, size) == expected, read
    assert sum(read) - expected * size < size / 2, read  # the starts: a chunk or two
    model = load(out)
    assert model.classes_.tolist() == [-1, 2, 7, 10]  # typed once, sorted as numbers


@pytest.mark.parametrize(
    "options",
    [
        ["--exclude", "text"],
        ["--model", "aode", "--exclude", "text"],
        ["--text-column", "text"],
        ["--text-column", "text", "--hashing", "64"],
        ["--exclude", "text", "--dask", "local:1"],
    ],
)
def test_train_finalizes_once(table, tmp_path, monkeypatch, capsys, options):
    """However many chunks (or Dask partitions), the statistics are finalized once (none per
    chunk, none again to type or sort the classes)."""
    from nbayes.estimators._base import BaseNB
    from nbayes.estimators.seminaive import AODE

    calls = []
    for cls in (BaseNB, AODE):
        original = cls.finalize

        def counted(self, original=original):
            calls.append(type(self).__name__)
            return original(self)

        monkeypatch.setattr(cls, "finalize", counted)
    out = tmp_path / "m.nbayes"
    argv = ["train", table, "-t", "label", "-o", out, "-q", "--chunk-rows", "20000", *options]
    assert main([str(a) for a in argv]) == 0
    capsys.readouterr()
    assert len(calls) == 1, calls
