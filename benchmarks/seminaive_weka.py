"""Weka 3.6 and nbayes side by side on the same splits and the same table (issue 15).

    python -m benchmarks.seminaive_weka [--data ../shared/data] [--rows 100000]

Needs Java and Weka 3.6 (Debian: ``apt-get install weka``, which puts the jar in
/usr/share/java/weka.jar; ``--weka`` points elsewhere). The tests never need it.

Accuracy: the very rows of each split are written as ARFF files ('?' for a missing value, each
nominal attribute declaring the values of the whole table) and given to Weka with
``-t train.arff -T test.arff``: Mushroom 30 % stratified test split (seed 0), Adult's official
test split, Spambase 30 % stratified test split (seed 0). Weka runs NaiveBayes (Gaussian
numeric attributes, its default), AODE behind FilteredClassifier with the supervised
Discretize filter (Fayyad & Irani's MDL; AODE takes nominal attributes only) and BayesNet with
the TAN search (which discretises numeric attributes the same way itself). nbayes runs its
defaults: naive Bayes (AODE with no qualifying parent, on the same MDL codes), AODE, A2DE,
TAN, KDB(k=2) and JointBayes.

Speed: ``--rows`` rows of 20 nominal attributes with 10 values each and 5 classes
(:func:`benchmarks.seminaive.data`); each model is trained on the table and scores the same
table. Weka's own "Time taken to build model" and "Time taken to test model on training data"
(JVM start and file parsing excluded) beside nbayes's wall-clock fit and predict_proba, all in
this one run. Times are of one run each, on whatever machine runs this: rerun on a quiet one.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import accuracy_score

import nbayes

from .seminaive import data as chain_data
from .seminaive_accuracy import MODELS as NBAYES_MODELS
from .seminaive_accuracy import datasets

WEKA_JAR = Path("/usr/share/java/weka.jar")
DISCRETIZE = "weka.filters.supervised.attribute.Discretize -R first-last"
WEKA_MODELS = {
    "NaiveBayes": ["weka.classifiers.bayes.NaiveBayes"],
    "AODE (supervised Discretize)": [
        "weka.classifiers.meta.FilteredClassifier",
        "-F",
        DISCRETIZE,
        "-W",
        "weka.classifiers.bayes.AODE",
    ],
    # -D: count without an ADTree (same counts; Weka's ADTree over 20 attributes of 10
    # values did not finish building on 100k rows in 8 minutes and an 8 GB heap).
    "BayesNet TAN": [
        "weka.classifiers.bayes.BayesNet",
        "-D",
        "-Q",
        "weka.classifiers.bayes.net.search.local.TAN",
    ],
}
#: The same models on an all-nominal table (no filter needed) for the speed comparison.
WEKA_SPEED = {
    "AODE": ["weka.classifiers.bayes.AODE"],
    "TAN": WEKA_MODELS["BayesNet TAN"],
    "NaiveBayes": WEKA_MODELS["NaiveBayes"],
}


def _quote(value) -> str:
    text = str(value).replace("\\", "\\\\").replace("'", "\\'")
    return f"'{text}'"


def write_arff(path: Path, X: pd.DataFrame, y, whole: pd.DataFrame, labels) -> None:
    """``X, y`` as an ARFF file whose nominal attributes declare the values of ``whole``
    (so that the train and test files share one header); numeric columns stay numeric."""
    numeric = [
        pd.api.types.is_numeric_dtype(t) and not pd.api.types.is_bool_dtype(t) for t in X.dtypes
    ]
    lines = ["@relation nbayes"]
    for column, is_num in zip(X.columns, numeric):  # bounded by the columns
        if is_num:
            lines.append(f"@attribute {_quote(column)} numeric")
        else:
            values = sorted(pd.unique(whole[column].dropna().astype(str)))
            lines.append(f"@attribute {_quote(column)} {{{','.join(map(_quote, values))}}}")
    classes = sorted({str(v) for v in labels})
    lines.append(f"@attribute class {{{','.join(map(_quote, classes))}}}")
    lines.append("@data")
    cells = []
    for column, is_num in zip(X.columns, numeric):  # bounded by the columns
        col = X[column]
        text = col.map(repr) if is_num else col.astype(str).map(_quote)
        cells.append(text.where(col.notna(), "?").to_numpy(dtype=object))
    cells.append(np.array([_quote(v) for v in y], dtype=object))
    body = [",".join(row) for row in zip(*cells)]
    path.write_text("\n".join(lines + body) + "\n")


def run_weka(jar: Path, model: list[str], train: Path, test: Path | None) -> dict:
    """One Weka run; returns its test accuracy and its own build and test times."""
    cmd = ["java", "-Xmx8g", "-cp", str(jar), *model, "-t", str(train), "-o"]
    cmd += ["-T", str(test), "-v"] if test is not None else ["-no-cv"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    accuracy = re.findall(r"Correctly Classified Instances\s+\d+\s+([\d.]+)\s*%", out)
    build = re.search(r"Time taken to build model: ([\d.]+) seconds", out)
    tested = re.search(r"Time taken to test model on \w+ data: ([\d.]+) seconds", out)
    return {
        "accuracy": float(accuracy[-1]) / 100 if accuracy else float("nan"),
        "build": float(build.group(1)) if build else float("nan"),
        "test": float(tested.group(1)) if tested else float("nan"),
    }


def accuracy_table(jar: Path, folder: Path, work: Path) -> None:
    rows: dict[str, dict[str, str]] = {}
    names = []
    for name, (X_train, X_test, y_train, y_test) in datasets(folder):  # three datasets
        names.append(name)
        whole = pd.concat([X_train, X_test])
        labels = np.concatenate([y_train, y_test])
        train, test = work / f"{name}-train.arff", work / f"{name}-test.arff"
        write_arff(train, X_train, y_train, whole, labels)
        write_arff(test, X_test, y_test, whole, labels)
        for label, make in NBAYES_MODELS.items():  # bounded: six models
            model = make().fit(X_train, y_train)
            acc = accuracy_score(y_test, model.predict(X_test))
            rows.setdefault(f"nbayes {label}", {})[name] = f"{acc:.4f}"
            print(f"{name:9s} nbayes {label:28s} {acc:.4f}", flush=True)
        for label, spec in WEKA_MODELS.items():  # bounded: three models
            acc = run_weka(jar, spec, train, test)["accuracy"]
            rows.setdefault(f"Weka 3.6 {label}", {})[name] = f"{acc:.4f}"
            print(f"{name:9s} Weka {label:30s} {acc:.4f}", flush=True)
    print("\n| model | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for label, cells in rows.items():
        print(f"| {label} | " + " | ".join(cells.get(n, "") for n in names) + " |")


def speed_table(jar: Path, n_rows: int, work: Path) -> None:
    X, y = chain_data(n_rows)
    frame = pd.DataFrame(X).rename(columns=lambda j: f"f{j}")
    path = work / "speed.arff"
    write_arff(path, frame.astype(str), y, frame.astype(str), y)
    cols = list(range(X.shape[1]))
    ours = {
        "NaiveBayes": lambda: nbayes.CategoricalNB(),
        "AODE": lambda: nbayes.AODE(categorical=cols),
        "TAN": lambda: nbayes.TAN(categorical=cols),
    }
    print(f"\n{n_rows} rows x {X.shape[1]} nominal attributes (10 values), 5 classes; seconds")
    print("| model | Weka build | nbayes fit | Weka test | nbayes predict_proba |")
    print("|---|---:|---:|---:|---:|")
    for name, spec in WEKA_SPEED.items():  # bounded: three models
        weka = run_weka(jar, spec, path, None)
        start = time.perf_counter()
        model = ours[name]().fit(X, y)
        fit = time.perf_counter() - start
        start = time.perf_counter()
        model.predict_proba(X)
        proba = time.perf_counter() - start
        print(
            f"| {name} | {weka['build']:.2f} | {fit:.2f} | {weka['test']:.2f} | {proba:.2f} |",
            flush=True,
        )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    default = Path(__file__).resolve().parents[3] / "shared" / "data"
    parser.add_argument("--data", type=Path, default=default)
    parser.add_argument("--weka", type=Path, default=WEKA_JAR)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--skip-accuracy", action="store_true")
    args = parser.parse_args(argv)
    if shutil.which("java") is None or not args.weka.exists():
        sys.exit(f"needs java and Weka 3.6 at {args.weka} (Debian: apt-get install weka)")
    print(f"nbayes {nbayes.__version__}; {nbayes._accel.describe()}")
    with tempfile.TemporaryDirectory() as tmp:
        if not args.skip_accuracy:
            accuracy_table(args.weka, args.data, Path(tmp))
        speed_table(args.weka, args.rows, Path(tmp))


if __name__ == "__main__":
    main()
