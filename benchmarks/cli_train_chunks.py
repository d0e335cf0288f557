"""CPU time of `nbayes train` over many chunks of a table with a wide category vocabulary.

Usage::

    python -m benchmarks.cli_train_chunks                  # 300,000 rows, 1,000-row chunks
    python -m benchmarks.cli_train_chunks --rows 100000 --chunk-rows 500 --repeat 5

The table has an identifier column of up to 200,000 distinct values (read as a category with
``--categorical id``), a city of 3,000 values, one Gaussian column and three classes. Every
chunk widens the identifier's counts, so what training does per chunk beyond counting it (a
finalize per chunk, copies of the table) shows here. Each run is a fresh process; the CPU
time of the child (user + system) is reported, less sensitive to other work on the machine
than the wall time, which is reported beside it. Compare two versions by running this with
each one's ``PYTHONPATH`` in the same session.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd


def write_table(path: Path, rows: int) -> None:
    """The benchmark table: identifiers, cities, one number and a label."""
    rng = np.random.default_rng(2)
    pd.DataFrame(
        {
            "id": rng.integers(0, 200_000, rows).astype(str),
            "city": rng.choice([f"c{i}" for i in range(3000)], rows),
            "x": rng.normal(size=rows),
            "y": rng.choice(["a", "b", "c"], rows),
        }
    ).to_csv(path, index=False)


def train_once(data: Path, model: Path, chunk_rows: int) -> tuple[float, float]:
    """(child CPU seconds, wall seconds) of one `nbayes train`."""
    argv = [sys.executable, "-m", "nbayes", "train", str(data), "-t", "y"]
    argv += ["--categorical", "id", "--chunk-rows", str(chunk_rows), "-o", str(model), "-q"]
    before = os.times()
    start = time.perf_counter()
    subprocess.run(argv, check=True, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = os.times()
    cpu = (after.children_user - before.children_user) + (
        after.children_system - before.children_system
    )
    return cpu, wall


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--chunk-rows", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        data, model = Path(folder) / "wide.csv", Path(folder) / "wide.nbayes"
        write_table(data, args.rows)
        runs = [train_once(data, model, args.chunk_rows) for _ in range(args.repeat)]
    cpu = sorted(c for c, _ in runs)
    wall = sorted(w for _, w in runs)
    print(
        f"nbayes train, {args.rows:,} rows in chunks of {args.chunk_rows:,}: CPU "
        f"{', '.join(f'{c:.2f}' for c in cpu)} s (median {cpu[len(cpu) // 2]:.2f}); wall "
        f"{', '.join(f'{w:.2f}' for w in wall)} s; load average {os.getloadavg()[0]:.1f}"
    )


if __name__ == "__main__":
    main()
