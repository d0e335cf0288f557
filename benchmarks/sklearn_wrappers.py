"""scikit-learn's meta-estimators and displays around every nbayes estimator, against the same
tool around scikit-learn's corresponding naive Bayes (or, where it has none, around the
estimator's own predict_proba alone: ``nbayes.testing.ProbaOnly``).

    python -m benchmarks.sklearn_wrappers [--data ../shared/data] [--estimators A,B]
        [--wrappers W1,W2] [--json out.json]

The splits and estimators are those of the test suite (``tests/_ecosystem.py``: real data from
``../shared/data``, small stratified samples, seed 0; tools that cross-validate use 3 folds).
Prints a Markdown table, one row per estimator x split x tool: accuracy and log-loss (for the
displays ROC AUC, average precision or Brier score) of nbayes and of the reference, and whether
nbayes is within ``nbayes.testing.TOLERANCE``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the suite's data and table, shared with the tests

from _ecosystem import ESTIMATORS, SPLITS, split  # noqa: E402

from nbayes.testing import TOLERANCE, Comparison, ProbaOnly, applicable_wrappers, run_wrapper  # noqa: E402


def measure(names, wrappers, data: Path) -> list[dict]:
    rows = []
    for name in names:  # a dozen estimators: bounded
        entry = ESTIMATORS[name]
        for split_name in entry.splits:
            data_split = split(split_name, data)
            numeric = SPLITS[split_name].numeric
            for wrapper in applicable_wrappers(data_split, numeric):
                if wrappers and wrapper not in wrappers:
                    continue
                estimator = entry.factory()
                reference = entry.reference() if entry.reference else ProbaOnly(estimator)
                start = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    got = run_wrapper(wrapper, estimator, data_split)
                    ref = run_wrapper(wrapper, reference, data_split)
                seconds = time.perf_counter() - start
                failures = Comparison(wrapper, got, ref).failures()
                rows.append(
                    {
                        "estimator": name,
                        "split": data_split.name,
                        "wrapper": wrapper,
                        "reference": "sklearn" if entry.reference else "predict_proba alone",
                        "nbayes": got.metrics,
                        "ref": ref.metrics,
                        "ok": not failures,
                        "failures": failures,
                        "seconds": round(seconds, 3),
                    }
                )
                print(_line(rows[-1]), flush=True)
    return rows


def _fmt(metrics: dict) -> str:
    return " / ".join(f"{k} {v:.4f}" for k, v in metrics.items())


def _line(row: dict) -> str:
    return (
        f"| {row['estimator']} | {row['split']} | {row['wrapper']} | {_fmt(row['nbayes'])} | "
        f"{_fmt(row['ref'])} ({row['reference']}) | {'yes' if row['ok'] else 'NO'} | "
        f"{row['seconds']} |"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--estimators", default=",".join(ESTIMATORS))
    parser.add_argument("--wrappers", default="")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if not args.data.is_dir():
        for parent in ROOT.parents:
            if (parent / "shared" / "data").is_dir():
                args.data = parent / "shared" / "data"
                break
    print(f"tolerance: {TOLERANCE}")
    print("| estimator | split | tool | nbayes | reference | within tolerance | seconds |")
    print("|---|---|---|---|---|---|---|")
    start = time.perf_counter()
    rows = measure(
        args.estimators.split(","), set(filter(None, args.wrappers.split(","))), args.data
    )
    bad = [r for r in rows if not r["ok"]]
    print(
        f"\n{len(rows)} comparisons, {len(bad)} outside the tolerance, "
        f"{time.perf_counter() - start:.0f} s"
    )
    for r in bad:
        print(f"  {r['estimator']} {r['split']} {r['wrapper']}: {'; '.join(r['failures'])}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
