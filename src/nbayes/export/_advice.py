"""How to make a refused model exportable: the advice shared by the SQL and ONNX refusals,
for Python (the family to fit) and for ``nbayes train`` (the option that picks it)."""

from __future__ import annotations

import shlex

#: Per refused family: what to fit instead.
FAMILY_FIX = {
    "kde": (
        "read those columns with the 'gaussian' or 'binned' family instead "
        "(nbayes train --continuous gaussian; in Python a ('gaussian', COLS) group of "
        "MixedNB(columns=...) or DensityNB(density='binned'))"
    ),
    "text": (
        "read those columns as categories (nbayes train --categorical {cols}) or leave them "
        "out (--exclude {cols}), or export a MultinomialNB fitted on word counts made in the "
        "database"
    ),
}


def family_fix(family: str, cols) -> str:
    """What to fit instead of ``family``, which has no exported form, on columns ``cols``."""
    fix = FAMILY_FIX.get(family, "model those columns with another family")
    return fix.replace("{cols}", shlex.quote(",".join(str(c) for c in cols)))


def derived_fix(derived: list[str]) -> str:
    """The remedy for columns derived from dates (``"when.year"`` from ``"when"``): the
    date columns, read as categories, or calendar columns added to the table."""
    dates = sorted({c.rsplit(".", 1)[0] for c in derived})
    listed = shlex.quote(",".join(dates))
    return (
        f"read the date column(s) {dates} as categories (nbayes train --categorical "
        f"{listed}; in Python a ('categorical', [...]) group of "
        "MixedNB(columns=...)), or add year, month and day-of-week columns "
        "to the table and fit on those"
    )
