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


def reproducible_environment(folder: Path | str) -> dict[str, str]:
  """The variables that make a run reproducible and self-contained: the offline model, and
  scratch data plus the quiz progress file inside ``folder``. Used by the test suite, by
  ``scripts/run_notebooks.py`` and by the grader, so the three agree on what "offline" means."""
  folder = Path(folder)
  return {"ADKCOURSE_OFFLINE": "1", SCRATCH_VARIABLE: str(folder / "scratch"),
          "ADKCOURSE_HOME": str(folder / "home")}
