"""``python -m rsb_mj`` runs the ``rsb`` command line."""

import sys

from rsb_mj.cli import main

sys.exit(main())
