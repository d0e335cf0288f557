"""``python -m nbayes.cli``: the same as the ``nbayes`` command."""

from . import main

raise SystemExit(main())
