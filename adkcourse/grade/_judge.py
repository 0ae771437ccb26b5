"""The trusted half of grading: worlds, the reference's runs, observing and judging.

    python -I -B -m adkcourse.grade._judge EXERCISE REFERENCE_FILE   (started by the runner)

One per job slot, for a whole run. It never imports or runs a submission. Before it says it is
ready it warms up: it imports everything its exercise uses and, where the exercise needs no
PostgreSQL, judges the reference against itself on one world, so that the first submission of
a slot pays no cold start. Then it reads one JSON request per line on stdin and answers one
JSON line on stdout:

    {"op": "prepare", "workdir": W, "private": P, "sockets": S, "postgres_url": U, "seed": N}
        -> {"ok": true, "worlds": [{"index", "seed", "inputs", "channels"}], "calls": C}
    {"op": "observe", "workdir": W, "reports": [a world's report or null, ...]}
        -> {"ok": true, "report": {...}}
    {"op": "discard", "workdir": W}  -> {"ok": true}

``prepare`` builds each world twice from its seed: the reference runs on the copy in ``P``
(which no sandbox sees) and is observed there; the copy in ``W`` is observed pristine and
handed to the submission's sandbox, with unix sockets in ``S`` for the world's trusted services
(``_channel``). ``observe`` gets the reports the sandbox sent (untrusted JSON, validated
field by field), observes the files the runner put back in ``W`` and the services itself, and
judges. (``{"ok": false, "error": "..."}`` when something raised.) It runs in a sandbox of its
own too (it reads files a submission wrote), with the run's folder writable and no network.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import resource
import shutil
import sys
import tempfile
import warnings
from pathlib import Path
from typing import Any, Callable, Optional

MEMORY_CAP = 4 * 1024 ** 3  # address space of this process (a hostile database stays small)


def load_reference(path: str, name: str) -> Callable:
  spec = importlib.util.spec_from_file_location(f"reference_{name}", path)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)  # type: ignore[union-attr]
  return getattr(module, name)


class JudgeProcess:
  """The judge's state between a submission's ``prepare`` and its ``observe``."""

  def __init__(self, exercise: Any, reference: Callable):
    self.exercise, self.reference = exercise, reference
    self.trials: dict[str, tuple[list, list]] = {}  # workdir -> (prepared worlds, servers)

  async def prepare(self, request: dict) -> dict:
    from adkcourse.grade.checks._channel import SocketServer
    from adkcourse.grade.checks._engine import Resources, prepare_world, world_seeds

    exercise = self.exercise
    workdir, private = Path(request["workdir"]), Path(request["private"])
    sockets = Path(request["sockets"])
    resources = Resources(postgres_url=request.get("postgres_url"))
    seeds = world_seeds(request.get("seed"), exercise.worlds)
    prepared, served, worlds = [], [], []
    self.trials[str(workdir)] = (prepared, served)
    for index, seed in enumerate(seeds):
      world = await prepare_world(exercise, self.reference, index, seed, workdir, private,
                                  resources)
      prepared.append(world)
      channels = {}
      for name, server in world.servers.items():
        path = sockets / f"w{index}-{name}.sock"
        served.append(SocketServer(server, path))
        channels[name] = str(path)
      worlds.append({"index": index, "seed": seed, "inputs": world.inputs,
                     "channels": channels})
    shutil.rmtree(private, ignore_errors=True)
    return {"ok": True, "worlds": worlds,
            "calls": sum(exercise.calls(world.spec) for world in prepared)}

  async def observe(self, request: dict) -> dict:
    from adkcourse.grade.checks._engine import judge, observe_world
    from adkcourse.grade.wording import LANGUAGES

    if str(request["workdir"]) not in self.trials:
      return {"ok": False, "error": "this submission's worlds are unknown to this judge (it was "
                                    "restarted since it prepared them): grade it again"}
    prepared, served = self.trials.pop(str(request["workdir"]))
    for server in served:
      server.stop()
    reports = request.get("reports")
    reports = reports if isinstance(reports, list) else []
    results = []
    for number, world in enumerate(prepared):
      report = reports[number] if number < len(reports) else None
      results.append(await observe_world(self.exercise, world, report))
    lang = request.get("lang")
    lang = lang if lang in LANGUAGES else "en"
    return {"ok": True, "report": judge(self.exercise, results, lang).to_dict()}

  async def discard(self, request: dict) -> dict:
    prepared, served = self.trials.pop(str(request["workdir"]), ([], []))
    for server in served:
      server.stop()
    teardown = self.exercise.teardown
    for world in prepared:
      if teardown is not None:
        try:
          await teardown(world.spec, world.inputs, world.resources)
        except Exception:  # noqa: BLE001 - a throwaway server goes anyway
          pass
    return {"ok": True}

  async def handle(self, request: dict) -> dict:
    op = request.get("op")
    if op == "prepare":
      return await self.prepare(request)
    if op == "observe":
      return await self.observe(request)
    if op == "discard":
      return await self.discard(request)
    return {"ok": False, "error": f"unknown request {op!r}"}


def warm_up(exercise: Any, reference: Callable) -> None:
  """Import and run once what every submission's grading will need."""
  import google.adk.runners  # noqa: F401
  import google.adk.sessions.sqlite_session_service  # noqa: F401

  if exercise.needs_postgres:
    import asyncpg  # noqa: F401
    import google.adk.sessions.database_session_service  # noqa: F401
    return
  from adkcourse.grade.checks._engine import Resources, run_trial, world_seeds

  folder = Path(tempfile.mkdtemp(prefix="judge-warm-"))
  try:
    asyncio.run(run_trial(exercise, reference, folder, Resources(), world_seeds(0, 1)[:1],
                          reference=reference))
  finally:
    shutil.rmtree(folder, ignore_errors=True)


def main(argv: Optional[list[str]] = None) -> int:
  argv = sys.argv[1:] if argv is None else argv
  os.umask(0o022)  # the sandbox (another uid) reads the data prepared here
  replies = os.fdopen(os.dup(1), "w", encoding="utf-8", buffering=1)
  os.dup2(2, 1)  # anything else printed goes to the log, never into the protocol
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from adkcourse.grade.checks import get_exercise

    exercise = get_exercise(argv[0])
    reference = load_reference(argv[1], exercise.name)
  try:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))
  except (ValueError, OSError):
    pass
  from adkcourse.grade.safe_sqlite import harden_connect

  harden_connect()  # every SQLite connection of the judge: values and statements capped
  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    try:
      warm_up(exercise, reference)
    except Exception as error:  # noqa: BLE001 - not fatal: the first submission pays instead
      print(f"judge warm-up failed: {type(error).__name__}: {error}", file=sys.stderr)
  judge = JudgeProcess(exercise, reference)
  replies.write(json.dumps({"ok": True, "ready": True}) + "\n")
  loop = asyncio.new_event_loop()
  for line in sys.stdin:
    if not line.strip():
      continue
    try:
      with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reply = loop.run_until_complete(judge.handle(json.loads(line)))
    except Exception as error:  # noqa: BLE001 - one request's failure is one student's note
      reply = {"ok": False, "error": f"{type(error).__name__}: {error}"[:2000]}
    try:
      replies.write(json.dumps(reply) + "\n")
    except (TypeError, ValueError) as error:
      replies.write(json.dumps({"ok": False, "error": f"unserialisable reply: {error}"}) + "\n")
  return 0


if __name__ == "__main__":
  sys.exit(main())
