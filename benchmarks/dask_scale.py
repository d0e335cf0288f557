"""Distributed and out-of-core fit on Dask: 1 vs 2 workers, and peak memory against a limit.

Usage::

    python -m benchmarks.dask_scale                     # 2.2 GB of Parquet, 1 GiB per worker
    python -m benchmarks.dask_scale --gb 0.05 --repeat 1  # quick check of the script
    python -m benchmarks.dask_scale --csv-gb 1.0          # also an out-of-core fit from CSV

It writes a synthetic Gaussian-mixture data set (``--gb`` of float64 values in memory, 24
features, 4 classes, one Parquet file per ~100 MB partition) to a temporary folder, then fits
``GaussianNB`` with :func:`nbayes.dask.fit` straight from the files on a ``LocalCluster`` of one
and of two single-threaded worker processes, each limited to ``--memory-limit`` (Dask's nanny
restarts a worker that goes over it, so a fit that completes stayed under it). It reports the
fit time (median of ``--repeat`` runs, after a warm-up that imports nbayes on the workers),
each worker's peak resident memory (``ru_maxrss``) and the client's, and checks that both
distributed models equal each other to 1e-10. The data is larger than a worker may hold, so
the one-worker run is an out-of-core fit. With ``--local`` the same data is also loaded into
the client and fitted in memory, for reference. Generated files are deleted at the end
(``--keep`` keeps them).
"""

from __future__ import annotations

import argparse
import json
import logging
import multiprocessing
import os
import resource
import shutil
import statistics
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import cloudpickle
import numpy as np

N_FEATURES = 24
N_CLASSES = 4
ROWS_PER_FILE = 500_000  # ~96 MB of float64 per partition

# Workers run this module's helpers (peak memory) whether or not they can import it.
cloudpickle.register_pickle_by_value(sys.modules[__name__])


def peak_rss_bytes() -> int:
    """Peak resident memory of this process (Linux reports ru_maxrss in KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def cpu_seconds() -> float:
    """CPU time (user + system) this process has used so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def write_parquet(folder: Path, n_rows: int, seed: int = 0) -> int:
    """A Gaussian mixture in Parquet files of ROWS_PER_FILE rows; returns bytes on disk."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(seed)
    means = rng.normal(scale=2.0, size=(N_CLASSES, N_FEATURES))
    scales = rng.uniform(0.5, 3.0, size=(N_CLASSES, N_FEATURES))
    names = [f"f{j}" for j in range(N_FEATURES)]
    folder.mkdir(parents=True, exist_ok=True)
    for i, start in enumerate(range(0, n_rows, ROWS_PER_FILE)):
        n = min(ROWS_PER_FILE, n_rows - start)
        part = np.random.default_rng([seed, i])
        label = part.integers(0, N_CLASSES, n).astype(np.int8)
        X = part.standard_normal((n, N_FEATURES)) * scales[label] + means[label] + 100.0
        table = pa.table({**{c: X[:, j] for j, c in enumerate(names)}, "label": label})
        pq.write_table(table, folder / f"part-{i:04d}.parquet", compression="snappy")
    return sum(f.stat().st_size for f in folder.iterdir())


def write_csv(parquet: Path, folder: Path, n_files: int) -> int:
    """The first ``n_files`` Parquet partitions as CSV files; returns bytes on disk."""
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    for f in sorted(parquet.iterdir())[:n_files]:
        pcsv.write_csv(pq.read_table(f), folder / (f.stem + ".csv"))
    return sum(f.stat().st_size for f in folder.iterdir())


#: Dask starts workers with MALLOC_TRIM_THRESHOLD_=65536, which also turns off glibc's adaptive
#: mmap threshold: every large temporary is then a fresh mmap whose pages fault in on first
#: touch, and memory-bound kernels run ~2.5x slower. A high mmap threshold serves them from the
#: heap again (--tune-malloc).
TUNED_MALLOC = {"distributed.nanny.pre-spawn-environ.MALLOC_MMAP_THRESHOLD_": 2**30}


def distributed_fit(
    source: str, workers: int, memory_limit: str, repeat: int, log, tune_malloc: bool = False
) -> dict:
    import dask
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    import nbayes
    from nbayes import dask as nbdask

    features = [f"f{j}" for j in range(N_FEATURES)]
    with (
        dask.config.set(TUNED_MALLOC if tune_malloc else {}),
        LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            memory_limit=memory_limit,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        ) as cluster,
        Client(cluster) as client,
    ):
        client.run(lambda: __import__("nbayes.dask"))  # imports are not part of the fit
        pids = client.run(os.getpid)
        times, busiest, total, model = [], [], [], None
        for r in range(repeat):
            ddf = (
                dd.read_parquet(source)
                if source.endswith("parquet")
                else dd.read_csv(os.path.join(source, "*.csv"))
            )
            cpu_before = client.run(cpu_seconds)
            start = time.perf_counter()
            model = nbdask.fit(nbayes.GaussianNB(), ddf[features], ddf["label"])
            times.append(time.perf_counter() - start)
            # CPU seconds each worker spent: on a busy shared machine the wall time depends on
            # the neighbours, the work each worker did does not.
            used = [after - cpu_before[w] for w, after in client.run(cpu_seconds).items()]
            busiest.append(max(used))
            total.append(sum(used))
            log(
                f"  {workers} worker(s), run {r + 1}: {times[-1]:.2f} s wall, worker CPU "
                + " + ".join(f"{u:.1f}" for u in used)
                + " s"
            )
        peaks = client.run(peak_rss_bytes)
        # A worker over its memory limit is restarted by its nanny, with a new process id.
        restarted = set(client.run(os.getpid).values()) != set(pids.values())
        return {
            "workers": workers,
            "partitions": int(ddf.npartitions),
            "seconds": times,
            "median_s": statistics.median(times),
            "busiest_worker_cpu_s": busiest,
            "median_busiest_cpu_s": statistics.median(busiest),
            "median_total_cpu_s": statistics.median(total),
            "worker_peak_rss": sorted(peaks.values()),
            "worker_restarted": restarted,
            "model": model,
        }


def local_fit(parquet: Path, log) -> dict:
    import pyarrow.parquet as pq
    from threadpoolctl import threadpool_limits

    import nbayes

    table = pq.read_table(parquet)
    features = [f"f{j}" for j in range(N_FEATURES)]
    X = np.column_stack([table.column(c).to_numpy() for c in features])
    y = table.column("label").to_numpy()
    del table
    # Dask starts its workers with one BLAS thread; the reference gets the same, so this is
    # one core against one worker (threaded BLAS on a busy machine can be much slower too).
    with threadpool_limits(1):
        start = time.perf_counter()
        model = nbayes.GaussianNB().fit(X, y)
        seconds = time.perf_counter() - start
    log(f"  in memory, one process: {seconds:.2f} s")
    return {"seconds": seconds, "model": model, "input_bytes": X.nbytes}


def same_model(a, b) -> bool:
    return all(
        np.allclose(a.params_[0][k], b.params_[0][k], rtol=1e-10, atol=0) for k in ("mean", "var")
    ) and np.allclose(a.class_count_, b.class_count_)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.dask_scale", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument(
        "--gb",
        type=float,
        default=2.2,
        help="size of the float64 data in memory, in GB (default 2.2)",
    )
    parser.add_argument(
        "--memory-limit", default="1GiB", help="memory limit of each Dask worker (default 1GiB)"
    )
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per setting")
    parser.add_argument(
        "--csv-gb",
        type=float,
        default=0.0,
        help="also fit from CSV files holding this many GB of the data",
    )
    parser.add_argument(
        "--local",
        action="store_true",
        help="also fit the data loaded into one process, for reference",
    )
    parser.add_argument("--workdir", default=None, help="where to write the data (temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    parser.add_argument(
        "--tune-malloc",
        action="store_true",
        help="start workers with MALLOC_MMAP_THRESHOLD_=2^30 (see TUNED_MALLOC)",
    )
    parser.add_argument("--json", default=None, help="write the report here")
    args = parser.parse_args(argv)

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    n_rows = int(args.gb * 1e9 / (8 * N_FEATURES))
    work = Path(tempfile.mkdtemp(prefix="nbayes-dask-bench-", dir=args.workdir))
    report: dict = {
        "rows": n_rows,
        "features": N_FEATURES,
        "classes": N_CLASSES,
        "data_bytes_in_memory": n_rows * (8 * N_FEATURES + 1),
        "memory_limit_per_worker": args.memory_limit,
        "tune_malloc": args.tune_malloc,
        "cpu_count": os.cpu_count(),
        "load_average_before": os.getloadavg(),
    }
    try:
        start = time.perf_counter()
        parquet = work / "parquet"
        # Written by a child process, so the client's peak memory is that of the fits alone.
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
            report["parquet_bytes_on_disk"] = pool.submit(write_parquet, parquet, n_rows).result()
        log(
            f"wrote {n_rows:,} rows, {report['parquet_bytes_on_disk'] / 1e9:.2f} GB of Parquet "
            f"in {time.perf_counter() - start:.0f} s to {parquet}"
        )
        runs = {}
        for workers in (1, 2):
            runs[workers] = distributed_fit(
                str(parquet), workers, args.memory_limit, args.repeat, log, args.tune_malloc
            )
        report["parquet"] = {
            w: {k: v for k, v in r.items() if k != "model"} for w, r in runs.items()
        }
        report["speedup_2_vs_1"] = runs[1]["median_s"] / runs[2]["median_s"]
        report["cpu_speedup_2_vs_1"] = (
            runs[1]["median_busiest_cpu_s"] / runs[2]["median_busiest_cpu_s"]
        )
        report["models_equal"] = same_model(runs[1]["model"], runs[2]["model"])
        if args.csv_gb > 0:
            n_files = max(1, round(args.csv_gb * 1e9 / (8 * N_FEATURES * ROWS_PER_FILE)))
            with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as pool:
                report["csv_bytes_on_disk"] = pool.submit(
                    write_csv, parquet, work / "csv", n_files
                ).result()
            log(f"wrote {report['csv_bytes_on_disk'] / 1e9:.2f} GB of CSV")
            csv = distributed_fit(str(work / "csv"), 1, args.memory_limit, 1, log, args.tune_malloc)
            report["csv"] = {k: v for k, v in csv.items() if k != "model"}
        report["client_peak_rss"] = peak_rss_bytes()  # before --local loads the data
        if args.local:
            local = local_fit(parquet, log)
            report["local"] = {"seconds": local["seconds"], "input_bytes": local["input_bytes"]}
            report["models_equal_local"] = same_model(runs[1]["model"], local["model"])
        report["load_average_after"] = os.getloadavg()
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(summary(report))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2, default=float))
    return report


def summary(report: dict) -> str:
    gb = 1e9
    lines = [
        f"data: {report['rows']:,} rows x {report['features']} float64 features "
        f"({report['data_bytes_in_memory'] / gb:.2f} GB in memory, "
        f"{report['parquet_bytes_on_disk'] / gb:.2f} GB Parquet); worker memory limit "
        f"{report['memory_limit_per_worker']}"
        f"{' (MALLOC_MMAP_THRESHOLD_=2^30)' if report['tune_malloc'] else ''}; "
        f"{report['cpu_count']} CPUs, load average "
        f"{report['load_average_before'][0]:.1f} before / {report['load_average_after'][0]:.1f} "
        "after",
        "",
        "| source | workers | partitions | fit wall time (median) | runs | CPU s of the busiest "
        "worker / all workers (median) | peak RSS per worker |",
        "|---|---:|---:|---:|---|---:|---|",
    ]
    rows = [("Parquet", r) for r in report["parquet"].values()]
    if "csv" in report:
        rows.append((f"CSV ({report['csv_bytes_on_disk'] / gb:.2f} GB)", report["csv"]))
    for source, r in rows:
        runs = ", ".join(f"{t:.1f}" for t in r["seconds"])
        peaks = ", ".join(f"{p / 2**20:.0f} MiB" for p in r["worker_peak_rss"])
        restarted = " (a worker was restarted!)" if r["worker_restarted"] else ""
        lines.append(
            f"| {source} | {r['workers']} | {r['partitions']} | "
            f"{r['median_s']:.1f} s | {runs} | {r['median_busiest_cpu_s']:.1f} / "
            f"{r['median_total_cpu_s']:.1f} | {peaks}{restarted} |"
        )
    lines += [
        "",
        f"speed-up 2 vs 1 workers: {report['speedup_2_vs_1']:.2f}x in wall time, "
        f"{report['cpu_speedup_2_vs_1']:.2f}x in CPU time of the busiest worker; models "
        "equal to "
        f"1e-10: {report['models_equal']}; client peak RSS "
        f"{report['client_peak_rss'] / 2**20:.0f} MiB",
    ]
    if "local" in report:
        lines.append(
            f"in-memory fit in one process: {report['local']['seconds']:.1f} s "
            f"(equal: {report['models_equal_local']})"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()
