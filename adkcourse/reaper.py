"""Remove a process's scratch folders once the process is gone, however it went.

A Jupyter kernel removes its scratch folders at exit (``scratch.remove_owned_scratch``, an
atexit hook), but a kernel does not always get to run its exit hooks. On Restart Kernel,
jupyter_client sends SIGTERM when the kernel has not exited after half its 5-second shutdown
wait, and a kernel that first stops its child processes (ipykernel does, the embedded
PostgreSQL among them) often needs longer on a busy machine: SIGTERM ends Python without exit
hooks, and the lesson's files stayed behind (issue 27). So the first folder a process owns
starts this small watcher, in its own session (out of reach of the kernel's process-group
signals). It waits for the process to end, then removes the folders listed in the process's
manifest that are still the ones the process made (same device and inode: a folder another
kernel has made since under the same name is left alone), and the manifest. An embedded
PostgreSQL's data folder is listed with its server's process, which its own watchdog
(``adkcourse.pg_watchdog``) stops: the reaper waits for that process to end first.

    python -m adkcourse.reaper PARENT_PID MANIFEST
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path


def _exists(pid: int) -> bool:
  try:
    os.kill(pid, 0)
  except ProcessLookupError:
    return False
  except PermissionError:
    return True
  return True


def entries(manifest: Path) -> list[dict]:
  """The folders a manifest lists (one JSON object a line; a torn last line is skipped)."""
  try:
    lines = manifest.read_text(encoding="utf-8").splitlines()
  except OSError:
    return []
  found = []
  for line in lines:
    try:
      entry = json.loads(line)
    except ValueError:
      continue
    if isinstance(entry, dict) and {"path", "dev", "ino"} <= set(entry):
      found.append(entry)
  return found


def reap(manifest: Path, remove_empty_parents: tuple[Path, ...] = ()) -> list[Path]:
  """Remove the manifest's folders that are still the ones it names, then the manifest; returns
  the folders removed. ``remove_empty_parents`` are removed too once empty."""
  removed = []
  for entry in entries(manifest):
    folder = Path(entry["path"])
    try:
      status = folder.stat()
    except OSError:
      continue
    if (status.st_dev, status.st_ino) == (entry["dev"], entry["ino"]):
      shutil.rmtree(folder, ignore_errors=True)
      removed.append(folder)
  manifest.unlink(missing_ok=True)
  for parent in (manifest.parent, *remove_empty_parents):
    try:
      parent.rmdir()  # only when empty: other processes' folders and manifests stay
    except OSError:
      pass
  return removed


def _wait_until_gone(pid: int, seconds: float) -> None:
  deadline = time.monotonic() + seconds
  while _exists(pid) and time.monotonic() < deadline:
    time.sleep(0.2)


def main(argv: list[str]) -> int:
  parent, manifest = int(argv[0]), Path(argv[1])
  extra = tuple(Path(p) for p in argv[2:])
  while _exists(parent):
    time.sleep(0.5)
  for entry in entries(manifest):  # a server's data folder: its own watchdog stops it first
    if isinstance(entry.get("wait_for"), int):
      _wait_until_gone(entry["wait_for"], 60.0)
  reap(manifest, extra)  # after a normal exit the exit hook removed the folders: the rest here
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
