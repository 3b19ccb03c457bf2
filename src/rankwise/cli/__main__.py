"""``python -m rankwise.cli``: the ``rankwise`` command."""

import sys

from rankwise.cli.commands import main

sys.exit(main())
