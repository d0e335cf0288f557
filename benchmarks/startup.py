"""Start-up times of the ``nbayes`` command and of ``import nbayes`` (issue 32, points 4 and 6).

    python -m benchmarks.startup [--repeat 15]

Each case runs in a fresh interpreter, ``repeat`` times, interleaved with the others so that
a busy moment of the machine hits every case alike; the table gives the median and the
fastest run (wall seconds of the whole process: interpreter start included, as a user waits
for it). Byte-code caches are written once before timing (into a temporary folder, so that
a checkout with ``PYTHONDONTWRITEBYTECODE`` is timed as an installed package would be).

Cases:

* ``python -c pass``: the interpreter alone;
* ``nbayes --version`` and ``nbayes --help`` (as ``python -m nbayes``);
* ``import numpy, pandas, sklearn.base``: the libraries a fit cannot do without (the target is
  ``import nbayes`` at most 1.15 times this);
* ``import nbayes`` (imports nothing numerical: its names load on first use);
* ``from nbayes import MultinomialNB``: what a fit needs, i.e. the estimators loaded.

Timings are not tests: run this on a quiet machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

CASES = {
    "python -c pass": ["-c", "pass"],
    "nbayes --version": ["-m", "nbayes", "--version"],
    "nbayes --help": ["-m", "nbayes", "--help"],
    "import numpy, pandas, sklearn.base": ["-c", "import numpy, pandas, sklearn.base"],
    "import nbayes": ["-c", "import nbayes"],
    "from nbayes import MultinomialNB": ["-c", "from nbayes import MultinomialNB"],
}
BASELINE = "import numpy, pandas, sklearn.base"


def run_once(args: list[str], env: dict) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *args], env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args(argv)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory() as cache:
        env["PYTHONPYCACHEPREFIX"] = cache
        for case in CASES.values():  # write the byte-code caches
            run_once(case, env)
        times: dict[str, list[float]] = {name: [] for name in CASES}
        load = os.getloadavg()
        for _ in range(args.repeat):  # bounded: a few repeats
            for name, case in CASES.items():  # bounded: six cases
                times[name].append(run_once(case, env))
    print(f"python {sys.version.split()[0]}; {args.repeat} runs each, interleaved")
    print("load average before: {:.2f} {:.2f} {:.2f}\n".format(*load))
    base = statistics.median(times[BASELINE])
    print("| case | median s | fastest s | median / numpy + pandas + sklearn.base |")
    print("|---|---:|---:|---:|")
    for name, runs in times.items():  # bounded: six cases
        med = statistics.median(runs)
        print(f"| `{name}` | {med:.3f} | {min(runs):.3f} | {med / base:.2f} |")
    print("\nload average after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))


if __name__ == "__main__":
    main()
