"""Branch-coverage floor for the modules that read untrusted input.

Usage (after a test run with ``--cov --cov-report=json``, as the README's test command does)::

    python tests/coverage_floor.py [coverage.json]

Model files, tables, category values and labels come from users; the modules that read them
must keep at least ``FLOOR`` of their branches covered. Prints every such module's branch
coverage and exits 1 naming those under the floor (or a module that the report lacks, which
means it was not measured at all).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

FLOOR = 95.0

#: Modules (relative to src/nbayes) that parse or decode what a user hands in.
UNTRUSTED_INPUT = (
    "io/__init__.py",
    "io/_declared.py",
    "io/_dispatch.py",
    "io/_plain.py",
    "_output.py",
    "_validation.py",
    "columns/_reading.py",
    "columns/_strings.py",
    "columns/_dates.py",
    "columns/_identifiers.py",
    "columns/_coded.py",
    "columns/_choices.py",
    "estimators/_columns.py",
    "estimators/_encoding.py",
    "cli/_common.py",
    "_labels.py",
    "cli/_tables/_sources.py",
    "cli/_tables/_table.py",
    "cli/_tables/_dtypes.py",
    "cli/_tables/_writers.py",
)


def branch_percent(summary: dict) -> float:
    """Covered branches in percent (a module without branches counts as fully covered)."""
    total = summary.get("num_branches", 0)
    return 100.0 if total == 0 else 100.0 * summary["covered_branches"] / total


def main(argv: list[str]) -> int:
    report = Path(argv[0] if argv else "coverage.json")
    if not report.is_file():
        print(
            f"coverage_floor: {report} not found; run the tests with "
            "`--cov --cov-report=json` first.",
            file=sys.stderr,
        )
        return 1
    files = {
        name.replace("\\", "/").split("nbayes/", 1)[-1]: data["summary"]
        for name, data in json.loads(report.read_text())["files"].items()
    }
    failed = []
    print(f"Branch coverage of the modules that read untrusted input (floor {FLOOR:.0f} %):")
    for module in UNTRUSTED_INPUT:
        if module not in files:
            print(f"  {module:28} not measured")
            failed.append(module)
            continue
        percent = branch_percent(files[module])
        mark = "" if percent >= FLOOR else "   < floor"
        print(f"  {module:28} {percent:5.1f} %{mark}")
        if percent < FLOOR:
            failed.append(module)
    if failed:
        print(f"coverage_floor: under {FLOOR:.0f} %: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
