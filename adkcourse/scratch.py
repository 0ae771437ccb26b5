"""Where lessons, labs and tests put the data they create: never inside the repository.

Scratch folders belong to the process that made them: ``fresh_scratch`` removes its folder again
when the Python process ends normally, which is what a Jupyter kernel does when it is shut down
or restarted (from the notebook, or when JupyterLab stops). Without this, every lesson run left
its SQLite files in ``/tmp/adkcourse`` for good. A kernel that is killed cannot clean up; the
next run of the same lesson empties the folder first anyway.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
import threading
from pathlib import Path

SCRATCH_VARIABLE = "ADKCOURSE_SCRATCH"
KEEP_VARIABLE = "ADKCOURSE_KEEP_SCRATCH"
"""Set to 1 to keep scratch folders after the process ends (to look at the files)."""

_OWNED: dict[Path, tuple[int, int]] = {}
"""Folders this process created, with the (device, inode) they had: removed at exit."""
_LOCK = threading.Lock()
_REGISTERED = False


def _default_root() -> Path:
  return Path(tempfile.gettempdir()) / "adkcourse"


def scratch_root() -> Path:
  """The folder holding every lesson's scratch data (``$ADKCOURSE_SCRATCH`` or the temp dir)."""
  configured = os.environ.get(SCRATCH_VARIABLE)
  root = Path(configured) if configured else _default_root()
  root.mkdir(parents=True, exist_ok=True)
  return root


def fresh_scratch(name: str) -> Path:
  """An empty folder for one lesson or lab run: earlier runs' files are removed first, so a
  notebook run top to bottom always starts from the same (empty) state. The folder is removed
  when this process exits (unless ``$ADKCOURSE_KEEP_SCRATCH`` is set)."""
  folder = scratch_root() / name
  shutil.rmtree(folder, ignore_errors=True)
  folder.mkdir(parents=True)
  _own(folder)
  return folder


def _own(folder: Path) -> None:
  global _REGISTERED
  status = folder.stat()
  with _LOCK:
    _OWNED[folder] = (status.st_dev, status.st_ino)
    if not _REGISTERED:
      # Registered on first use, so atexit runs it before the hooks of servers started later
      # (an embedded PostgreSQL, for one), which may still be using the folder.
      atexit.register(remove_owned_scratch)
      _REGISTERED = True


def remove_owned_scratch() -> list[Path]:
  """Remove the folders this process created and still owns; returns them. A folder that
  another process has recreated since (same lesson run in a second kernel) is left alone, and
  the default ``/tmp/adkcourse`` goes too once it is empty."""
  if os.environ.get(KEEP_VARIABLE, "").strip() not in ("", "0"):
    return []
  removed = []
  with _LOCK:
    owned = dict(_OWNED)
    _OWNED.clear()
  for folder, identity in owned.items():
    try:
      status = folder.stat()
    except OSError:
      continue
    if (status.st_dev, status.st_ino) != identity:
      continue
    shutil.rmtree(folder, ignore_errors=True)
    removed.append(folder)
  for root in {folder.parent for folder in removed}:
    if root == _default_root():
      try:
        root.rmdir()  # only when empty: other kernels' folders stay
      except OSError:
        pass
  return removed


def reproducible_environment(folder: Path | str, *, offline: bool = True) -> dict[str, str]:
  """The variables that make a run reproducible and self-contained: the offline model, and
  scratch data plus the quiz progress file inside ``folder``. Used by the test suite, by
  ``scripts/run_notebooks.py`` and by the grader, so the three agree on what "offline" means.
  ``offline=False`` leaves the model choice alone: the test suite's second pass against the
  course's fake Gemini endpoint (``scripts/with_fake_gemini.py``) passes it."""
  folder = Path(folder)
  env = {SCRATCH_VARIABLE: str(folder / "scratch"), "ADKCOURSE_HOME": str(folder / "home")}
  return {"ADKCOURSE_OFFLINE": "1", **env} if offline else env
