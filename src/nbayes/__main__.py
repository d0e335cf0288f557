"""``python -m nbayes``: the same as the ``nbayes`` command."""

from .cli import main

raise SystemExit(main())
