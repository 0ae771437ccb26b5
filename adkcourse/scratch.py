"""Where lessons, labs and tests put the data they create: never inside the repository."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

SCRATCH_VARIABLE = "ADKCOURSE_SCRATCH"


def scratch_root() -> Path:
  """The folder holding every lesson's scratch data (``$ADKCOURSE_SCRATCH`` or the temp dir)."""
  configured = os.environ.get(SCRATCH_VARIABLE)
  root = Path(configured) if configured else Path(tempfile.gettempdir()) / "adkcourse"
  root.mkdir(parents=True, exist_ok=True)
  return root


def fresh_scratch(name: str) -> Path:
  """An empty folder for one lesson or lab run: earlier runs' files are removed first, so a
  notebook run top to bottom always starts from the same (empty) state."""
  folder = scratch_root() / name
  shutil.rmtree(folder, ignore_errors=True)
  folder.mkdir(parents=True)
  return folder
