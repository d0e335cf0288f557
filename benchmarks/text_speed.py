"""Raw text to predictions: nbayes' compiled analyzer against scikit-learn's, side by side.

Usage::

    python -m benchmarks.text_speed                     # 40,000 documents, 20 classes, 1 GB CSV
    python -m benchmarks.text_speed --docs 20000 --gb 0.2 --dir /scratch
    python -m benchmarks.text_speed --gb 0               # no command-line run
    python -m benchmarks.text_speed --cli-only --gb 0.25 # only the command-line run

Three measurements, in one run, each against scikit-learn in the same process:

1. ``TextNB().fit`` + ``predict`` against ``make_pipeline(CountVectorizer(), MultinomialNB())``
   on a generated corpus of ``--docs`` documents in 20 classes (words drawn from a Zipf law
   over a 60,000-word vocabulary, one word in twelve from its class's own ordering of them;
   capitals, digits, underscores and punctuation mixed in), trained on 80% and predicting the
   rest. The predictions must be equal; the script stops otherwise.
2. Tokenising and counting alone on one thread (``nbayes.threads(1)``), in MB of ASCII text a
   second: nbayes' analyzer against ``CountVectorizer().fit_transform``.
3. ``nbayes train DATA.csv --text-column text --target label`` on a two-column CSV of at least
   ``--gb`` gigabytes (the corpus written round-robin), in MB a second end to end and peak
   resident memory (the child's VmHWM, read while it runs: getrusage would count the memory
   of this process, which the child is forked from) and the CPU time it used (user + system,
   over all its threads: on a busy machine the figure that moves least), then the CSV is
   deleted (``--keep`` keeps it). ``--cli-only`` runs this one alone.

Timings are medians of ``--repeat`` alternating runs. Not a test: it needs minutes.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

N_CLASSES = 20
N_WORDS = 60_000


def corpus(n_docs: int, seed: int = 0) -> tuple[list[str], np.ndarray]:
    """``n_docs`` generated documents (about 1.5 kB each) and their labels (20 classes)."""
    rng = np.random.default_rng(seed)
    letters = np.array(list("abcdefghijklmnopqrstuvwxyz"))
    lengths = rng.integers(2, 11, N_WORDS)
    words = np.array(["".join(rng.choice(letters, k)) for k in lengths], dtype=object)
    # A few words are spelled with capitals, digits or underscores, as posts are.
    words[rng.choice(N_WORDS, 3000, replace=False)] = [
        w.capitalize() for w in words[rng.choice(N_WORDS, 3000, replace=False)]
    ]
    words[rng.choice(N_WORDS, 500, replace=False)] = [f"{w}_{i}" for i, w in enumerate(words[:500])]
    words[rng.choice(N_WORDS, 500, replace=False)] = [str(n) for n in rng.integers(0, 10**6, 500)]
    punct = np.array([" ", " ", " ", " ", " ", " ", ", ", ". ", "! ", "? ", " - ", " (", ") "])
    zipf = 1.0 / np.arange(1, N_WORDS + 1) ** 1.1
    zipf /= zipf.sum()
    labels = rng.integers(0, N_CLASSES, n_docs)
    # Each class has its own order of the words: its favourites are another class's rare ones.
    # One word in twelve comes from the class's own order, the rest from the shared one.
    orders = np.stack([rng.permutation(N_WORDS) for _ in range(N_CLASSES)])
    n_words = rng.integers(60, 340, n_docs)
    ends = np.cumsum(n_words)
    doc_of = np.repeat(np.arange(n_docs), n_words)
    drawn = rng.choice(N_WORDS, ends[-1], p=zipf)
    own = rng.random(ends[-1]) < 1 / 12
    drawn[own] = orders[labels[doc_of[own]], drawn[own]]
    pieces = np.char.add(words[drawn].astype(str), punct[rng.integers(0, punct.size, drawn.size)])
    pieces = pieces.tolist()
    docs = ["".join(pieces[a:b]) for a, b in zip(ends - n_words, ends)]
    return docs, np.array([f"topic{k:02d}" for k in labels], dtype=object)


def median_time(fn, repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), out


def fit_predict(docs, labels, repeat: int) -> dict:
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.naive_bayes import MultinomialNB as SkMultinomialNB
    from sklearn.pipeline import make_pipeline

    from nbayes import TextNB

    cut = int(0.8 * len(docs))
    train, test, y = docs[:cut], docs[cut:], labels[:cut]
    runs = {"nbayes": [[], []], "sklearn": [[], []]}
    preds = {}
    for _ in range(repeat):  # alternating, so that load on the machine hits both
        for name in ("sklearn", "nbayes"):
            model = (
                TextNB()
                if name == "nbayes"
                else make_pipeline(CountVectorizer(), SkMultinomialNB())
            )
            start = time.perf_counter()
            model.fit(train, y)
            mid = time.perf_counter()
            preds[name] = model.predict(test)
            runs[name][0].append(mid - start)
            runs[name][1].append(time.perf_counter() - mid)
    if not np.array_equal(preds["nbayes"], preds["sklearn"]):
        sys.exit("nbayes: error: TextNB's predictions differ from the scikit-learn pipeline's")
    out = {name: [float(np.median(r)) for r in runs[name]] for name in runs}
    out["accuracy"] = float(np.mean(preds["nbayes"] == labels[cut:]))
    return out


def tokenising(docs, repeat: int) -> dict:
    from sklearn.feature_extraction.text import CountVectorizer

    import nbayes
    from nbayes import _analyzer

    megabytes = sum(map(len, docs)) / 1e6
    with nbayes.threads(1):
        ours, _ = median_time(
            lambda: _analyzer.vectorize(CountVectorizer(), docs, fit=True), repeat
        )
    theirs, _ = median_time(lambda: CountVectorizer().fit_transform(docs), repeat)
    return {"MB": megabytes, "nbayes": megabytes / ours, "sklearn": megabytes / theirs}


def write_csv(path: Path, docs, labels, gigabytes: float) -> tuple[int, int]:
    """Write the corpus round-robin until the file holds ``gigabytes`` GB."""
    block = pd.DataFrame({"text": docs, "label": labels}).to_csv(index=False)
    header, body = block.split("\n", 1)
    target, size, rows = gigabytes * 1e9, 0, 0
    with open(path, "w", encoding="utf-8") as out:
        out.write(header + "\n")
        size += len(header) + 1
        while size < target:
            out.write(body)
            size += len(body.encode("utf-8"))
            rows += len(docs)
    return size, rows


def _high_water_mb(pid: int) -> float:
    """Peak resident memory of process ``pid`` so far, in MB (Linux; 0 elsewhere)."""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def command_line(docs, labels, gigabytes: float, directory: str, keep: bool) -> dict:
    folder = Path(tempfile.mkdtemp(prefix="nbayes-text-", dir=directory))
    data, model = folder / "texts.csv", folder / "model.nbayes"
    size, rows = write_csv(data, docs, labels, gigabytes)
    command = [
        sys.executable,
        "-m",
        "nbayes",
        "train",
        str(data),
        "--text-column",
        "text",
        "--target",
        "label",
        "-o",
        str(model),
        "--quiet",
    ]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    peak, err = 0.0, ""
    while True:  # the child's own high-water mark (getrusage would count this process's)
        peak = max(peak, _high_water_mb(proc.pid))
        try:
            _, err = proc.communicate(timeout=0.2)
            break
        except subprocess.TimeoutExpired:
            continue
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = sum(getattr(after, f) - getattr(before, f) for f in ("ru_utime", "ru_stime"))
    if proc.returncode != 0:
        sys.exit(f"nbayes: error: nbayes train failed:\n{err}")
    if not keep:
        data.unlink()
        model.unlink(missing_ok=True)
        folder.rmdir()
    return {
        "bytes": size,
        "rows": rows,
        "seconds": seconds,
        "MB/s": size / 1e6 / seconds,
        "peak_MB": peak,
        "cpu": cpu,
    }


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--docs", type=int, default=40_000)
    parser.add_argument("--gb", type=float, default=1.0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dir", default=os.environ.get("TMPDIR", tempfile.gettempdir()))
    parser.add_argument("--keep", action="store_true")
    parser.add_argument("--cli-only", action="store_true", help="only the nbayes train run")
    args = parser.parse_args(argv)

    import nbayes

    start = time.perf_counter()
    docs, labels = corpus(args.docs)
    print(
        f"corpus: {len(docs)} documents, {sum(map(len, docs)) / 1e6:.1f} MB, "
        f"{N_CLASSES} classes (generated in {time.perf_counter() - start:.0f} s)"
    )
    print(
        f"nbayes {nbayes.__version__}, {nbayes.get_threads()} thread(s); "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    if not args.cli_only:
        in_process(docs, labels, args.repeat)
    if args.gb > 0:
        cli = command_line(docs, labels, args.gb, args.dir, args.keep)
        print(
            "\n| nbayes train --text-column | size | rows | time | throughput | peak memory "
            "| CPU time |"
        )
        print("|---|---:|---:|---:|---:|---:|---:|")
        print(
            f"| two-column CSV | {cli['bytes'] / 1e9:.2f} GB | {cli['rows']:,} | "
            f"{cli['seconds']:.1f} s | {cli['MB/s']:.0f} MB/s | {cli['peak_MB']:.0f} MB "
            f"| {cli['cpu']:.1f} s |"
        )


def in_process(docs, labels, repeat: int) -> None:
    """Measurements 1 and 2, printed as tables."""
    fp = fit_predict(docs, labels, repeat)
    ours, theirs = sum(fp["nbayes"]), sum(fp["sklearn"])
    print("\n| raw text -> predictions | nbayes TextNB | scikit-learn pipeline | speed-up |")
    print("|---|---:|---:|---:|")
    for i, step in enumerate(("fit", "predict")):
        print(
            f"| {step} | {fp['nbayes'][i]:.3f} s | {fp['sklearn'][i]:.3f} s | "
            f"{fp['sklearn'][i] / fp['nbayes'][i]:.1f}x |"
        )
    print(f"| fit + predict | {ours:.3f} s | {theirs:.3f} s | {theirs / ours:.1f}x |")
    print(f"\npredictions equal; accuracy {fp['accuracy']:.3f}")
    tok = tokenising(docs, repeat)
    print("\n| tokenise + count, one thread | nbayes | CountVectorizer | speed-up |")
    print("|---|---:|---:|---:|")
    print(
        f"| {tok['MB']:.0f} MB of ASCII text | {tok['nbayes']:.0f} MB/s | "
        f"{tok['sklearn']:.0f} MB/s | {tok['nbayes'] / tok['sklearn']:.1f}x |"
    )


if __name__ == "__main__":
    main()
