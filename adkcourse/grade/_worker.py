"""Grade one submission in this process; the class grader starts one of these per student.

    python -m adkcourse.grade._worker EXERCISE CODE_FILE RESULT_FILE [--time-limit S] [--memory-mb M]
    python -m adkcourse.grade._worker --serve EXERCISE   # fork server: JSON lines on stdin

The parent (``adkcourse.grade.runner``) has already extracted the submission's definitions
into CODE_FILE and set the working folder, ``HOME`` and ``ADKCOURSE_SCRATCH`` to a fresh
scratch folder. Here: limit memory and file sizes, cap what the submission prints, define its
code, run the exercise's checks, and write the report as JSON to RESULT_FILE. Startup stays
lean: only the exercise's own checks module (and what it needs of ADK) is imported; with
``--serve`` that import happens once, and each submission gets a forked child of it.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import signal
import sys
import time
from pathlib import Path

STARTED = time.monotonic()
OUTPUT_CAP = 100_000  # characters of stdout/stderr kept per stream
FILE_SIZE_CAP = 64 * 1024 * 1024  # no file written by the submission may grow beyond this


class CappedStream(io.TextIOBase):
  """A text stream that passes the first ``cap`` characters on and counts the rest.

  A submission printing megabytes costs neither disk nor time beyond counting.
  """

  def __init__(self, target, cap: int):
    self._target, self._cap, self.written, self.dropped = target, cap, 0, 0

  def writable(self) -> bool:
    return True

  def write(self, text: str) -> int:
    text = str(text)
    room = self._cap - self.written
    if room > 0:
      kept = text[:room]
      self._target.write(kept)
      self.written += len(kept)
      self.dropped += len(text) - len(kept)
    else:
      self.dropped += len(text)
    return len(text)

  def flush(self) -> None:
    try:
      self._target.flush()
    except (OSError, ValueError):
      pass

  @property
  def encoding(self) -> str:
    return "utf-8"


def limit_resources(memory_mb: int) -> None:
  import resource

  limit = memory_mb * 1024 * 1024
  resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
  resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_CAP, FILE_SIZE_CAP))
  resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
  signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized write fails instead of killing


class _NoReferenceSolutions:
  """Import hook: the reference solutions installed with the course are off limits here."""

  def find_spec(self, name, path=None, target=None):  # noqa: ARG002
    if name == "solutions" or name.startswith("solutions."):
      raise ImportError("the course's reference solutions cannot be imported while grading")
    return None


def own_function(namespace: dict, name: str, notes: list[str]):
  """The submission's own function called ``name`` (not one it imported), or None."""
  import inspect

  fn = namespace.get(name)
  if fn is None:
    return None
  try:
    code = inspect.unwrap(fn).__code__
  except (AttributeError, ValueError):
    notes.append(f"`{name}` is a {type(fn).__name__}, not a function defined in the submission")
    return None
  if code.co_filename != "submission.py":
    notes.append(f"`{name}` is imported, not defined in the submission: write it yourself")
    return None
  return fn


def define(code_path: Path, notes: list[str]) -> dict:
  """Run the extracted definitions; whatever got defined before an error stays usable."""
  namespace: dict = {"__name__": "submission", "__file__": str(code_path)}
  try:
    exec(compile(code_path.read_text(encoding="utf-8"), "submission.py", "exec"), namespace)
  except KeyboardInterrupt:
    raise
  except SystemExit as error:
    notes.append(f"the submission's definitions called sys.exit({error.code!r})")
  except BaseException as error:  # noqa: BLE001
    where = ""
    tb = error.__traceback__
    while tb is not None:
      if tb.tb_frame.f_code.co_filename == "submission.py":
        where = f" (submission.py line {tb.tb_lineno})"
      tb = tb.tb_next
    notes.append(f"defining the submission failed: {type(error).__name__}: {error}{where}")
  return namespace


def grade_here(exercise_name: str, code: Path, result: Path, time_limit: float,
               memory_mb: int, started: float) -> None:
  """Grade one submission in this process, write the report, and leave (never returns)."""
  from adkcourse.grade.checks import get_exercise, run_exercise_checks

  exercise = get_exercise(exercise_name)  # imports ADK: before the memory limit counts
  limit_resources(memory_mb)
  stdout, stderr = CappedStream(sys.stdout, OUTPUT_CAP), CappedStream(sys.stderr, OUTPUT_CAP)
  sys.stdout, sys.stderr = stdout, stderr

  import asyncio

  notes: list[str] = []
  sys.meta_path.insert(0, _NoReferenceSolutions())
  namespace = define(code, notes)
  fn = own_function(namespace, exercise.name, notes)
  # The function gets most of what is left of the time limit; the checks need the rest.
  budget = round(max(0.5, (time_limit - (time.monotonic() - started)) * 0.6), 1)
  try:
    report = asyncio.run(run_exercise_checks(exercise.name, fn, workdir=Path.cwd() / "checks",
                                             time_limit=budget))
  except BaseException as error:  # noqa: BLE001 - a broken event loop after an interrupt...
    report = exercise.zero_report(f"the checks could not run: {type(error).__name__}: {error}")
  report.notes[:0] = notes
  dropped = stdout.dropped + stderr.dropped
  if dropped:
    report.notes.append(f"printed {stdout.written + stderr.written + dropped:,} characters; "
                        f"only the first {OUTPUT_CAP:,} per stream were kept")
  temporary = result.with_suffix(".tmp")
  temporary.write_text(json.dumps({"report": report.to_dict()}), encoding="utf-8")
  os.replace(temporary, result)
  stdout.flush()
  stderr.flush()
  # Leave now: threads a submission started must not keep this process alive.
  os._exit(0)


def _fork_and_wait(exercise_name: str, request: dict) -> dict:
  """Fork a child that grades one submission; wait for it within its time limit."""
  time_limit = float(request["time_limit"])
  sys.stdout.flush()
  sys.stderr.flush()
  pid = os.fork()
  if pid == 0:  # the child: its own session, files, folder and environment
    try:
      started = time.monotonic()
      os.setsid()
      sink = os.open(request["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
      null = os.open(os.devnull, os.O_RDONLY)
      os.dup2(null, 0)
      os.dup2(sink, 1)
      os.dup2(sink, 2)
      os.chdir(request["cwd"])
      os.environ.clear()
      os.environ.update(request["env"])
      import tempfile

      tempfile.tempdir = None  # TMPDIR changed
      grade_here(exercise_name, Path(request["code"]), Path(request["result"]), time_limit,
                 int(request["memory_mb"]), started)
    finally:
      os._exit(70)
  deadline = time.monotonic() + time_limit + float(request.get("grace", 2.0))
  timed_out = False
  while True:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
      break
    if time.monotonic() > deadline:
      timed_out = True
      _kill_group(pid)
      _, status = os.waitpid(pid, 0)
      break
    time.sleep(0.01)
  _kill_group(pid)  # whatever the submission started dies with it
  return {"returncode": os.waitstatus_to_exitcode(status), "timed_out": timed_out}


def _kill_group(pid: int) -> None:
  try:
    os.killpg(pid, signal.SIGKILL)
  except (ProcessLookupError, PermissionError):
    pass


def serve(exercise_name: str) -> int:
  """Fork server: import the exercise's checks once, then fork one child per request.

  Requests and replies are JSON lines on stdin/stdout. Forking a process that already holds
  ADK in memory costs milliseconds where a fresh interpreter costs most of a second.
  """
  from adkcourse.grade.checks import get_exercise

  get_exercise(exercise_name)
  import asyncio  # noqa: F401 - preloaded for the children

  for line in sys.stdin:
    if not line.strip():
      continue
    reply = _fork_and_wait(exercise_name, json.loads(line))
    sys.stdout.write(json.dumps(reply) + "\n")
    sys.stdout.flush()
  return 0


def main(argv: list[str] | None = None) -> int:
  argv = sys.argv[1:] if argv is None else argv
  if argv[:1] == ["--serve"] and len(argv) == 2:
    return serve(argv[1])
  parser = argparse.ArgumentParser()
  parser.add_argument("exercise")
  parser.add_argument("code", type=Path)
  parser.add_argument("result", type=Path)
  parser.add_argument("--time-limit", type=float, default=30.0,
                      help="seconds the whole grading of this submission may take")
  parser.add_argument("--memory-mb", type=int, default=2048)
  args = parser.parse_args(argv)
  grade_here(args.exercise, args.code, args.result, args.time_limit, args.memory_mb, STARTED)
  return 0


if __name__ == "__main__":
  sys.exit(main())
