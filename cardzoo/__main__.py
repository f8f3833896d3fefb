"""``python -m cardzoo`` is the ``cardzoo`` command."""

import sys

from cardzoo.scripts.cli import main

sys.exit(main())
