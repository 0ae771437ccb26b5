"""ADK's log warnings as a cell's ordinary output, not on red as if the cell had failed.

ADK logs through ``logging`` under the ``google_adk`` logger and installs no handler, so Python's
last-resort handler writes its warnings to stderr, which Jupyter draws on a red background.
Some lessons show such a warning on purpose (ADK saying which service it chose, or which
function call it dropped): it is what ADK tells an operator, not an error of the lesson. This
sends them to the cell's stdout, each line marked as ADK's log, at the same level as before
(warnings and above), and nothing else about ADK's logging changes.
"""

from __future__ import annotations

import logging
import sys

ADK_LOGGER = "google_adk"
FORMAT = "ADK log, %(levelname)s: %(message)s"


class _CellOutput(logging.StreamHandler):
  """Writes to whatever ``sys.stdout`` is when a record arrives (Jupyter replaces it)."""

  def emit(self, record: logging.LogRecord) -> None:
    self.stream = sys.stdout
    super().emit(record)


def adk_logs_as_output() -> None:
  """Show ADK's warnings as plain output lines from now on (idempotent: a cell run twice
  installs one handler)."""
  logger = logging.getLogger(ADK_LOGGER)
  if any(isinstance(handler, _CellOutput) for handler in logger.handlers):
    return
  handler = _CellOutput(sys.stdout)
  handler.setLevel(logging.WARNING)
  handler.setFormatter(logging.Formatter(FORMAT))
  logger.addHandler(handler)
