"""Peak memory of `nbayes train` on a CSV larger than the memory it may use.

Usage::

    python -m benchmarks.cli_big_csv                    # 2 GB CSV in $TMPDIR, --model auto
    python -m benchmarks.cli_big_csv --gb 3 --model gaussian --dir /scratch

It writes a CSV of at least ``--gb`` gigabytes (12 Gaussian measurements whose means depend on
the class, 3 categorical colour columns, one Poisson count, 3 classes), runs
``/usr/bin/time -v nbayes train BIG.csv --target label -o MODEL`` and reports the maximum
resident set size, then evaluates the model on a separate 100,000-row file and deletes the big
file (the disk is shared; ``--keep`` keeps it).

Formatting floats is slow in pandas, so the big file is 16 distinct blocks of 100,000 rows
written round-robin until it is large enough: the rows repeat every 1.6 million, which changes
nothing for memory or speed (chunks do not align with the blocks) and keeps generation to a
minute. Not a test: it needs minutes and gigabytes.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

BLOCK_ROWS = 100_000
N_BLOCKS = 16
CLASSES = np.array(["alpha", "beta", "gamma"])
COLOURS = np.array(["red", "green", "blue", "amber", "violet"])


def block(seed: int, n: int = BLOCK_ROWS) -> pd.DataFrame:
    """One block of synthetic mixed-type rows; class-dependent so the model has work to do."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    frame = pd.DataFrame(
        rng.normal(size=(n, 12)) + 0.3 * y[:, None], columns=[f"x{i}" for i in range(12)]
    )
    for j in range(3):
        frame[f"colour{j}"] = COLOURS[
            (rng.integers(0, 5, n) * (rng.random(n) < 0.7) + y * (j + 1)) % 5
        ]
    frame["visits"] = rng.poisson(2 + y)
    frame["label"] = CLASSES[y]
    return frame


def write_big_csv(path: Path, gigabytes: float) -> tuple[int, int]:
    """Write at least ``gigabytes`` GB; return (bytes, rows)."""
    blocks = []
    for i in range(N_BLOCKS):
        text = block(seed=i).to_csv(index=False, float_format="%.5g")
        header, body = text.split("\n", 1)
        blocks.append(body.encode())
    target = int(gigabytes * 1e9)
    size, rows = 0, 0
    with open(path, "wb") as f:
        f.write(header.encode() + b"\n")
        while size < target:
            body = blocks[(rows // BLOCK_ROWS) % N_BLOCKS]
            f.write(body)
            size += len(body)
            rows += BLOCK_ROWS
    return path.stat().st_size, rows


def write_big_text_csv(path: Path, gigabytes: float, data: Path) -> tuple[int, int]:
    """Write at least ``gigabytes`` GB of e-mails (Enron-Spam enron1, repeated); return
    (bytes, rows). The vocabulary is Enron's, whatever the size."""
    from .cli_enron import enron_frame

    frame = enron_frame(data / "enron_spam_enron1" / "enron1.tar.gz")
    header, body = frame.to_csv(index=False).split("\n", 1)
    body = body.encode()
    target = int(gigabytes * 1e9)
    size, rows = 0, 0
    with open(path, "wb") as f:
        f.write(header.encode() + b"\n")
        while size < target:
            f.write(body)
            size += len(body)
            rows += len(frame)
    return path.stat().st_size, rows


def max_rss_mb(stderr: str) -> float:
    match = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    return int(match.group(1)) / 1024 if match else float("nan")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--gb", type=float, default=2.0, help="size of the CSV (default 2)")
    parser.add_argument("--dir", default=tempfile.gettempdir(), help="where to write it")
    parser.add_argument("--model", default="auto", help="--model for nbayes train")
    parser.add_argument(
        "--exclude", help="--exclude for nbayes train (e.g. the colour columns for a numeric model)"
    )
    parser.add_argument(
        "--text",
        action="store_true",
        help="a CSV of e-mails (Enron-Spam repeated) instead of mixed columns; "
        "trains a text model with its vocabulary pass",
    )
    parser.add_argument(
        "--data",
        default=str(Path(__file__).resolve().parents[2] / "shared" / "data"),
        help="shared data (for --text)",
    )
    parser.add_argument("--keep", action="store_true", help="keep the big CSV")
    args = parser.parse_args(argv)

    folder = Path(tempfile.mkdtemp(prefix="nbayes-big-", dir=args.dir))
    big, model, test = folder / "big.csv", folder / "big.nbayes", folder / "test.csv"
    nbayes = [sys.executable, "-m", "nbayes"]
    try:
        start = time.perf_counter()
        if args.text:
            size, rows = write_big_text_csv(big, args.gb, Path(args.data))
            with open(big, "rb") as f:  # the first 20 MB (about 18,000 messages) as test
                head = np.frombuffer(f.read(20 * 2**20), dtype=np.uint8)
            # Cut after the last newline outside quotes: e-mails span lines.
            ends = np.flatnonzero((head == ord("\n")) & (np.cumsum(head == ord('"')) % 2 == 0))
            test.write_bytes(head[: ends[-1] + 1].tobytes())
        else:
            size, rows = write_big_csv(big, args.gb)
            block(seed=1000).to_csv(test, index=False, float_format="%.5g")
        print(
            f"wrote {big}: {size / 1e9:.2f} GB, {rows:,} rows, in "
            f"{time.perf_counter() - start:.0f} s"
        )
        command = [
            "/usr/bin/time",
            "-v",
            *nbayes,
            "train",
            str(big),
            "--target",
            "label",
            "--model",
            args.model,
            "-o",
            str(model),
            "--quiet",
            *(["--exclude", args.exclude] if args.exclude else []),
        ]
        print("$", " ".join(command))
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        seconds = time.perf_counter() - start
        if done.returncode != 0:
            print(done.stdout, done.stderr, sep="\n")
            return done.returncode
        print(
            f"trained in {seconds:.0f} s ({size / 1e6 / seconds:.0f} MB/s); peak memory "
            f"(max RSS) {max_rss_mb(done.stderr):.0f} MB"
        )
        print(
            subprocess.run(
                [*nbayes, "inspect", str(model)], capture_output=True, text=True, check=True
            ).stdout
        )
        report = subprocess.run(
            [*nbayes, "evaluate", str(model), str(test)], capture_output=True, text=True, check=True
        ).stdout
        print("\n".join(report.splitlines()[:7]))
    finally:
        if not args.keep:
            for path in (big, test, model):
                if path.exists():
                    os.unlink(path)
            folder.rmdir() if not any(folder.iterdir()) else None
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
