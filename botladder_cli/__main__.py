"""``python -m botladder_cli``: the same as the ``botladder`` command."""

import sys

from botladder_cli.main import main

sys.exit(main())
