"""Counting the bytes ``nbayes`` commands read from DATA: every reader a table opens is
wrapped in the progress bar's byte counter, so a test can say how many times the whole file
was read (one pass per whole read) and how much more (the starts: separator, column types)."""

from __future__ import annotations

import io

from nbayes.cli import _tables


class Bytes:
    """Bytes a reader read (the progress bar's interface)."""

    def __init__(self):
        self.n = 0

    def update(self, n: int) -> None:
        self.n += n


def count_reads(monkeypatch) -> list[Bytes]:
    """The byte counts of every reader that tables open from now on (in order)."""
    readers: list[Bytes] = []
    open_raw = _tables.Table._open_raw

    def counted(self):
        readers.append(Bytes())
        return io.BufferedReader(_tables._CountingReader(open_raw(self), readers[-1]))

    monkeypatch.setattr(_tables.Table, "_open_raw", counted)
    return readers


def passes(readers: list[Bytes], size: int) -> int:
    """How many readers read the whole file (``size`` bytes): the passes over DATA."""
    return sum(r.n >= size for r in readers)
