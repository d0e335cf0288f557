"""Where a table comes from: its format from the name, the compression from the first bytes,
and the spool that replays what a pipe already gave."""

from __future__ import annotations

import io
import os
import stat
import tempfile
import weakref
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ...exceptions import DataError

FORMATS = ("csv", "tsv", "parquet", "jsonl")
_COMPRESSION = {".gz": "gzip", ".bz2": "bz2", ".xz": "xz", ".zst": "zstd"}
_SUFFIXES = {
    ".csv": "csv",
    ".tsv": "tsv",
    ".tab": "tsv",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
    ".json": "jsonl",
}
#: Raw bytes of input per chunk when the chunk size is chosen automatically. pandas needs a
#: few times this in memory (objects for strings), which keeps training well under 1 GB.
CHUNK_BYTES = 16 * 2**20
#: Rows of the file read to know the values of a column that a command does not read (the
#: label at predict), for the check of values that run over several lines.
FIRST_ROWS = 200
MIN_CHUNK_ROWS, MAX_CHUNK_ROWS = 500, 200_000


@dataclass(frozen=True)
class ReadOptions:
    """How to read DATA: format, separator, header, encoding, chunk size and, for CSV, the
    decimal and thousands separators of numbers and the values that mark a missing cell."""

    format: str | None = None
    sep: str | None = None
    header: bool = True
    names: tuple[str, ...] | None = None
    encoding: str = "utf-8"
    #: Whether ``encoding`` was given (on the command line): else a model's remembered one
    #: applies (see :func:`nbayes.cli.predict.remembered_reading`).
    encoding_given: bool = False
    quoting: bool = True
    chunk_rows: int | None = None
    decimal: str = "."
    thousands: str | None = None
    na_values: tuple[str, ...] = ()
    #: Skip the spaces after each separator (files written "39, State-gov, <=50K"): found
    #: by ``nbayes train`` (:meth:`Table.find_spaced_separators`) and kept in the model.
    skip_spaces: bool = False


def detect_format(path: str) -> tuple[str, str | None]:
    """(format, compression) from the file name; unknown names are read as CSV."""
    if path == "-":
        return "csv", None
    name = Path(path).name.lower()
    compression = None
    for suffix, method in _COMPRESSION.items():
        if name.endswith(suffix):
            compression, name = method, name[: -len(suffix)]
    return _SUFFIXES.get(Path(name).suffix, "csv"), compression


def is_pipe(path: str) -> bool:
    """Whether ``path`` is standard input (``-``), a pipe, a process substitution or a device:
    input that can be read only once (a :class:`Table` keeps what it read of it)."""
    try:
        return path == "-" or not stat.S_ISREG(os.stat(path).st_mode)
    except OSError:  # no such file: the Table says so
        return False


def _named_format(path: str) -> bool:
    """Whether the file name says the format (``data.csv.gz`` does, ``/dev/fd/63`` does not)."""
    name = Path(path).name.lower()
    for suffix in _COMPRESSION:
        name = name.removesuffix(suffix)
    return Path(name).suffix in _SUFFIXES


class _CountingReader(io.RawIOBase):
    """A file wrapper that reports bytes read to a progress bar."""

    def __init__(self, raw, bar):
        self._raw, self._bar = raw, bar

    def readable(self) -> bool:
        return True

    def readinto(self, b) -> int:
        n = self._raw.readinto(b)
        if n:
            self._bar.update(n)
        return n

    def close(self) -> None:
        self._raw.close()
        super().close()


class _Replay:
    """A pipe that can be read from its start more than once, while it is read only once.

    Standard input, a named pipe or a process substitution (``<(zcat data.csv.gz)``) can be
    read once, but a command reads DATA several times: sniffing the separator, the first
    rows for the column types, then every chunk (twice for a text vocabulary). Everything
    read from the pipe is kept -- in memory up to ``CHUNK_BYTES``, then in an anonymous
    temporary file that the system removes however the command ends -- and each reader
    replays what was kept before reading on from the pipe.
    """

    def __init__(self, open_source, name: str):
        self._open_source, self.name = open_source, name
        self._source: IO[bytes] | None = None
        self._kept = tempfile.SpooledTemporaryFile(max_size=CHUNK_BYTES)
        # Closed with the replay: a temporary file left to the garbage collector warns.
        weakref.finalize(self, self._kept.close)
        self.size = 0
        self.complete = False

    def read_at(self, position: int, n: int) -> bytes:
        """Up to ``n`` bytes from ``position`` (at most the bytes kept so far)."""
        if position < self.size:
            self._kept.seek(position)
            return self._kept.read(min(n, self.size - position))
        if self.complete:
            return b""
        if self._source is None:
            self._source = self._open_source()
        data = getattr(self._source, "read1", self._source.read)(max(n, 1 << 16))
        if not data:
            self.complete = True
            self._source.close()
            if self.size == 0:
                raise DataError(f"{self.name}: nothing came in (the input is empty).")
            return b""
        self._kept.seek(self.size)
        self._kept.write(data)
        self.size += len(data)
        return self.read_at(position, n)

    def read_all(self) -> None:
        while not self.complete:
            self.read_at(self.size, 1 << 20)

    def open(self) -> io.BufferedReader:
        return io.BufferedReader(_ReplayReader(self), 1 << 16)


class _ReplayReader(io.RawIOBase):
    """One reader of a :class:`_Replay`; seekable once the whole pipe has been kept."""

    def __init__(self, replay: _Replay):
        self._replay, self._position = replay, 0

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return self._replay.complete

    def readinto(self, b) -> int:
        data = self._replay.read_at(self._position, len(b))
        b[: len(data)] = data
        self._position += len(data)
        return len(data)

    def tell(self) -> int:
        return self._position

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        if not self._replay.complete:
            raise io.UnsupportedOperation("seek before the whole pipe was read")
        base = {os.SEEK_SET: 0, os.SEEK_CUR: self._position, os.SEEK_END: self._replay.size}
        self._position = max(0, base[whence] + offset)
        return self._position


#: How compressed data begins, for DATA from a pipe, which has no file name to go by.
_MAGIC = {b"\x1f\x8b": "gzip", b"BZh": "bz2", b"\xfd7zXZ\x00": "xz", b"\x28\xb5\x2f\xfd": "zstd"}
