"""The course's own machinery: the offline model, session services, table inspection,
quizzes and grading. Lessons import from here only what is plumbing; the ADK calls being
taught stay visible in the notebooks."""

import os

__version__ = "0.1.0"

# Tracebacks of the child processes a lesson starts (`python -c ...`, ADK's command line) are
# committed as cell outputs and compared by nbval. ipykernel sets FORCE_COLOR=1, and Python 3.13+
# then colours those tracebacks with terminal escapes, so the same cell printed different bytes
# on 3.13 than on 3.11 (and unreadable ones on GitHub). PYTHON_COLORS=0 wins over FORCE_COLOR in
# Python's own colouring; an explicit choice of the reader's is kept.
os.environ.setdefault("PYTHON_COLORS", "0")


def _in_a_notebook_kernel() -> bool:
  import sys
  return "ipykernel" in sys.modules


# In a notebook, ADK's own warnings (which service it chose, a function call it dropped) print
# as plain output lines marked "ADK log", not on the red background Jupyter gives stderr, where
# a warning a lesson shows on purpose looked like the cell had failed. Scripts, labs and tests
# keep Python's default.
if _in_a_notebook_kernel():
  from adkcourse.adk_logs import adk_logs_as_output

  adk_logs_as_output()
