"""The trusted half of grading: ``prepare`` and ``observe`` + ``judge``, never student code.

    python -I -B -m adkcourse.grade._judge EXERCISE    (started by ``adkcourse.grade.runner``)

One per job slot, for a whole run. It reads one JSON request per line on stdin and answers one
JSON line on stdout:

    {"op": "prepare", "workdir": W, "postgres_url": U|null}     -> {"ok": true, "setup": {...}}
    {"op": "observe", "workdir": W, "setup": {...}, "acted": A}   -> {"ok": true, "report": {...}}

(``{"ok": false, "error": "..."}`` when the exercise's code raised). This process never
imports or runs a submission: ``acted`` is untrusted JSON that ``observe`` validates, and the
databases it reads were written by the sandbox. It runs in a sandbox of its own too (it reads
those files), with the run's folder writable and no network; the grader kills and restarts it
when a request takes too long, and rebuilds each report from its own list of checks.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import sys
import warnings
from pathlib import Path
from typing import Any, Optional

MEMORY_CAP = 4 * 1024 ** 3  # address space of this process (a hostile database stays small)


def handle(exercise: Any, request: dict) -> dict:
  from adkcourse.grade.checks import Resources

  op = request.get("op")
  workdir = Path(request["workdir"])
  if op == "prepare":
    resources = Resources(postgres_url=request.get("postgres_url"), seed=request.get("seed"))
    setup = asyncio.run(exercise.prepare(workdir, resources))
    json.dumps(setup)  # the contract: JSON-able (it crosses into the sandbox as JSON)
    return {"ok": True, "setup": setup}
  if op == "observe":
    trial = asyncio.run(exercise.observe(workdir, request["setup"], request.get("acted")))
    return {"ok": True, "report": exercise.judge(trial).to_dict()}
  return {"ok": False, "error": f"unknown request {op!r}"}


def main(argv: Optional[list[str]] = None) -> int:
  argv = sys.argv[1:] if argv is None else argv
  os.umask(0o022)  # the sandbox (another uid) reads the data prepared here
  replies = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
  os.dup2(2, 1)  # anything else printed goes to the log, never into the protocol
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from adkcourse.grade.checks import get_exercise

    exercise = get_exercise(argv[0])
  try:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
  except (ValueError, OSError):
    pass
  from adkcourse.grade.safe_sqlite import harden_connect

  harden_connect()  # every SQLite connection of the judge: values and statements capped
  replies.write(json.dumps({"ok": True, "ready": True}) + "\n")
  for line in sys.stdin:
    if not line.strip():
      continue
    try:
      reply = handle(exercise, json.loads(line))
    except Exception as error:  # noqa: BLE001 - one request's failure is one student's note
      reply = {"ok": False, "error": f"{type(error).__name__}: {error}"[:2000]}
    try:
      replies.write(json.dumps(reply) + "\n")
    except (TypeError, ValueError) as error:
      replies.write(json.dumps({"ok": False, "error": f"unserialisable reply: {error}"}) + "\n")
  return 0


if __name__ == "__main__":
  sys.exit(main())
