"""Accuracy of naive Bayes and the semi-naive models on Mushroom, Adult and Spambase.

    python -m benchmarks.seminaive_accuracy [--data ../shared/data]

Splits: Mushroom 30 % stratified test split (seed 0); Adult's official test split; Spambase
30 % stratified test split (seed 0). Numeric columns are cut by Fayyad & Irani's MDL
discretisation (the default, as Weka does before AODE); naive Bayes is ``AODE`` with no
qualifying parent (``min_parent_count=inf``), so every model sees the same codes. Prints a
Markdown table of test accuracy (and log-loss), the figures of docs/user_guide/seminaive.rst.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import accuracy_score, log_loss
from sklearn.model_selection import train_test_split

import nbayes

MODELS = {
    "naive Bayes": lambda: nbayes.AODE(min_parent_count=np.inf),
    "AODE": lambda: nbayes.AODE(),
    "A2DE": lambda: nbayes.AODE(n=2),
    "TAN": lambda: nbayes.TAN(),
    "KDB(k=2)": lambda: nbayes.KDB(k=2),
    "JointBayes": lambda: nbayes.JointBayes(),
}


def datasets(folder: Path):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from test_real_tables import load_adult, load_mushroom

    X, y = load_mushroom(folder)
    yield "Mushroom", train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    (X_train, y_train), (X_test, y_test) = load_adult(folder)
    yield "Adult", (X_train, X_test, y_train, y_test)
    table = np.loadtxt(folder / "spambase" / "spambase.data", delimiter=",")
    X = pd.DataFrame(table[:, :-1]).rename(columns=str)
    y = table[:, -1].astype(int)
    yield "Spambase", train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(__file__).resolve().parents[3] / "shared" / "data"
    parser.add_argument("--data", type=Path, default=default)
    args = parser.parse_args(argv)
    rows = {}
    for name, (X_train, X_test, y_train, y_test) in datasets(args.data):  # three datasets
        for label, make in MODELS.items():  # bounded: six models
            start = time.perf_counter()
            model = make().fit(X_train, y_train)
            proba = model.predict_proba(X_test)
            took = time.perf_counter() - start
            acc = accuracy_score(y_test, model.classes_[proba.argmax(axis=1)])
            loss = log_loss(y_test, np.clip(proba, 1e-15, 1), labels=model.classes_)
            rows.setdefault(label, {})[name] = f"{acc:.4f} ({loss:.3f})"
            print(f"{name:9s} {label:12s} {acc:.4f} log-loss {loss:.3f} {took:6.1f} s", flush=True)
    names = ["Mushroom", "Adult", "Spambase"]
    print("\n| model | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for label, cells in rows.items():
        print(f"| {label} | " + " | ".join(cells.get(n, "") for n in names) + " |")


if __name__ == "__main__":
    main()
