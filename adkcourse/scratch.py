"""Where lessons, labs and tests put the data they create: never inside the repository.

Scratch folders belong to the process that made them: ``fresh_scratch`` removes its folder again
when the Python process ends normally, which is what a Jupyter kernel does when it is shut down
or restarted (from the notebook, or when JupyterLab stops). Without this, every lesson run left
its SQLite files in ``/tmp/adkcourse`` for good. A process that ends without its exit hooks (a
kernel sent SIGTERM by a restart that took longer than jupyter_client's wait, or killed) is
cleaned up after by ``adkcourse.reaper``: the first folder a process owns starts it, and every
folder owned is listed in the process's manifest (``ROOT/.owners/PID.jsonl``) for it.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

SCRATCH_VARIABLE = "ADKCOURSE_SCRATCH"
KEEP_VARIABLE = "ADKCOURSE_KEEP_SCRATCH"
"""Set to 1 to keep scratch folders after the process ends (to look at the files)."""

_OWNED: dict[Path, tuple[int, int]] = {}
"""Folders this process created, with the (device, inode) they had: removed at exit."""
_MANIFESTS: dict[Path, Path] = {}
"""For each scratch root this process owns folders in: its manifest there, watched by a reaper."""
_LOCK = threading.Lock()
_REGISTERED = False
OWNERS = ".owners"


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
    _list_for_reaper(folder, status)
    if not _REGISTERED:
      # Registered on first use, so atexit runs it before the hooks of servers started later
      # (an embedded PostgreSQL, for one), which may still be using the folder.
      atexit.register(remove_owned_scratch)
      _REGISTERED = True


def watch_folder(folder: Path, wait_for: int) -> None:
  """Have this process's reaper remove ``folder`` once this process and the process
  ``wait_for`` are both gone (an embedded PostgreSQL's data folder: its server must stop
  first). The exit hook leaves it alone: the server's own shutdown removes it."""
  with _LOCK:
    _list_for_reaper(folder, folder.stat(), wait_for)


def _list_for_reaper(folder: Path, status: os.stat_result, wait_for: int | None = None) -> None:
  """Add ``folder`` to this process's manifest in its root, starting the root's reaper with the
  first one (called with ``_LOCK`` held)."""
  if os.environ.get(KEEP_VARIABLE, "").strip() not in ("", "0"):
    return
  root = folder.parent
  manifest = _MANIFESTS.get(root)
  try:
    if manifest is None:
      (root / OWNERS).mkdir(exist_ok=True)
      manifest = root / OWNERS / f"{os.getpid()}.jsonl"
      extra = [str(root)] if root == _default_root() else []
      subprocess.Popen([sys.executable, "-m", "adkcourse.reaper", str(os.getpid()), str(manifest),
                        *extra], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
      _MANIFESTS[root] = manifest
    with open(manifest, "a", encoding="utf-8") as listing:
      entry = {"path": str(folder), "dev": status.st_dev, "ino": status.st_ino}
      listing.write(json.dumps({**entry, "wait_for": wait_for} if wait_for else entry) + "\n")
  except OSError:  # best effort: where no process can be started, the exit hook still runs
    pass


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
  # The manifests stay for the reapers: they remove them, and an emptied default root, once this
  # process is gone (a server's data folder they watch may outlive this hook by a moment).
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
