"""``python -m adkcourse.quiz check|extract|export|analytics`` (see ``cli.py``)."""

import sys

from .cli import main

sys.exit(main())
