"""`python -m kubenb`: see kubenb.cli."""

import sys

from kubenb.cli import main

sys.exit(main())
