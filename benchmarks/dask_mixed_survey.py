"""MixedNB on Dask: the cost of the survey that reads columns as ``MixedNB.fit`` does.

Usage::

    python -m benchmarks.dask_mixed_survey                  # 400,000 rows, 8 partitions
    python -m benchmarks.dask_mixed_survey --rows 20000 --repeat 1   # quick check
    python -m benchmarks.dask_mixed_survey --no-dates       # for versions that refuse dates

It generates a table (eight float measurements, two small integer codes, a row number, a
city, a free-form reference code and, unless ``--no-dates``, a date written as text), cuts
it into ``--partitions`` pandas partitions, and times (median of ``--repeat`` runs, on Dask's
synchronous scheduler so that one core does all the work) ``nbayes.dask.fit(MixedNB(), ...)``
and ``MixedNB().fit`` on the same rows in memory. It prints one JSON object with both times
and the survey's share (the Dask fit minus a fit with every family named, which needs no
reading).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
import warnings


def _table(n_rows: int, dates: bool, seed: int = 0):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n_rows)
    table = {f"m{j}": rng.normal(y * 0.3 * j, 1.0, n_rows) for j in range(8)}
    table.update(
        {
            "level": rng.integers(0, 6, n_rows),
            "grade": rng.integers(0, 12, n_rows),
            "rownumber": rng.permutation(n_rows),
            "city": rng.choice(["Oslo", "Rome", "Lima", "Pune", "Kobe"], n_rows),
            "ref": [f"R{k:06d}" for k in rng.integers(0, 10 * n_rows, n_rows)],
        }
    )
    if dates:
        days = pd.Timestamp("2020-01-01") + pd.to_timedelta(rng.integers(0, 900, n_rows), "D")
        table["when"] = days.strftime("%Y-%m-%d")
    table["label"] = y
    return pd.DataFrame(table)


def _timed(run, repeat: int) -> float:
    times = []
    for _ in range(repeat):  # a handful of runs
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=400_000)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-dates", action="store_true")
    args = parser.parse_args(argv)

    import dask
    import dask.dataframe as dd

    import nbayes
    from nbayes import MixedNB
    from nbayes import dask as nbdask

    frame = _table(args.rows, not args.no_dates)
    with dask.config.set({"dataframe.convert-string": False}):
        ddf = dd.from_pandas(frame, npartitions=args.partitions, sort=False)
    X, y = ddf.drop(columns=["label"]), ddf["label"]
    full = ddf.compute()
    named = [("gaussian", [f"m{j}" for j in range(8)] + ["rownumber"])]
    named += [("categorical", ["level", "grade", "city", "ref"])]
    if not args.no_dates:
        named += [("categorical", ["when"])]
    warnings.simplefilter("ignore")
    with dask.config.set(scheduler="synchronous"):
        dask_auto = _timed(lambda: nbdask.fit(MixedNB(), X, y), args.repeat)
        dask_named = _timed(lambda: nbdask.fit(MixedNB(columns=named), X, y), args.repeat)
    memory = _timed(lambda: MixedNB().fit(full.drop(columns=["label"]), full["label"]), args.repeat)
    result = {
        "nbayes": nbayes.__file__,
        "rows": args.rows,
        "partitions": args.partitions,
        "dates": not args.no_dates,
        "dask_fit_auto_s": round(dask_auto, 3),
        "dask_fit_named_s": round(dask_named, 3),
        "fit_in_memory_s": round(memory, 3),
    }
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
