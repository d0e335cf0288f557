"""Fit and predict of two source trees side by side: did typed statistics slow anything down?

Usage::

    python -m benchmarks.typed_stats BEFORE_SRC AFTER_SRC [--repeat 7]

Each ``*_SRC`` is a ``src`` folder holding a built ``nbayes`` package. For each tree, in a
child process of its own (so that each imports its own nbayes), in alternating rounds:
GaussianNB, MultinomialNB and MixedNB (a merge per batch through ``partial_fit``) on UCI
Spambase, and MultinomialNB and BernoulliNB on the word counts of the SMS Spam Collection;
the semi-naive models' typed count tables: TAN fit and predict, KDB over ten batches (a merge
per batch, at TAN's bin edges), JointBayes fit and unlearning half of the rows, on Spambase.
Each round keeps the best of five runs per case; prints the median over rounds of
those seconds and the ratio after/before. Not a test.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"

CHILD = r"""
import csv, json, sys, time
import numpy as np
from sklearn.feature_extraction.text import CountVectorizer
import nbayes

data = sys.argv[1]
rows = np.loadtxt(f"{data}/spambase/spambase.data", delimiter=",")
X, y = rows[:, :-1], rows[:, -1].astype(int)
with open(f"{data}/sms_spam_collection/SMSSpamCollection", encoding="utf-8") as f:
    sms = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
W = CountVectorizer().fit_transform([t for _, t in sms])
labels = np.array([c for c, _ in sms])


def batches(model, X, y, n=10):
    step = -(-X.shape[0] // n)
    for i in range(0, X.shape[0], step):
        model.partial_fit(X[i : i + step], y[i : i + step], classes=np.unique(y))
    return model


edges = nbayes.TAN().fit(X, y).bin_edges_  # fixed edges, so that batches can be learned


def unlearn_half(model):
    model.fit(X, y)
    return model.unlearn(X[::2], y[::2])


cases = {
    "spambase GaussianNB fit+predict": lambda: nbayes.GaussianNB().fit(X, y).predict(X),
    "spambase MultinomialNB fit+predict": lambda: nbayes.MultinomialNB().fit(X, y).predict(X),
    "spambase MixedNB 10 partial_fit": lambda: batches(nbayes.MixedNB(), X, y),
    "sms MultinomialNB fit+predict": lambda: nbayes.MultinomialNB().fit(W, labels).predict(W),
    "sms BernoulliNB 10 partial_fit": lambda: batches(nbayes.BernoulliNB(), W, labels),
    "spambase TAN fit+predict": lambda: nbayes.TAN().fit(X, y).predict(X),
    "spambase KDB 10 partial_fit": lambda: batches(nbayes.KDB(k=1, bin_edges=edges), X, y),
    "spambase JointBayes fit+unlearn half": lambda: unlearn_half(nbayes.JointBayes()),
}
out = {}
for name, run in cases.items():
    run()  # warm up
    times = []
    for _ in range(5):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    out[name] = min(times)
print(json.dumps(out))
"""


def one_round(src: str) -> dict:
    env = {**os.environ, "PYTHONPATH": src}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(DATA.resolve())],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    runs: dict[str, list[dict]] = {"before": [], "after": []}
    for _ in range(args.repeat):  # alternate, so that load drifts hit both trees alike
        runs["before"].append(one_round(args.before))
        runs["after"].append(one_round(args.after))
    print(f"load average {os.getloadavg()[0]:.2f}; medians of {args.repeat} rounds (s)")
    print(f"{'case':40s} {'before':>8s} {'after':>8s} {'ratio':>6s}")
    for name in runs["before"][0]:
        b = sorted(r[name] for r in runs["before"])[args.repeat // 2]
        a = sorted(r[name] for r in runs["after"])[args.repeat // 2]
        print(f"{name:40s} {b:8.4f} {a:8.4f} {a / b:6.2f}")


if __name__ == "__main__":
    csv.field_size_limit(1 << 24)
    main()
