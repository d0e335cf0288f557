"""Writing results: a table's rows as CSV, TSV, JSON lines or Parquet, compressed or not."""

from __future__ import annotations

import io
import json
import operator
import sys
from collections.abc import Iterable
from contextlib import ExitStack
from pathlib import Path
from typing import IO, Any, TextIO

import numpy as np
import pandas as pd

from ..._output import WriteError, output_file, special_target
from .._common import CLIError, UsageError
from ._sources import _COMPRESSION, _SUFFIXES, FORMATS


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
