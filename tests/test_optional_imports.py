"""Optional dependencies stay optional: importing nbayes must not load them."""

import subprocess
import sys


def test_importing_nbayes_does_not_import_dask():
    code = (
        "import sys, nbayes, nbayes.estimators; "
        "print(sorted(m for m in ('dask', 'distributed') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
