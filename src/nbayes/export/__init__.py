"""Export fitted nbayes models to run elsewhere: ONNX graphs and SQL queries.

:func:`to_onnx` builds an ONNX graph (the ``export`` extra: onnx, skl2onnx); :func:`to_sql`
writes one ``SELECT`` for a database (sqlglot's dialects). Both are imported on first use, so
``import nbayes.export`` costs nothing.
"""

from __future__ import annotations

__all__ = ["to_onnx", "to_sql"]


def __getattr__(name: str):
    if name == "to_onnx":
        from ._onnx import to_onnx

        return to_onnx
    if name == "to_sql":
        from ._sql import to_sql

        return to_sql
    raise AttributeError(f"module 'nbayes.export' has no attribute {name!r}")
