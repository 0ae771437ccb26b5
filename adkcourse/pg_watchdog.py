"""Stop an embedded PostgreSQL server when the process that started it is gone.

Run by ``adkcourse.postgres`` as ``python -m adkcourse.pg_watchdog PARENT_PID PGDATA [USER]``
in its own session, so it survives a kernel killed with SIGKILL and cleans up after it.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path


def _alive(pid: int) -> bool:
  try:
    os.kill(pid, 0)
  except ProcessLookupError:
    return False
  except PermissionError:
    return True
  return True


def main(argv: list[str]) -> int:
  parent, data_dir = int(argv[0]), Path(argv[1])
  user = argv[2] if len(argv) > 2 else None
  pid_file = data_dir / "postmaster.pid"
  while _alive(parent):
    time.sleep(0.5)
  time.sleep(1.0)  # give pgserver's own atexit cleanup the first chance
  if pid_file.exists():
    from pgserver._commands import pg_ctl

    try:
      pg_ctl(["-w", "-m", "fast", "stop"], pgdata=data_dir, user=user, timeout=20)
    except Exception:  # noqa: BLE001 - best effort: the server may already be gone
      pass
  shutil.rmtree(data_dir, ignore_errors=True)
  return 0


if __name__ == "__main__":
  sys.exit(main(sys.argv[1:]))
