"""Time nbayes against scikit-learn on the same data in the same process.

Usage::

    python -m benchmarks                 # every case, full size (about 20 minutes, ~4 GB)
    python -m benchmarks --quick         # tiny data, one repeat: checks the harness runs
    python -m benchmarks --cases gauss,sparse-200k --repeat 7 --json out.json

For each case and estimator pair it measures ``fit``, ``partial_fit`` over 10 row chunks (then
one scored row, so that both models are ready to use) and ``predict_proba``, alternating the
two libraries and repeating each timing, and reports medians with the nbayes / scikit-learn
ratio (below 1 means nbayes is faster). Next to each case stands
the machine's limit: the time numpy needs for one read pass over the input (``X.sum()``, or
``X.data.sum()`` for sparse input), with fit time as a multiple of it. Peak memory of each call
is measured separately with tracemalloc (numpy reports its buffers to it), so the timings do
not carry tracemalloc's overhead.
"""

from __future__ import annotations

import argparse
import datetime as dt
import gc
import itertools
import json
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from .cases import Case, Pair, all_cases

ROOT = Path(__file__).resolve().parents[1]
N_CHUNKS = 10
SLOW_S = 20.0
FAST_S = 0.05
FAST_FACTOR = 5
OPS = ("fit", "partial_fit", "predict_proba")


# -- measuring ---------------------------------------------------------------------------------

#: Bytes touched before each timed call (see _settle_memory), at least and at most.
SETTLE_BYTES = (64 * 2**20, 1 * 2**30)


def _settle_memory(n_bytes: int) -> None:
    """Allocate, touch and free ``n_bytes``, so that each timed call starts from the same
    memory state whichever call ran before it.

    On this VM, after a call that allocates and frees a lot (scikit-learn's CategoricalNB
    partial_fit), the next 160 MB allocation took 0.39-0.43 s to touch instead of 0.026 s;
    whichever library happened to run next paid it (measured with np.ones((1_000_000, 20))).
    The alternation then billed it to one side: nbayes' predict_proba ran after
    scikit-learn's partial_fit in two of three rounds.
    """
    np.ones(max(n_bytes, 8) // 8)


def _clock(fn, settle_bytes: int = SETTLE_BYTES[0]) -> float:
    gc.collect()
    _settle_memory(settle_bytes)
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _peak_bytes(fn) -> tuple[int, object]:
    """Peak bytes allocated during ``fn()`` above what was allocated before it, and its result."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        result = fn()
        return tracemalloc.get_traced_memory()[1] - base, result
    finally:
        tracemalloc.stop()


def input_bytes(X) -> int:
    if hasattr(X, "memory_usage"):  # a DataFrame
        return int(X.memory_usage(deep=True).sum())
    if sp.issparse(X):
        return X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    return X.nbytes


def read_pass(X):
    """One pass of numpy over the input's values: the floor any fit has to pay."""
    if hasattr(X, "select_dtypes"):  # a DataFrame: its numeric columns
        numbers = X.select_dtypes("number").to_numpy()
        return lambda: numbers.sum()
    return (lambda: X.data.sum()) if sp.issparse(X) else (lambda: X.sum())


def chunk_slices(n: int, k: int = N_CHUNKS) -> list[slice]:
    bounds = np.linspace(0, n, k + 1).astype(int)
    return [slice(a, b) for a, b in itertools.pairwise(bounds) if b > a]


def bench_pair(pair: Pair, X, y, chunks, repeat: int, memory: bool) -> dict:
    """Time one estimator pair on one case; both libraries alternate within each repeat."""
    classes = np.unique(y)
    models = {"nbayes": pair.nbayes, "sklearn": pair.sklearn}
    fitted = {lib: make().fit(X, y) for lib, make in models.items()}  # also a warm-up
    settle = int(np.clip(input_bytes(X), *SETTLE_BYTES))

    def op(lib: str, name: str):
        make = models[lib]
        if name == "fit":
            return lambda: make().fit(X, y)
        if name == "partial_fit":
            if not pair.partial_fit:
                return None

            def run():
                est = make()
                for Xc, yc in chunks:
                    est.partial_fit(Xc, yc, classes=classes)
                # Ready to use: both finalize on every call; one scored row adds the first
                # use of the scoring tables to the timing.
                est.predict_proba(chunks[0][0][:1])

            return run
        return lambda: fitted[lib].predict_proba(X)

    times = {name: {lib: [] for lib in models} for name in OPS}
    runs = dict.fromkeys(OPS, repeat)
    for r in range(repeat * FAST_FACTOR):
        for name in OPS:
            if op("nbayes", name) is None:
                continue
            if r == 1:
                first = max(times[name][lib][0] for lib in models)
                # A measurement whose first run took over SLOW_S seconds is not repeated: the
                # median of one is still a ratio measured in one process, and a full run stays
                # within reach on a busy machine. Millisecond calls are repeated FAST_FACTOR
                # times as often, so that noise does not decide their ratio.
                runs[name] = (
                    1 if first > SLOW_S else repeat * FAST_FACTOR if first < FAST_S else repeat
                )
            if r >= runs[name]:
                continue
            order = list(models) if r % 2 == 0 else list(models)[::-1]
            for lib in order:
                times[name][lib].append(_clock(op(lib, name), settle))
    out = {
        "estimator": pair.name,
        "sklearn_estimator": pair.sklearn.__name__,
        "note": pair.note,
        "times_s": times,
        "median_s": {},
        "ratio": {},
    }
    for name in OPS:
        if not times[name]["nbayes"]:
            continue
        med = {lib: statistics.median(v) for lib, v in times[name].items()}
        out["median_s"][name] = med
        out["ratio"][name] = med["nbayes"] / med["sklearn"]
    proba = {}
    if memory:
        out["peak_bytes"] = {name: {} for name in OPS}
        for name in OPS:
            for lib in models:
                if op(lib, name) is None:
                    continue
                out["peak_bytes"][name][lib], result = _peak_bytes(op(lib, name))
                if name == "predict_proba":
                    proba[lib] = result
                del result
    if pair.same_model:
        p_nb, p_sk = (
            proba[lib] if lib in proba else fitted[lib].predict_proba(X) for lib in models
        )
        out["max_abs_proba_diff"] = float(np.max(np.abs(p_nb - p_sk)))
    return out


def bench_case(case: Case, scale: float, repeat: int, memory: bool, log) -> dict:
    t0 = time.perf_counter()
    X, y = case.load(scale)
    gen_s = time.perf_counter() - t0
    n, d = X.shape
    rows = X.iloc if hasattr(X, "iloc") else X
    chunks = [(rows[s], y[s]) for s in chunk_slices(n)]
    reads = [_clock(read_pass(X)) for _ in range(max(repeat, 3))]
    result = {
        "case": case.name,
        "description": case.description,
        "real": case.real,
        "n_samples": n,
        "n_features": d,
        "n_classes": int(np.unique(y).size),
        "sparse": sp.issparse(X),
        "dtype": str(getattr(X, "dtype", "DataFrame")),
        "nnz": int(X.nnz) if sp.issparse(X) else n * d,
        "input_bytes": input_bytes(X),
        "data_seconds": gen_s,
        "read_pass_s": statistics.median(reads),
        "pairs": [],
    }
    log(
        f"[{case.name}] {n} x {d}, {result['n_classes']} classes, "
        f"{result['input_bytes'] / 2**20:.0f} MiB, read pass {result['read_pass_s']:.4f} s"
    )
    for pair in case.pairs:
        res = bench_pair(pair, X, y, chunks, repeat, memory)
        res["fit_over_read_pass"] = res["median_s"]["fit"]["nbayes"] / result["read_pass_s"]
        result["pairs"].append(res)
        log("    " + _row_text(result, res))
    return result


# -- reporting ---------------------------------------------------------------------------------


def _row_text(case: dict, res: dict) -> str:
    r, m = res["ratio"], res["median_s"]
    return (
        f"{res['estimator']:<14} fit {m['fit']['nbayes']:.4f}/{m['fit']['sklearn']:.4f} "
        f"({r['fit']:.2f})  partial_fit {r.get('partial_fit', float('nan')):.2f}  "
        f"predict_proba {m['predict_proba']['nbayes']:.4f}/"
        f"{m['predict_proba']['sklearn']:.4f} ({r['predict_proba']:.2f})  "
        f"fit/read {res['fit_over_read_pass']:.1f}"
    )


def _fmt_s(t: float) -> str:
    return f"{t * 1e3:.1f} ms" if t < 1 else f"{t:.2f} s"


def markdown_table(report: dict) -> str:
    head = (
        "| case | estimator (vs scikit-learn) | read pass | fit nbayes / sklearn (ratio) "
        "| partial_fit x10 (ratio) | predict_proba (ratio) | fit ÷ read pass "
        "| predict_proba peak mem nbayes / sklearn (x input) |"
    )
    lines = [head, "|" + "---|" * 8]
    for case in report["cases"]:
        for res in case["pairs"]:
            m, r = res["median_s"], res["ratio"]
            versus = (
                ""
                if res["sklearn_estimator"] == res["estimator"]
                else f" (vs {res['sklearn_estimator']})"
            )

            def cell(op, m=m, r=r):
                if op not in m:
                    return "n/a"
                return f"{_fmt_s(m[op]['nbayes'])} / {_fmt_s(m[op]['sklearn'])} (**{r[op]:.2f}**)"

            mem = "—"
            if "peak_bytes" in res:
                pb = res["peak_bytes"]["predict_proba"]
                mem = " / ".join(
                    f"{pb[lib] / case['input_bytes']:.2f}" for lib in ("nbayes", "sklearn")
                )
            lines.append(
                f"| {case['case']} | {res['estimator']}{versus} | {_fmt_s(case['read_pass_s'])} "
                f"| {cell('fit')} | {cell('partial_fit')} | {cell('predict_proba')} "
                f"| {res['fit_over_read_pass']:.1f}x | {mem} |"
            )
    return "\n".join(lines)


def environment_markdown(report: dict) -> str:
    """Machine, versions, BLAS kernel, date and command of a report, as Markdown lines."""
    env = report["environment"]
    blas = [
        f"{b['internal_api']} {b['version']} ({b['architecture']}, {b['num_threads']} "
        f"threads, {Path(b['filepath']).name.split('-')[0]})"
        for b in env["threadpools"]
        if b["internal_api"] == "openblas"
    ]
    load = env.get("load_average_end") or env["load_average_start"]
    return "\n".join(
        [
            f"- machine: {env['machine']}; load average at the start "
            f"{env['load_average_start'][0]:.1f}, at the end {load[0]:.1f} (shared machine)",
            f"- Python {env['python']}, numpy {env['numpy']}, scipy {env['scipy']}, "
            f"scikit-learn {env['sklearn']}, nbayes {env['nbayes']} ({env['nbayes_commit']}, "
            f"{env.get('nbayes_threads', 1)} thread(s) for its row chunks"
            + (f"; {env['nbayes_loops']})" if env.get("nbayes_loops") else ")"),
            f"- BLAS: {', '.join(blas) or 'unknown'}; OPENBLAS_CORETYPE="
            f"{env['openblas_env']['OPENBLAS_CORETYPE']}, OPENBLAS_L2_SIZE="
            f"{env['openblas_env']['OPENBLAS_L2_SIZE']}",
            f"- date: {env['date']}; command: `{report['command'].strip()}` "
            f"(scale {report['scale']}, {report['repeat']} repeats)",
        ]
    )


def environment() -> dict:
    import scipy
    import sklearn
    from threadpoolctl import threadpool_info

    import nbayes
    from nbayes._accel import describe

    def cpu_model() -> str:
        try:
            for line in Path("/proc/cpuinfo").read_text().splitlines():
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
        except OSError:
            pass
        return platform.processor()

    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    blas = [
        {
            k: info.get(k)
            for k in ("internal_api", "version", "architecture", "num_threads", "filepath")
        }
        for info in threadpool_info()
    ]
    return {
        "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        "machine": f"{cpu_model()}, {os.cpu_count()} cores, {platform.system()}",
        "python": platform.python_version(),
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "sklearn": sklearn.__version__,
        "nbayes": getattr(nbayes, "__version__", "?"),
        "nbayes_commit": commit,
        "nbayes_threads": nbayes.get_threads(),
        "nbayes_loops": describe(),
        "threadpools": blas,
        "openblas_env": {k: os.environ.get(k) for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")},
        "load_average_start": os.getloadavg(),
    }


def default_data_dir() -> Path:
    if os.environ.get("NBAYES_DATA_DIR"):
        return Path(os.environ["NBAYES_DATA_DIR"])
    for candidate in (ROOT.parent / "shared" / "data", Path("/work/shared/data")):
        if candidate.is_dir():
            return candidate
    return ROOT.parent / "shared" / "data"


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="tiny data (scale 0.002) and one repeat: checks that it runs",
    )
    parser.add_argument("--scale", type=float, help="fraction of the synthetic row counts")
    parser.add_argument("--repeat", type=int, help="timings per measurement (default 5)")
    parser.add_argument("--cases", help="comma-separated substrings of case names to run")
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=default_data_dir(),
        help="folder of the real datasets (default: $NBAYES_DATA_DIR, "
        "../shared/data or /work/shared/data)",
    )
    parser.add_argument("--no-real", action="store_true", help="skip the real datasets")
    parser.add_argument("--no-memory", action="store_true", help="skip peak-memory runs")
    parser.add_argument(
        "--threads",
        type=int,
        help="threads nbayes may use (default: every core, nbayes' own "
        "default); scikit-learn's naive Bayes runs on one",
    )
    parser.add_argument("--json", type=Path, help="write the full report as JSON here")
    parser.add_argument("--markdown", type=Path, help="write the table as Markdown here")
    parser.add_argument(
        "--from-json",
        type=Path,
        help="print the Markdown of an earlier --json report instead of running",
    )
    args = parser.parse_args(argv)
    if args.from_json:
        report = json.loads(args.from_json.read_text())
        print(environment_markdown(report) + "\n\n" + markdown_table(report))
        return report
    scale = args.scale if args.scale is not None else (0.002 if args.quick else 1.0)
    repeat = args.repeat if args.repeat is not None else (1 if args.quick else 5)

    # KBinsDiscretizer merges the empty quantile bins of Adult's spiky columns; it says so
    # on every fit, which is expected and not news.
    warnings.filterwarnings("ignore", message="Bins whose width are too small")

    def log(msg: str) -> None:
        print(msg, file=sys.stderr, flush=True)

    cases = all_cases(args.data_dir)
    if args.cases:
        wanted = [w.strip() for w in args.cases.split(",") if w.strip()]
        names = {c.name for c in cases}
        cases = [
            c
            for c in cases  # an exact name picks that case, other words substrings
            if c.name in wanted or any(w not in names and w in c.name for w in wanted)
        ]
    if args.no_real:
        cases = [c for c in cases if not c.real]
    skipped = [c.name for c in cases if c.real and not args.data_dir.is_dir()]
    if skipped:
        log(f"real datasets not found at {args.data_dir}; skipping {', '.join(skipped)}")
        cases = [c for c in cases if c.name not in skipped]

    if args.threads is not None:
        import nbayes

        nbayes.set_threads(args.threads)
    report = {
        "environment": environment(),
        "scale": scale,
        "repeat": repeat,
        "command": "python -m benchmarks " + " ".join(argv if argv is not None else sys.argv[1:]),
        "cases": [],
    }
    for case in cases:
        report["cases"].append(bench_case(case, scale, repeat, not args.no_memory, log))
    report["environment"]["load_average_end"] = os.getloadavg()
    table = environment_markdown(report) + "\n\n" + markdown_table(report)
    print(table)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1))
    if args.markdown:
        args.markdown.write_text(table + "\n")
    return report


if __name__ == "__main__":
    main()
