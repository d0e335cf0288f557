"""`nbayes train` / `nbayes evaluate` on Enron-Spam (enron1), as a user would run them.

Usage::

    python -m benchmarks.cli_enron [--data ../shared/data] [--dir OUT] [-- extra train options]

It turns ``enron_spam_enron1/enron1.tar.gz`` (one e-mail per file, Latin-1) into two CSV files,
a stratified 75 % training part and the 25 % held back (``random_state=0``), then runs::

    nbayes train train.csv --target label --text-column text --encoding latin-1 -o enron.nbayes
    nbayes evaluate enron.nbayes test.csv --encoding latin-1

and prints both outputs. Extra arguments after ``--`` go to ``nbayes train``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import pandas as pd
from sklearn.model_selection import train_test_split

ROOT = Path(__file__).resolve().parents[1]


def enron_frame(tar_path: Path) -> pd.DataFrame:
    """label ("ham"/"spam") and text of every message in the tarball."""
    rows = []
    with tarfile.open(tar_path) as tar:
        for member in tar:
            parts = member.name.split("/")
            if member.isfile() and len(parts) == 3 and parts[1] in ("ham", "spam"):
                rows.append((parts[1], tar.extractfile(member).read().decode("latin-1")))
    return pd.DataFrame(rows, columns=["label", "text"])


def main(argv=None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    argv = argv[: argv.index("--")] if "--" in argv else argv
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    parser.add_argument("--dir", default=None, help="output folder (default: a temp folder)")
    args = parser.parse_args(argv)

    folder = Path(args.dir or tempfile.mkdtemp(prefix="nbayes-enron-"))
    folder.mkdir(parents=True, exist_ok=True)
    df = enron_frame(Path(args.data) / "enron_spam_enron1" / "enron1.tar.gz")
    train, test = train_test_split(df, test_size=0.25, random_state=0, stratify=df["label"])
    train.to_csv(folder / "train.csv", index=False, encoding="latin-1")
    test.to_csv(folder / "test.csv", index=False, encoding="latin-1")
    print(f"{len(df):,} messages -> {folder}/train.csv ({len(train):,}), test.csv ({len(test):,})")
    nbayes = [sys.executable, "-m", "nbayes"]
    model = folder / "enron.nbayes"
    for command in (
        [
            *nbayes,
            "train",
            str(folder / "train.csv"),
            "--target",
            "label",
            "--text-column",
            "text",
            "--encoding",
            "latin-1",
            "-o",
            str(model),
            *extra,
        ],
        [*nbayes, "evaluate", str(model), str(folder / "test.csv"), "--encoding", "latin-1"],
    ):
        print("$ nbayes", " ".join(command[3:]))
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        print(done.stdout + done.stderr)
        if done.returncode:
            return done.returncode
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
