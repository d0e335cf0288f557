"""Reading tables in bounded chunks (CSV/TSV, Parquet, JSON lines) and writing results.

Every reader yields ``(offset, DataFrame)`` pairs of at most ``chunk_rows`` rows, so memory
depends on the chunk size, not on the file size. Column types are fixed from the first chunk
(:func:`infer_kind`) and every later chunk is converted to them (:func:`conform`), so a
column cannot silently change type half-way through a file.
"""

from __future__ import annotations

import codecs
import csv
import datetime
import decimal
import io
import json
import operator
import os
import re
import shlex
import stat
import sys
import tempfile
import warnings
import weakref
from collections.abc import Callable, Generator, Iterable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any, TextIO

import numpy as np
import pandas as pd

from .._output import WriteError, output_file, special_target
from .._validation import MISSING_WORDS
from ..exceptions import DataError
from ._common import CLIError, UsageError, names, progress_bar, say_warning

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


class Table:
    """A tabular file read in chunks.

    Parameters
    ----------
    path : str
        File name, or ``-`` for standard input. A named pipe, ``/dev/stdin`` or a process
        substitution (``<(zcat data.csv.gz)``) works too: such input is read once and kept
        (see :class:`_Replay`); its compression is recognised from its first bytes.
    options : ReadOptions
    progress : bool
        Show a progress bar on a terminal while reading.
    """

    def __init__(self, path: str, options: ReadOptions | None = None, progress: bool = False):
        options = options or ReadOptions()
        self.path = str(path)
        fmt, self._compression = detect_format(self.path)
        self.format = options.format or fmt
        if self.format not in FORMATS:
            raise UsageError(f"--format must be one of {FORMATS}; got {self.format!r}.")
        if self.format not in ("csv", "tsv") and (options.decimal != "." or options.thousands):
            raise UsageError(
                f"--decimal and --thousands apply to CSV/TSV; {self.path} is {self.format}, "
                "whose numbers are typed by the format."
            )
        if self.format not in ("csv", "tsv") and options.na_values:
            raise UsageError(
                f"--na-values applies to CSV/TSV; {self.path} is {self.format}, whose missing "
                "values are typed by the format (null)."
            )
        if options.thousands is not None and options.thousands == options.decimal:
            raise UsageError(
                f"--thousands and --decimal must differ; both are {options.decimal!r}."
            )
        self.is_stream = self.path == "-"
        if not self.is_stream:
            try:
                st = os.stat(self.path)
            except FileNotFoundError:
                raise CLIError(f"{self.path}: no such file.") from None
            if stat.S_ISDIR(st.st_mode):
                raise CLIError(f"{self.path}: is a folder, not a data file.")
            # A pipe, process substitution or device: no size, and it can be read only once.
            self.is_stream = not stat.S_ISREG(st.st_mode)
            if not self.is_stream and st.st_size == 0:
                raise DataError(f"{self.path}: the file is empty.")
        self.options = options
        self.progress = progress
        self._sep = options.sep
        self._columns: list[str] | None = None
        self._replay: _Replay | None = None
        #: Column -> [first row, count] of values that run over several lines (quoted
        #: fields holding a line break), over the chunks read so far (see ``chunks``).
        self.spanning: dict[str, list[int]] = {}
        self._looked: set[int] = set()
        self._sniffed = not self.is_stream or self._compression is not None
        if self.is_stream and options.format is None and not _named_format(self.path):
            self.format = self._sniff_format()

    # -- metadata --------------------------------------------------------------------------------
    @property
    def size(self) -> int | None:
        return None if self.is_stream else os.path.getsize(self.path)

    @property
    def compression(self) -> str | None:
        """ "gzip", "bz2", "xz", "zstd" or None: from the file name, or from the first bytes
        of a pipe."""
        if not self._sniffed:
            self._sniffed = True
            with self._open_raw() as raw:
                head = raw.read(8)
            self._compression = next(
                (method for magic, method in _MAGIC.items() if head.startswith(magic)), None
            )
        if self._compression == "zstd":
            try:  # pandas would raise an ImportError of its own while reading
                import zstandard  # noqa: F401
            except ImportError:
                raise CLIError(
                    f"{self.path}: reading zstd-compressed data needs the zstandard package "
                    "(pip install zstandard); or decompress it first (zstd -d)."
                ) from None
        return self._compression

    def _sniff_format(self) -> str:
        """csv, jsonl or parquet from the first bytes of a pipe, which has no name to go by."""
        with self._open_raw() as raw:
            if raw.read(4) == b"PAR1":
                return "parquet"
        return "jsonl" if self._text_sample(4096).lstrip().startswith("{") else "csv"

    def _open_raw(self):
        if not self.is_stream:
            return open(self.path, "rb")
        if self._replay is None:
            if self.path == "-":
                self._replay = _Replay(lambda: sys.stdin.buffer, "standard input")
            else:
                self._replay = _Replay(lambda: open(self.path, "rb", buffering=0), self.path)
        return self._replay.open()

    def _parquet_source(self):
        """What pyarrow opens: the file name, or a pipe kept whole (Parquet's index is at its
        end, so nothing can be read before everything was)."""
        if not self.is_stream:
            return self.path
        self._open_raw().close()
        self._replay.read_all()
        return self._replay.open()

    def _decompressed(self):
        """The file's bytes, decompressed (gzip, bz2, xz), or None for other compressions
        (zip, zstd: pandas reads those, but they are not sniffed)."""
        import bz2
        import gzip
        import lzma

        openers: dict[str, Callable[..., Any]] = {
            "gzip": gzip.open,
            "bz2": bz2.open,
            "xz": lzma.open,
        }
        raw = self._open_raw()
        if self.compression is None:
            return raw
        if self.compression in openers:
            return openers[self.compression](raw)
        raw.close()
        return None

    def _text_sample(self, n_bytes: int = 2**20) -> str:
        """The first ``n_bytes`` of decompressed text, for sniffing and sizing."""
        stream = self._decompressed()
        if stream is None:
            return ""
        with stream:
            data = stream.read(n_bytes)
        return data.decode(self.options.encoding, errors="replace")

    def _undecodable(self, exc: UnicodeDecodeError) -> str:
        """Where the first byte sequence that is not valid in the encoding sits: ``"line 3
        (byte 24 of the file, after 'caf')"``. The parser only knows an offset within its
        block, so the decompressed text is decoded again from the start to find it."""
        encoding = self.options.encoding
        stream = self._decompressed()
        if stream is None:
            return f"{exc.reason}"
        decoder = codecs.getincrementaldecoder(encoding)()
        offset, lines = 0, 0
        with stream:
            while block := stream.read(1 << 20):
                pending = decoder.getstate()[0]
                try:
                    lines += decoder.decode(block).count("\n")
                except UnicodeDecodeError as found:
                    data = pending + block
                    before = data[: found.start].decode(encoding, errors="replace")
                    line = lines + before.count("\n") + 1
                    tail = before.rsplit("\n", 1)[-1][-20:]
                    return (
                        f"{found.reason} on line {line}, byte {offset - len(pending) + found.start}"
                        f" of the file, after {tail!r}"
                    )
                offset += len(block)
            pending = decoder.getstate()[0]
            try:  # a character cut short by the end of the file
                decoder.decode(b"", final=True)
            except UnicodeDecodeError as found:
                return (
                    f"{found.reason} on line {lines + 1}, byte {offset - len(pending)} of the "
                    "file, its last character"
                )
        return f"{exc.reason}"

    @property
    def sep(self) -> str:
        if self._sep is None:
            if self.format == "tsv":
                self._sep = "\t"
            else:
                self._sep = self._sniff_sep()
        return self._sep

    def find_spaced_separators(self) -> bool:
        """Whether every separator of a CSV's first lines is followed by a space, as in UCI
        files ("39, State-gov, <=50K"); if so, the options skip those spaces from now on,
        so that labels, categories and column names do not begin with one."""
        if self.format not in ("csv", "tsv") or self.sep in (" ", "\t"):
            return False
        # Quoted fields keep their spaces: lines with quotes say nothing here.
        lines = [line for line in self._first_lines() if line.strip() and '"' not in line]
        n_seps = sum(line.count(self.sep) for line in lines)
        spaced = sum(line.count(self.sep + " ") for line in lines)
        found = n_seps > 0 and spaced == n_seps
        if found:
            self.options = replace(self.options, skip_spaces=True)
        return found

    def _first_lines(self, n: int = 50) -> list[str]:
        """The first ``n`` whole lines of the text (one cut off by the sample's end is left
        out), for sniffing."""
        sample = self._text_sample(64 * 1024)
        lines = sample.splitlines()
        if len(lines) > 1 and not sample.endswith("\n"):
            lines = lines[:-1]
        return lines[:n]

    def _sniff_sep(self) -> str:
        try:
            return csv.Sniffer().sniff("\n".join(self._first_lines()), delimiters=",\t;|").delimiter
        except csv.Error:
            return ","

    def chunk_rows(self) -> int:
        """Rows per chunk: ``--chunk-rows``, or about CHUNK_BYTES of input per chunk."""
        if self.options.chunk_rows:
            return int(self.options.chunk_rows)
        if self.format == "parquet":
            meta = self._parquet().metadata  # a damaged file gets _parquet's message
            per_row = sum(
                meta.row_group(i).total_byte_size for i in range(meta.num_row_groups)
            ) / max(meta.num_rows, 1)
        else:
            per_row = self._bytes_per_row(self._text_sample())
        return int(np.clip(CHUNK_BYTES / max(per_row, 1.0), MIN_CHUNK_ROWS, MAX_CHUNK_ROWS))

    def _bytes_per_row(self, sample: str) -> float:
        """Average row size in a sample. Quoted fields (e-mails) may span lines, so a row ends
        at a newline outside quotes: where the count of quote characters so far is even."""
        data = np.frombuffer(sample.encode(self.options.encoding, errors="replace"), dtype=np.uint8)
        ends = data == ord("\n")
        if self.options.quoting and self.format != "jsonl":
            ends &= np.cumsum(data == ord('"')) % 2 == 0
        positions = np.flatnonzero(ends)
        if positions.size < 2:
            return float(max(data.size, 1))
        return (positions[-1] - positions[0]) / (positions.size - 1)

    @property
    def columns(self) -> list[str]:
        """Column names (reads only the start of the file; for JSON lines, whose records may
        each have other keys, the keys of every record, in order of first appearance)."""
        if self._columns is None:
            if self.format == "parquet":
                self._columns = [str(c) for c in self._parquet().schema_arrow.names]
            elif self.format == "jsonl":
                self._columns = self._json_keys()
            else:
                frame = next(self._frames(None, None, rows=1, progress=False), None)
                if frame is None:
                    raise DataError(f"{self.path}: no data rows.")
                self._columns = [str(c) for c in frame.columns]
        return self._columns

    # -- reading ---------------------------------------------------------------------------------
    def _parquet(self):
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise CLIError(
                "Reading Parquet needs pyarrow: pip install 'nbayes[parquet]'."
            ) from None
        try:
            return pq.ParquetFile(self._parquet_source())
        except Exception as exc:  # noqa: BLE001 - pyarrow raises several types for bad files
            raise DataError(f"{self.path}: not a readable Parquet file ({exc}).") from None

    def _json_keys(self) -> list[str]:
        """Every key of a JSON-lines file, in order of first appearance: one reading pass
        (a key may first appear in the last record)."""
        keys: dict[str, None] = {}
        frames = self._frames(None, None, self.chunk_rows(), self.progress, "reading keys")
        for frame in frames:
            keys.update(dict.fromkeys(frame.columns))
        if not keys:
            raise DataError(f"{self.path}: no data rows.")
        return list(keys)

    def set_columns(self, columns: Sequence[str]) -> None:
        """Record the column names when they are known without a pass (a first chunk that
        holds the whole file)."""
        self._columns = [str(c) for c in columns]

    def chunks(
        self,
        columns: Sequence[str] | None = None,
        dtypes: dict | None = None,
        desc: str | None = None,
    ) -> Generator[tuple[int, pd.DataFrame], None, None]:
        """Yield ``(offset, frame)`` for consecutive chunks; ``offset`` is the first row's
        number in the data (0-based, header excluded).

        A JSON-lines record without one of ``columns`` has a missing value there (keys are
        optional), so those are not checked against the file's keys."""
        if columns is not None and self.format != "jsonl":
            missing = [c for c in columns if c not in self.columns]
            if missing:
                raise DataError(
                    f"{self.path}: no column(s) {names(missing)}; the columns are "
                    f"{names(self.columns)}."
                )
        offset = 0
        for frame in self._frames(columns, dtypes, self.chunk_rows(), self.progress, desc):
            if len(frame):
                if self.format in ("csv", "tsv") and self.options.quoting:
                    self._look_for_line_breaks(offset, frame)
                yield offset, frame
                offset += len(frame)

    def _look_for_line_breaks(self, offset: int, frame: pd.DataFrame) -> None:
        """Count the values of ``frame`` that swallowed whole lines: a quote character that
        opens a field which runs on past its line joins the following lines into one row. A
        value counts when a line inside it holds as many separators as a row of the file
        (a quoted paragraph of prose does not). Once per chunk, however many passes read it."""
        if offset in self._looked:
            return
        self._looked.add(offset)
        sep = self.sep if len(self.sep) == 1 else ","
        width = max(len(self.columns), frame.shape[1])  # the file's, whichever columns are read
        record = "\n" + "".join(f"[^\n]*{re.escape(sep)}" for _ in range(width - 1))
        for column in frame.columns:  # bounded by the columns
            values = frame[column]
            if values.dtype.kind not in "OUT" and not isinstance(values.dtype, pd.StringDtype):
                continue
            if values.dtype.kind == "O":  # booleans or numbers with gaps: no text to look at
                values = values.where(values.map(type).eq(str), None).astype(object)
            broken = np.array(values.str.contains("\n", regex=False).fillna(False), dtype=bool)
            if broken.any():  # the few values with a line break: do they hold a row?
                rows = values[broken].str.contains(record, regex=True).fillna(False)
                broken[broken] = rows.to_numpy(dtype=bool)
            if broken.any():  # ... rows of this file, not prose with commas?
                broken[broken] = self._swallowed_rows(values[broken], frame, column, sep)
            if broken.any():
                seen = self.spanning.setdefault(str(column), [offset + int(broken.argmax()), 0])
                seen[1] += int(broken.sum())

    def _swallowed_rows(self, values: pd.Series, frame: pd.DataFrame, column, sep: str):
        """Which of ``values`` (texts of ``frame[column]`` that span several lines) hold rows
        of the file: at least half of the lines after their first split at ``sep`` into a
        row whose fields, at the places of the other columns, are values of those columns (a
        value that column holds, or a number where it holds numbers). A correctly quoted text
        written by pandas or the csv module (an e-mail body with commas) has lines of prose
        instead. Columns not read now (predict reads no label) are known from the file's
        first lines."""
        columns = list(self.columns)  # the file's: a command may read only some of them
        place = columns.index(column)
        lines = values.str.split("\n").explode()
        lines = lines[lines.groupby(level=0).cumcount() > 0].astype(str)
        fields = lines.str.split(sep, regex=False)
        row = fields.str.len().to_numpy() >= len(columns)
        for k, other in enumerate(columns):  # bounded by the columns
            known = frame[other] if other in frame.columns else self._first_values(other)
            if k == place or known is None or not row.any():
                continue
            at = k if k < place else k - len(columns)  # after the text: counted from the end
            field = fields.str[at].astype(str).str.strip().str.strip('"')
            if known.dtype.kind in "iuf":
                matches = pd.to_numeric(field, errors="coerce").notna()
            else:
                matches = field.isin(set(known.dropna().astype(str).str.strip()))
            row &= matches.to_numpy(dtype=bool)
        share = pd.Series(row, index=lines.index).groupby(level=0).mean()
        return (share.reindex(values.index).fillna(0.0) >= 0.5).to_numpy(dtype=bool)

    def _first_values(self, column: str) -> pd.Series | None:
        """The values of ``column`` in the file's first lines (numbers where every one reads
        as a number), or None when those lines do not read."""
        if not hasattr(self, "_first"):
            text = self._text_sample()
            text = text[: text.rfind("\n") + 1]
            opts = self.options
            kwargs: dict = dict(sep=self.sep, dtype=str, index_col=False, nrows=FIRST_ROWS)
            if opts.names:
                kwargs.update(header=None, names=list(opts.names))
            elif not opts.header:
                kwargs.update(header=None, names=self._positional_names())
            try:
                with warnings.catch_warnings():  # rows longer than the header: said elsewhere
                    warnings.simplefilter("ignore")
                    self._first: pd.DataFrame | None = pd.read_csv(io.StringIO(text), **kwargs)
            except (ValueError, pd.errors.ParserError):  # a quote open at the sample's end
                self._first = None
        if self._first is None or column not in self._first.columns:
            return None
        values = self._first[column].dropna()
        numbers = pd.to_numeric(values, errors="coerce")
        return numbers if len(values) and numbers.notna().all() else values

    def repeated_names_warning(self) -> str | None:
        """The warning for a CSV header that names a column more than once, or None: pandas
        reads the repeats as 'a.1', 'a.2', ... without a word."""
        if self.format not in ("csv", "tsv") or not self.options.header or self.options.names:
            return None
        lines = self._first_lines(1)
        if not lines:
            return None
        if self.options.quoting:
            reader = csv.reader(lines, delimiter=self.sep)
        else:
            reader = csv.reader(lines, delimiter=self.sep, quoting=csv.QUOTE_NONE)
        header = next(reader, [])
        if self.options.skip_spaces:
            header = [name.lstrip(" ") for name in header]
        counts = pd.Series(header).value_counts()
        repeated = counts[counts > 1]
        if repeated.empty:
            return None
        name, n = str(repeated.index[0]), int(repeated.iloc[0])
        renamed = ", ".join(repr(f"{name}.{i}") for i in range(1, n))
        others = (
            f" (and {len(repeated) - 1} other name(s) more than once)" if len(repeated) > 1 else ""
        )
        return (
            f"the header names column {name!r} {n} times{others}; the repeats are read as "
            f"{renamed}. Rename them in the file so that each name says what its column "
            "holds, or name every column with --no-header --names"
        )

    def line_break_warning(self) -> str | None:
        """The warning for values that ran over several lines, or None (see ``spanning``)."""
        if not self.spanning:
            return None
        column, (row, count) = min(self.spanning.items(), key=lambda item: item[1][0])
        more = sum(n for _, n in self.spanning.values()) - count
        others = f" (and {more:,} in other columns)" if more else ""
        return (
            f"{count:,} value(s) of column {column!r}{others} run over several lines, the "
            f"first at row {row:,}: a quote character opened a field that went on past the "
            "end of its line, which joins lines into one row. If quotes in DATA are ordinary "
            "characters (a message that starts with a quote), pass --no-quoting"
        )

    def say_line_breaks(self) -> None:
        """Print :meth:`line_break_warning` to standard error, if there is one (predict and
        evaluate, which have read the whole table by then)."""
        warning = self.line_break_warning()
        if warning:
            say_warning(warning)

    def _frames(self, columns, dtypes, rows: int, progress: bool, desc: str | None = None):
        try:
            if self.format == "parquet":
                yield from self._parquet_frames(columns, rows, progress, desc)
            elif self.format == "jsonl":
                yield from self._json_frames(columns, rows, progress, desc)
            else:
                yield from self._csv_frames(columns, dtypes, rows, progress, desc)
        except pd.errors.EmptyDataError:
            raise DataError(f"{self.path}: the file is empty (no columns).") from None
        except pd.errors.ParserError as exc:
            raise DataError(
                f"{self.path}: malformed row: {str(exc).strip()}. Check the separator "
                f"(--sep, now {self.sep!r}) and the quoting of that row."
            ) from None
        except UnicodeDecodeError as exc:
            raise DataError(
                f"{self.path}: the text is not valid {self.options.encoding} "
                f"({self._undecodable(exc)}); pass the right --encoding, e.g. latin-1."
            ) from None

    def _csv_frames(self, columns, dtypes, rows, progress, desc):
        opts = self.options
        kwargs = dict(
            sep=self.sep,
            encoding=opts.encoding,
            compression=self.compression,
            chunksize=rows,
            usecols=columns,
            dtype=dtypes,
            on_bad_lines="error",
            engine="c",
            skip_blank_lines=True,
            # Never an index from the data: without this, pandas quietly turns the leading
            # field(s) of rows longer than the header into an index (and a separator ending
            # every row shifts each value into its neighbour's column).
            index_col=False,
            decimal=opts.decimal,
            thousands=opts.thousands,
            na_values=missing_markers(opts.na_values),
            skipinitialspace=opts.skip_spaces,
        )
        if opts.names:
            kwargs.update(header=None, names=list(opts.names))
        elif not opts.header:
            kwargs.update(header=None, names=self._positional_names())
        if not opts.quoting:
            kwargs.update(quoting=csv.QUOTE_NONE)
        with progress_bar(progress, self.size, "B", desc) as bar:
            raw = self._open_raw()
            handle = io.BufferedReader(_CountingReader(raw, bar), 1 << 20)
            with handle, pd.read_csv(handle, **kwargs) as reader:
                while True:
                    with warnings.catch_warnings():
                        warnings.filterwarnings(
                            "error", "Length of header", pd.errors.ParserWarning
                        )
                        try:
                            frame = next(reader, None)
                        except pd.errors.ParserWarning:
                            raise self._longer_than_header(len(kwargs.get("names") or [])) from None
                    if frame is None:
                        return
                    yield frame

    def _longer_than_header(self, n_names: int) -> DataError:
        """The error for a first data row with more fields than there are column names
        (pandas would drop the extra fields)."""
        if n_names:
            source, fix = f"the {n_names} names given", "give one name per field with --names"
        else:
            source = "the header line has names"
            fix = "check the header line, or name every field with --no-header --names"
        return DataError(
            f"{self.path}: the first data row has more fields than {source}, so some values "
            f"would belong to no column. Check the separator (--sep, now {self.sep!r}); {fix}."
        )

    def _positional_names(self) -> list[str]:
        """Names "0", "1", ... for a CSV without header, counted on its first line."""
        if self._columns is None:
            kwargs = dict(
                sep=self.sep,
                encoding=self.options.encoding,
                header=None,
                compression=self.compression,
                nrows=1,
                engine="c",
            )
            if not self.options.quoting:
                kwargs.update(quoting=csv.QUOTE_NONE)
            with self._open_raw() as raw:
                n = pd.read_csv(raw, **kwargs).shape[1]
            self._columns = [str(i) for i in range(n)]
        return self._columns

    def _json_frames(self, columns, rows, progress, desc):
        with progress_bar(progress, self.size, "B", desc) as bar:
            raw = self._open_raw()
            handle = io.BufferedReader(_CountingReader(raw, bar), 1 << 20)
            try:
                with (
                    handle,
                    pd.read_json(
                        handle,
                        lines=True,
                        chunksize=rows,
                        dtype=False,  # values as written (no dates from key names)
                        encoding=self.options.encoding,
                        compression=self.compression,
                    ) as reader,
                ):
                    for frame in reader:
                        frame.columns = [str(c) for c in frame.columns]
                        if columns is not None:
                            missing = [c for c in columns if c not in frame.columns]
                            for c in missing:  # a key absent from every record of this chunk
                                frame[c] = np.nan
                            frame = frame[list(columns)]
                        yield frame
            except ValueError as exc:
                if (
                    "Expected object" in str(exc)
                    or "Unexpected character" in str(exc)
                    or "Trailing data" in str(exc)
                ):
                    raise DataError(f"{self.path}: malformed JSON line ({exc}).") from None
                raise
            except TypeError as exc:  # pandas on a line that is valid JSON but not an object
                raise DataError(
                    f"{self.path}: malformed JSON line (each line must be one JSON object, "
                    f'{{"column": value, ...}}; {exc}).'
                ) from None

    def _parquet_frames(self, columns, rows, progress, desc):
        pf = self._parquet()
        with progress_bar(progress, pf.metadata.num_rows, "rows", desc) as bar:
            for batch in pf.iter_batches(batch_size=rows, columns=columns):
                bar.update(batch.num_rows)
                frame = batch.to_pandas()
                frame.columns = [str(c) for c in frame.columns]
                yield frame


def open_table(path: str, options: ReadOptions, progress: bool = False) -> Table:
    """A :class:`Table` for ``path``; ``--no-header`` with ``--names`` is folded in."""
    if options.names and options.header:
        options = replace(options, header=False)
    return Table(path, options, progress)


# -- column types -------------------------------------------------------------------------------
def infer_kind(series: pd.Series, column: str) -> str:
    """Kind of one column as read: ``int``, ``float``, ``bool``, ``datetime`` or ``str``.

    Dates and timestamps (a datetime dtype, or dates from Parquet or JSON) are ``datetime``:
    the mixed model reads them as calendar features (:mod:`nbayes.columns`). Durations,
    times of day alone and lists are not modelled: they raise a DataError with the fix.
    Decimal numbers (Parquet ``decimal128``) are floats.
    """
    dtype = series.dtype
    kind = getattr(dtype, "kind", "O")
    if kind == "b" or str(dtype) == "boolean":
        return "bool"
    if kind in "iu":
        return "int"
    if kind == "f":
        return "float"
    if kind == "M" or isinstance(dtype, pd.DatetimeTZDtype):
        return "datetime"
    if kind == "m":
        raise _unmodelled(column, f"durations ({dtype})", _DATE_FIX)
    values = series.dropna()
    first = values.iloc[0] if len(values) else None
    if isinstance(first, (bool, np.bool_)) and values.map(type).isin((bool, np.bool_)).all():
        return "bool"  # true/false with gaps: pandas keeps them as Python objects
    if (
        isinstance(first, (datetime.date, pd.Timestamp))
        and values.map(lambda v: isinstance(v, (datetime.date, pd.Timestamp))).all()
    ):
        return "datetime"
    if isinstance(first, (datetime.date, datetime.time, datetime.timedelta, pd.Timestamp)):
        raise _unmodelled(column, f"dates or times (e.g. {first!r})", _DATE_FIX)
    if isinstance(first, (list, tuple, dict, set, np.ndarray)):
        raise _unmodelled(
            column, f"lists or records (e.g. {_short(first)})", "one column per item or field"
        )
    if isinstance(first, decimal.Decimal) and values.map(type).eq(decimal.Decimal).all():
        return "float"
    return "str"


def _short(value) -> str:
    text = repr(value.tolist() if isinstance(value, np.ndarray) else value)
    return text if len(text) <= 40 else text[:37] + "..."


#: How to turn a date column into something a model can learn from.
_DATE_FIX = "numbers or categories such as the day of week, the hour or the number of days"


def _unmodelled(column: str, what: str, fix: str) -> DataError:
    return DataError(
        f"column {column!r} holds {what}; nbayes models numbers, categories and words, not "
        f"these. Convert it before training (to {fix}) or leave it out with --exclude {column}."
    )


def na_values_option(markers) -> str:
    """The ``--na-values`` option that reads ``markers`` as missing, quoted for a shell."""
    return "--na-values=" + shlex.quote(",".join(markers))


def missing_markers(values: tuple[str, ...]) -> list[str] | None:
    """pandas' ``na_values`` for ``--na-values``: each marker also after the space that a
    ", " separator leaves (UCI files write "39, ?, Private"); pandas' own markers (empty,
    NA, NULL, NaN, ...) stay."""
    if not values:
        return None
    return sorted({v for m in values for v in (m, " " + m)})


def read_dtypes(schema: dict[str, str]) -> dict[str, type]:
    """dtypes to pin when reading CSV: text columns stay text (``01234`` keeps its zero)."""
    return {c: str for c, k in schema.items() if k == "str"}


def numeric_column(
    series: pd.Series,
    name: str,
    offset: int,
    path: str,
    why: str,
    preset: bool = True,
    scoring: bool = False,
) -> pd.Series:
    """``series`` as float64; a value that is not a number raises a DataError naming it.

    ``preset`` says the model needs numbers in every column (a numeric --model), so that a
    model taking categories is advice; otherwise (MixedNB typed the column from its first
    rows) that advice would name the model already in use. ``scoring``: rows scored by a
    trained model (evaluate, predict, explain), where such a value is read as missing, with
    one warning per column: the model cannot learn it, and one value must not stop the rest.
    """
    if series.dtype.kind in "iufb":
        return series.astype(np.float64)
    values = pd.to_numeric(series, errors="coerce")
    bad = values.isna() & series.notna() & (series.astype(str).str.strip() != "")
    if bad.any() and scoring:
        i = int(np.flatnonzero(bad.to_numpy())[0])
        more = int(bad.sum()) - 1
        others = f" (and {more:,} more in its first rows)" if more else ""
        say_warning(
            f"{path}: column {name!r} held numbers in training but holds {series.iloc[i]!r} "
            f"at row {offset + i}{others}, read as a missing value; to model such values as "
            f"categories, train with --categorical {name} on rows that hold them",
            key=f"not a number: {path}: {name}",
        )
    elif bad.any():
        i = int(np.flatnonzero(bad.to_numpy())[0])
        fix = (
            f"Drop the column (--exclude {name}) or choose a model that takes categories "
            "(--model mixed or categorical)."
            if preset
            else "nbayes types a column from the first rows that hold values; fix that "
            f"value, or leave the column out with --exclude {name}."
        )
        marker = str(series.iloc[i]).strip()
        if not any(ch.isalnum() for ch in marker) or marker.lower() in MISSING_WORDS:
            way = (
                f"pass {na_values_option([marker])}"
                if detect_format(path)[0] in ("csv", "tsv")
                else "write it as a null"
            )
            fix += f" If {marker!r} marks a missing value, {way}."
        raise DataError(
            f"{path}: column {name!r} must hold numbers for {why}; got {series.iloc[i]!r} at "
            f"row {offset + i}. {fix}"
        )
    return values.astype(np.float64)


def conform(
    frame: pd.DataFrame,
    schema: dict[str, str],
    offset: int,
    path: str,
    numeric: str | None = None,
    scoring: bool = False,
) -> pd.DataFrame:
    """Convert a chunk's columns to the kinds of ``schema`` (``int``, ``float``, ``bool``,
    ``str``, or ``any`` to leave a column as read).

    With ``numeric`` (the model's name, for messages) every column becomes float64, which the
    presets need. Otherwise ints stay integers (nullable ``Int64`` when values are missing),
    bools stay bools and text stays text, as MixedNB expects. ``scoring``: rows a trained
    model scores, where a number column's value that is not a number is read as missing
    (see :func:`numeric_column`), except for the presets, which take no missing value.
    """
    out = {}
    for col, kind in schema.items():  # one conversion per column: bounded by the table width
        s = frame[col]
        if numeric is not None or kind in ("int", "float"):
            s = numeric_column(
                s,
                col,
                offset,
                path,
                numeric or f"its type in the first rows ({kind})",
                preset=numeric is not None,
                scoring=scoring and numeric is None,  # the presets take no missing value
            )
            if numeric is None and kind == "int":
                whole = s.dropna()
                if (whole == np.round(whole)).all():
                    s = s.astype("Int64") if s.isna().any() else s.astype(np.int64)
        elif kind == "bool":
            if s.dtype.kind != "b":
                mapped = s.map(_BOOLS.get, na_action="ignore")
                bad = mapped.isna() & s.notna()
                if bad.any():
                    i = int(np.flatnonzero(bad.to_numpy())[0])
                    raise DataError(
                        f"{path}: column {col!r} holds true/false values in its "
                        f"first rows but {s.iloc[i]!r} at row {offset + i}."
                    )
                s = mapped.astype("boolean")
        elif kind == "str":
            s = s.astype(object).where(s.notna(), None)
            s = s.map(str, na_action="ignore")
        # kind "any" (a model saved from Python) or "datetime" (calendar features of the
        # mixed model): the column is passed on as read
        out[col] = s
    return pd.DataFrame(out, index=frame.index)


_BOOLS = {
    True: True,
    False: False,
    "True": True,
    "False": False,
    "true": True,
    "false": False,
    "TRUE": True,
    "FALSE": False,
    "1": True,
    "0": False,
}


def json_lines(frame: pd.DataFrame) -> str:
    """``frame`` as JSON lines, floats in full: the shortest text that reads back as the same
    float (pandas' writer keeps 15 significant digits at most), NaN and infinities as null.

    Examples
    --------
    >>> print(json_lines(pd.DataFrame({"p": [1 / 3, float("nan")], "c": ["a", "b"]})), end="")
    {"p":0.3333333333333333,"c":"a"}
    {"p":null,"c":"b"}
    """
    if len(frame) == 0:
        return ""
    # One list of '"key":value' texts per column, then one line per row. The per-row work is
    # done by map/zip/join over builtins (C loops); Python only loops over the columns.
    pieces = []
    for col in frame.columns:  # one piece per column: bounded by the table width
        series = frame[col]
        texts: Iterable[str]
        if series.dtype.kind == "f":
            values = series.to_numpy(dtype=np.float64)
            key = json.dumps(str(col), ensure_ascii=False) + ":"
            # repr of a float is its shortest round-trip text (0.1, 1e-20): valid JSON.
            floats = list(map(key.__add__, map(repr, values.tolist())))
            for i in np.flatnonzero(~np.isfinite(values)).tolist():  # rare: bounded by those
                floats[i] = key + "null"
            texts = floats
        else:
            # pandas writes everything else: {"col":value} per line; keep "col":value.
            lines = series.to_frame().to_json(orient="records", lines=True, force_ascii=False)
            texts = map(operator.itemgetter(slice(1, -1)), lines.rstrip("\n").split("\n"))
        pieces.append(texts)
    return "{" + "}\n{".join(map(",".join, zip(*pieces))) + "}\n"


# -- writing ------------------------------------------------------------------------------------
_WRITE_COMPRESSION = ("gzip", "bz2", "xz", "zstd")


def output_format(path: str | None, fmt: str | None = None) -> tuple[str, str | None]:
    """(format, compression) of an output: ``fmt`` or the file name's suffix (``.csv``,
    ``.tsv``, ``.jsonl``, ``.parquet``, each text format optionally ``.gz``/``.bz2``/``.xz``/
    ``.zst``); CSV for standard output and for pipes or devices without a known suffix.

    An unknown suffix on a file is a UsageError rather than a guess: ``-o out.txt`` must not
    quietly become a CSV that a later step reads as something else.
    """
    if path is None:
        return fmt or "csv", None
    name = Path(path).name.lower()
    compression = None
    for suffix, method in _COMPRESSION.items():
        if name.endswith(suffix):
            compression, name = method, name[: -len(suffix)]
    suffix = Path(name).suffix
    if fmt is None:
        fmt = _SUFFIXES.get(suffix)
        if fmt is None and (compression is None and special_target(path)):
            fmt = "csv"  # -o /dev/stdout, a named pipe: no suffix to go by
        if fmt is None:
            raise UsageError(
                f"-o {path}: cannot tell the output format from the name; use a .csv, .tsv, "
                ".jsonl or .parquet file (text formats may end in .gz, .bz2, .xz or .zst) or "
                "pass --output-format."
            )
    if fmt not in FORMATS:
        raise UsageError(f"output format must be one of {FORMATS}; got {fmt!r}.")
    if compression is not None and fmt == "parquet":
        raise UsageError(
            f"-o {path}: Parquet files compress their own columns; drop the "
            f"{Path(path).suffix} suffix."
        )
    if compression == "zstd":
        try:
            import zstandard  # noqa: F401
        except ImportError:
            raise UsageError(
                f"-o {path}: writing .zst needs the zstandard package (pip install "
                "zstandard); or use .gz, .bz2 or .xz."
            ) from None
    return fmt, compression


def _compressor(binary, compression: str):
    """A binary file object that compresses into ``binary`` (which it does not close)."""
    if compression == "gzip":
        import gzip

        return gzip.GzipFile(fileobj=binary, mode="wb", mtime=0)
    if compression == "bz2":
        import bz2

        return bz2.BZ2File(binary, "wb")
    if compression == "xz":
        import lzma

        return lzma.LZMAFile(binary, "wb")
    import zstandard

    return zstandard.ZstdCompressor().stream_writer(binary, closefd=False)


class TableWriter:
    """Write chunks of a result table to a file or to standard output.

    The format comes from ``fmt`` or the output file's suffix (CSV for stdout); ``.gz``,
    ``.bz2``, ``.xz`` and ``.zst`` compress. Files are written by :func:`nbayes._output.
    output_file`: a regular file is replaced atomically only when the whole table was written,
    a pipe or device is written into directly. A write that fails raises a WriteError naming
    the output (``standard output`` for stdout).
    """

    def __init__(self, path: str | None, fmt: str | None = None):
        self.path = None if path in (None, "-") else str(path)
        self.format, self.compression = output_format(self.path, fmt)
        if self.format == "parquet" and self.path is None:
            raise UsageError("Parquet output needs a file: pass -o OUT.parquet.")
        self._stack = ExitStack()
        self._handle: TextIO | None = None
        self._binary: IO[bytes] | None = None
        self._parquet: Any = None  # a pyarrow ParquetWriter once the first chunk is written
        self._first = True

    def __enter__(self) -> TableWriter:
        if self.path is None:
            self._handle = sys.stdout
            return self
        with ExitStack() as stack:
            binary = stack.enter_context(output_file(self.path))
            if self.compression is not None:
                binary = _compressor(binary, self.compression)
            self._binary = binary
            if self.format != "parquet":
                self._handle = io.TextIOWrapper(binary, encoding="utf-8", newline="")
            self._stack = stack.pop_all()
        return self

    def write(self, frame: pd.DataFrame) -> None:
        try:
            self._write(frame)
        except (BrokenPipeError, WriteError):
            # Files raise WriteError (see _Sink); a bare BrokenPipeError is standard output's
            # reader going away, which main() ends quietly.
            raise
        except OSError as exc:
            raise WriteError(self.path or "standard output", exc) from None
        self._first = False

    @property
    def handle(self) -> TextIO:
        """The text stream being written (CSV, TSV, JSON lines); set by ``__enter__``."""
        if self._handle is None:
            raise RuntimeError("TableWriter writes text only inside its 'with' block.")
        return self._handle

    def _write(self, frame: pd.DataFrame) -> None:
        if self.format == "parquet":
            self._write_parquet(frame)
        elif self.format == "jsonl":
            text = json_lines(frame)
            if text:
                self.handle.write(text if text.endswith("\n") else text + "\n")
        else:
            frame.to_csv(
                self.handle,
                sep="\t" if self.format == "tsv" else ",",
                index=False,
                header=self._first,
                lineterminator="\n",
            )

    def _write_parquet(self, frame: pd.DataFrame) -> None:
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            raise CLIError(
                "Writing Parquet needs pyarrow: pip install 'nbayes[parquet]'."
            ) from None
        if self._parquet is None:
            table = pa.Table.from_pandas(frame, preserve_index=False)
            self._parquet = pq.ParquetWriter(self._binary, table.schema)
        else:
            table = pa.Table.from_pandas(frame, schema=self._parquet.schema, preserve_index=False)
        self._parquet.write_table(table)

    def __exit__(self, exc_type, exc, tb) -> None:
        if self.path is None:
            if exc_type is None:
                try:
                    sys.stdout.flush()
                except BrokenPipeError:
                    raise
                except OSError as err:
                    raise WriteError("standard output", err) from None
            return
        if exc_type is not None:
            if self._parquet is not None:
                try:
                    self._parquet.close()  # its footer goes to the file discarded below
                except (OSError, ValueError):
                    pass  # the error that matters is the one being raised
            # Hand the error to output_file, which then discards the temporary file and
            # leaves the old output as it was (a plain `with` would tell it all went well).
            self._stack.__exit__(exc_type, exc, tb)
            return
        with self._stack:  # commits the file, or discards it when anything failed
            # Flush every layer (text, compression, Parquet footer) into the file before it
            # is committed; an error here discards it like any other.
            try:
                if self._parquet is not None:
                    self._parquet.close()
                if isinstance(self._handle, io.TextIOWrapper):
                    self._handle.detach()  # flushes the text; leaves the file open
                if self.compression is not None and self._binary is not None:
                    self._binary.close()  # writes the trailer; leaves the file open
            except WriteError:
                raise
            except OSError as err:
                raise WriteError(self.path, err) from None
