"""``python -m flows.cli``: the ``kgfs`` command line."""

import sys

from flows.cli.main import main

sys.exit(main())
