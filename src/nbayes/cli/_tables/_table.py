"""The chunked readers of a table: CSV/TSV, Parquet and JSON lines.

Every reader yields ``(offset, DataFrame)`` pairs of at most ``chunk_rows`` rows, so memory
depends on the chunk size, not on the file size. Column types are fixed from the first chunk
(:func:`._dtypes.infer_kind`) and every later chunk is converted to them
(:func:`._dtypes.conform`), so a column cannot silently change type half-way through a file.
"""

from __future__ import annotations

import codecs
import csv
import io
import os
import re
import stat
import sys
import warnings
from collections.abc import Callable, Generator, Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from ...exceptions import DataError
from .._common import CLIError, UsageError, names, progress_bar, say_warning
from ._dtypes import missing_markers
from ._sources import (
    _MAGIC,
    CHUNK_BYTES,
    FIRST_ROWS,
    FORMATS,
    MAX_CHUNK_ROWS,
    MIN_CHUNK_ROWS,
    ReadOptions,
    _CountingReader,
    _named_format,
    _Replay,
    detect_format,
)


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
        lines = [line for line in self.first_lines() if line.strip() and '"' not in line]
        n_seps = sum(line.count(self.sep) for line in lines)
        spaced = sum(line.count(self.sep + " ") for line in lines)
        found = n_seps > 0 and spaced == n_seps
        if found:
            self.options = replace(self.options, skip_spaces=True)
        return found

    def first_lines(self, n: int = 50) -> list[str]:
        """The first ``n`` whole lines of the text (one cut off by the sample's end is left
        out), for sniffing."""
        sample = self._text_sample(64 * 1024)
        lines = sample.splitlines()
        if len(lines) > 1 and not sample.endswith("\n"):
            lines = lines[:-1]
        return lines[:n]

    def _sniff_sep(self) -> str:
        try:
            return csv.Sniffer().sniff("\n".join(self.first_lines()), delimiters=",\t;|").delimiter
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
        lines = self.first_lines(1)
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
