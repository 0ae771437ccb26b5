"""Run a command while busy processes keep the machine's load at N times its cores.

    python scripts/under_load.py [--per-core 4] -- COMMAND [ARGS...]

The lessons' demos and asserts must give the same answer on a busy machine as on an idle one
(concurrent steps ordered with events, never with sleeps; no assert on a duration). CI runs the
English lessons this way; run it yourself on a lesson you changed. The exit status is the
command's.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from load import Load  # noqa: E402  (tests/load.py: the busy processes the grader's tests use)


def main() -> int:
  parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
  parser.add_argument("--per-core", type=int, default=4, help="busy processes per core")
  parser.add_argument("command", nargs=argparse.REMAINDER)
  args = parser.parse_args()
  command = args.command[1:] if args.command[:1] == ["--"] else args.command
  if not command:
    parser.error("give the command to run after --")
  with Load(args.per_core) as load:
    print(f"under_load: {load.count} busy processes while: {' '.join(command)}", flush=True)
    return subprocess.call(command)


if __name__ == "__main__":
  sys.exit(main())
