"""``python -m tui.cli``: the ``memgov`` command."""

import sys

from tui.cli.parser import main

sys.exit(main())
