"""scripts/under_load.py, the busy machine CI runs the English lessons on: it must really start
the busy processes while the command runs, and pass the command's exit status on (a wrapper
that swallowed a failing nbval run would make the under-load job pass whatever happened)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "under_load.py"

# The command counts its siblings: the processes with the same parent (the wrapper) but itself.
COUNT_SIBLINGS = """
import os, sys
parent = os.getppid()
siblings = []
for entry in os.listdir('/proc'):
    if entry.isdigit() and int(entry) != os.getpid():
        try:
            fields = open(f'/proc/{entry}/stat').read().rsplit(')', 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == parent:
            siblings.append(entry)
print(' '.join(siblings))
sys.exit(int(sys.argv[1]))
"""


def _run(per_core: int, status: int) -> tuple[int, list[int]]:
  done = subprocess.run([sys.executable, str(SCRIPT), "--per-core", str(per_core), "--",
                         sys.executable, "-c", COUNT_SIBLINGS, str(status)],
                        capture_output=True, text=True, timeout=300)
  return done.returncode, [int(pid) for pid in done.stdout.strip().splitlines()[-1].split()]


def test_the_busy_processes_run_alongside_the_command_and_its_status_is_kept():
  for per_core, status in ((2, 7), (1, 0)):
    returncode, busy = _run(per_core, status)
    assert returncode == status
    assert len(busy) == per_core * (os.cpu_count() or 1)


def test_no_busy_process_is_left_after_the_command():
  _, busy = _run(1, 3)
  assert busy and not [pid for pid in busy if Path(f"/proc/{pid}").exists()]


def test_a_missing_command_is_refused():
  done = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=60)
  assert done.returncode == 2 and "command" in done.stderr
