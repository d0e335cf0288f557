"""Scoring a Parquet file in DuckDB by the query of ``nbayes export --format sql`` against
``nbayes predict`` on the same file.

Usage::

    python -m benchmarks.export_sql                      # 10M rows in $TMPDIR
    python -m benchmarks.export_sql --rows 2000000 --threads 2 --dir /scratch

It writes a Parquet file of ``--rows`` mixed rows (8 measurements whose means depend on the
class, 3 string categories with an unseen value now and then, one count, 3 classes, about 2 %
of the cells missing), trains ``nbayes train`` on a separate 200,000-row file, exports the
model as SQL and times, each in a fresh process, (a) DuckDB running ``COPY (query) TO
scored.parquet`` and (b) ``nbayes predict MODEL big.parquet --proba -o scored.parquet``: the
same output columns (prediction and one probability per class), the same file format. It
checks that the two outputs agree (predictions equal, probabilities to 1e-9) and deletes its
files (``--keep`` keeps them). Not a test: it needs minutes and a few GB of disk.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

CLASSES = np.array(["alpha", "beta", "gamma"])
COLOURS = np.array(["red", "green", "blue", "amber", "violet"])
BLOCK_ROWS = 500_000


def block(seed: int, n: int) -> pd.DataFrame:
    """Mixed rows whose columns depend on the class, with missing cells and rare values
    the training file may not hold."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    frame = pd.DataFrame(
        rng.normal(size=(n, 8)) + 0.3 * y[:, None], columns=[f"x{i}" for i in range(8)]
    )
    for j in range(3):
        codes = (rng.integers(0, 5, n) * (rng.random(n) < 0.7) + y * (j + 1)) % 5
        values = COLOURS[codes].astype(object)
        values[rng.random(n) < 1e-4] = "ultraviolet"
        frame[f"colour{j}"] = values
    frame["visits"] = rng.poisson(2 + y).astype(np.float64)
    for col in frame.columns:
        frame.loc[rng.random(n) < 0.02, col] = None
    frame["label"] = CLASSES[y]
    return frame


def write_parquet(path: Path, rows: int) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    writer = None
    try:
        for i, start in enumerate(range(0, rows, BLOCK_ROWS)):
            table = pa.Table.from_pandas(
                block(seed=i, n=min(BLOCK_ROWS, rows - start)), preserve_index=False
            )
            writer = writer or pq.ParquetWriter(path, table.schema)
            writer.write_table(table)
    finally:
        if writer is not None:
            writer.close()


DUCKDB_SCRIPT = """
import sys, duckdb
query, data, out, threads = sys.argv[1:]
con = duckdb.connect()
con.execute(f"SET threads = {int(threads)}")
con.execute(f"CREATE VIEW t AS SELECT * FROM read_parquet('{data}')")
outputs = ", ".join(
    '"' + c + '"' for c in con.execute(f"SELECT * FROM ({query}) LIMIT 0").fetchdf().columns
    if c == "prediction" or c.startswith("proba_")
)
con.execute(f"COPY (SELECT {outputs} FROM ({query})) TO '{out}' (FORMAT parquet)")
"""


def timed(command: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10_000_000, help="rows to score")
    parser.add_argument(
        "--threads", type=int, default=os.cpu_count(), help="DuckDB and nbayes threads"
    )
    parser.add_argument("--dir", default=tempfile.gettempdir(), help="where to write the files")
    parser.add_argument("--keep", action="store_true", help="keep the files")
    args = parser.parse_args(argv)

    folder = Path(tempfile.mkdtemp(prefix="nbayes-export-", dir=args.dir))
    big, train = folder / "big.parquet", folder / "train.parquet"
    model, sql = folder / "model.nbayes", folder / "model.sql"
    by_sql, by_nbayes = folder / "sql.parquet", folder / "nbayes.parquet"
    nbayes = [sys.executable, "-m", "nbayes"]
    env = {**os.environ, "OMP_NUM_THREADS": str(args.threads)}
    try:
        start = time.perf_counter()
        write_parquet(big, args.rows)
        block(seed=10_000, n=200_000).to_parquet(train, index=False)
        print(f"wrote {args.rows:,} rows in {time.perf_counter() - start:.0f} s")
        subprocess.run(
            [*nbayes, "train", str(train), "--target", "label", "-o", str(model), "--quiet"],
            check=True,
            env=env,
        )
        subprocess.run(
            [*nbayes, "export", str(model), "--format", "sql", "-o", str(sql)], check=True, env=env
        )
        query = sql.read_text().rstrip().rstrip(";")
        print(f"load average before: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        t_sql = timed(
            [sys.executable, "-c", DUCKDB_SCRIPT, query, str(big), str(by_sql), str(args.threads)],
            env,
        )
        t_nb = timed(
            [*nbayes, "predict", str(model), str(big), "--proba", "-o", str(by_nbayes)],
            env,
        )
        print(f"load average after: {os.getloadavg()[0]:.1f}")
        a, b = pd.read_parquet(by_sql), pd.read_parquet(by_nbayes)
        same = (a["prediction"].astype(str) == b["prediction"].astype(str)).mean()
        probas = [c for c in b.columns if c.startswith("proba_")]
        worst = float(np.nanmax(np.abs(a[probas].to_numpy() - b[probas].to_numpy())))
        print()
        print(f"| scoring {args.rows:,} Parquet rows ({args.threads} threads) | seconds | rows/s |")
        print("|---|---:|---:|")
        for name, t in (("DuckDB, exported SQL", t_sql), ("nbayes predict", t_nb)):
            print(f"| {name} | {t:.1f} | {args.rows / t:,.0f} |")
        print(
            f"\npredictions equal on {same:.4%} of rows; largest probability difference {worst:.1e}"
        )
    finally:
        if args.keep:
            print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
