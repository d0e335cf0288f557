"""Reading tables in bounded chunks (CSV/TSV, Parquet, JSON lines) and writing results.

Where a table comes from (its format, compression and the replay of a pipe) is in
:mod:`._sources`, the chunked readers in :mod:`._table`, the column types fixed from the
first chunk in :mod:`._dtypes` and the writers of results in :mod:`._writers`.
"""

from __future__ import annotations

from ._dtypes import _BOOLS as _BOOLS
from ._dtypes import _unmodelled as _unmodelled
from ._dtypes import conform as conform
from ._dtypes import infer_kind as infer_kind
from ._dtypes import missing_markers as missing_markers
from ._dtypes import na_values_option as na_values_option
from ._dtypes import numeric_column as numeric_column
from ._dtypes import read_dtypes as read_dtypes
from ._sources import CHUNK_BYTES as CHUNK_BYTES
from ._sources import FORMATS as FORMATS
from ._sources import ReadOptions as ReadOptions
from ._sources import _CountingReader as _CountingReader
from ._sources import _Replay as _Replay
from ._sources import detect_format as detect_format
from ._sources import is_pipe as is_pipe
from ._table import Table as Table
from ._table import open_table as open_table
from ._writers import TableWriter as TableWriter
from ._writers import json_lines as json_lines
from ._writers import output_format as output_format
