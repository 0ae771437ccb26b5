"""Grade a folder of submissions: one subprocess per student, two at a time.

Each submission is graded by ``python -m adkcourse.grade._worker`` in its own scratch folder
(working directory, ``HOME``, ``TMPDIR`` and ``ADKCOURSE_SCRATCH`` all point there, so every
student gets fresh databases), with an environment built from an allowlist (no API key,
password or token of the instructor's reaches it), a time limit (the process is killed, with anything it
started, when it overruns), a memory limit (``RLIMIT_AS`` set in the child) and its output
sent to a file of which only the beginning is read back. Whatever happens to one submission
becomes a line of feedback; it never stops the others.
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from .checks import Exercise, get_exercise
from .extract import SUFFIXES, extract
from .report import Report
from ..scratch import reproducible_environment

OUTPUT_EXCERPT = 4_000  # characters of a submission's output shown in its feedback page
KILL_GRACE = 2.0  # seconds past the time limit before the process group is killed
# The only variables a submission inherits from the grader's environment. An allowlist, not a
# blocklist: a list of secrets to remove always misses one (PGPASSWORD, AWS_*, tokens,
# GOOGLE_APPLICATION_CREDENTIALS...), and whatever a submission can read it can print into
# its feedback page. These only locate Python and its libraries and set locale and time zone.
INHERITED_VARIABLES = ("PATH", "LANG", "LANGUAGE", "TZ", "VIRTUAL_ENV", "PYTHONPATH",
                       "PYTHONHOME", "LD_LIBRARY_PATH", "DYLD_LIBRARY_PATH", "SYSTEMROOT",
                       "WINDIR")
INHERITED_PREFIXES = ("LC_",)


class UsageError(ValueError):
  """A mistake in how the grader was called (exit status 2)."""


@dataclass(frozen=True)
class Submission:
  student: str
  path: Path


@dataclass
class Graded:
  """One student's result: the report, plus what the feedback page shows besides it."""

  student: str
  path: Path
  report: Report
  seconds: float = 0.0
  output: str = ""
  output_size: int = 0
  info: list[str] = field(default_factory=list)


def find_submissions(folder: Path) -> list[Submission]:
  """One submission per ``.ipynb`` or ``.py`` file; the student id is the file name's stem."""
  folder = Path(folder)
  if not folder.exists():
    raise UsageError(f"submissions folder not found: {folder}")
  if not folder.is_dir():
    raise UsageError(f"not a folder: {folder}")
  found: dict[str, Submission] = {}
  for path in sorted(folder.iterdir()):
    if path.suffix not in SUFFIXES or path.name.startswith(".") or not path.is_file():
      continue
    if path.stem in found:
      raise UsageError(f"two submissions for student {path.stem!r}: "
                       f"{found[path.stem].path.name} and {path.name}; keep one")
    found[path.stem] = Submission(path.stem, path)
  if not found:
    raise UsageError(f"no .ipynb or .py submissions in {folder}")
  return list(found.values())


def _child_environment(work: Path) -> dict[str, str]:
  """The whole environment of a submission's process: a few inherited variables (see
  ``INHERITED_VARIABLES``) plus the grader's own settings; nothing else of the instructor's."""
  env = {k: v for k, v in os.environ.items()
         if k in INHERITED_VARIABLES or k.startswith(INHERITED_PREFIXES)}
  env.update(reproducible_environment(work))
  env.update(HOME=str(work / "home"), TMPDIR=str(work / "tmp"),
             PYTHONDONTWRITEBYTECODE="1", PYTHONIOENCODING="utf-8",
             PYTHONUNBUFFERED="1", MPLBACKEND="Agg")
  return env


def _read_excerpt(path: Path) -> tuple[str, int]:
  """The beginning of a (possibly huge) output file, and its full size in bytes."""
  if not path.exists():
    return "", 0
  size = path.stat().st_size
  with path.open("rb") as stream:
    head = stream.read(OUTPUT_EXCERPT)
  return head.decode("utf-8", errors="replace"), size


def _describe_exit(code: int) -> str:
  if code < 0:
    name = signal.Signals(-code).name if -code in signal.Signals._value2member_map_ else -code
    return f"was killed by signal {name}"
  return f"ended with exit status {code}"


def _merge(*groups: Iterable[str]) -> list[str]:
  return list(dict.fromkeys(note for group in groups for note in group))


def _run_spawned(exercise: str, code: Path, result: Path, output: Path, work: Path,
                 time_limit: float, memory_mb: int) -> tuple[int, bool]:
  """Start a fresh interpreter for one submission; kill its process group on overrun."""
  command = [sys.executable, "-B", "-m", "adkcourse.grade._worker", exercise, str(code),
             str(result), "--time-limit", f"{time_limit:g}", "--memory-mb", str(memory_mb)]
  with output.open("wb") as sink:
    process = subprocess.Popen(command, cwd=work, env=_child_environment(work),
                               stdin=subprocess.DEVNULL, stdout=sink, stderr=subprocess.STDOUT,
                               start_new_session=True)
    timed_out = False
    try:
      process.wait(timeout=time_limit + KILL_GRACE)
    except subprocess.TimeoutExpired:
      timed_out = True
    finally:
      try:  # the whole process group: nothing the submission started survives it
        os.killpg(process.pid, signal.SIGKILL)
      except (ProcessLookupError, PermissionError):
        pass
      process.wait()
  return process.returncode, timed_out


class ForkServerError(RuntimeError):
  """The fork server stopped answering."""


class ForkServer:
  """A ``_worker --serve`` process that has imported the exercise's checks once and forks a
  child per submission (each child: own session, folder, environment and limits)."""

  def __init__(self, exercise: str, cwd: Path):
    self.process = subprocess.Popen(
        [sys.executable, "-B", "-m", "adkcourse.grade._worker", "--serve", exercise],
        cwd=cwd, env=_child_environment(cwd), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True, bufsize=1, start_new_session=True)

  def run(self, request: dict) -> tuple[int, bool]:
    try:
      self.process.stdin.write(json.dumps(request) + "\n")
      self.process.stdin.flush()
      line = self.process.stdout.readline()
      reply = json.loads(line)
      return int(reply["returncode"]), bool(reply["timed_out"])
    except (OSError, ValueError, KeyError, TypeError) as error:
      self.process.kill()  # no longer trusted: the pool starts a new one
      raise ForkServerError(str(error)) from error

  @property
  def alive(self) -> bool:
    return self.process.poll() is None

  def close(self) -> None:
    try:
      self.process.stdin.close()
      self.process.wait(timeout=5)
    except (OSError, subprocess.TimeoutExpired):
      self.process.kill()
      self.process.wait()


def grade_one(exercise: Exercise, submission: Submission, scratch: Path, *,
              time_limit: float = 30.0, memory_mb: int = 2048,
              server: Optional[ForkServer] = None) -> Graded:
  """Grade one submission in its own subprocess and scratch folder (forked from ``server``
  when given, else a fresh interpreter)."""
  started = time.monotonic()
  extracted = extract(submission.path, exercise.name)
  graded = Graded(submission.student, submission.path, exercise.zero_report(""),
                  info=list(extracted.info))
  if extracted.error or not extracted.found:
    reason = extracted.error or extracted.notes[-1]
    graded.report = exercise.zero_report(reason)
    graded.report.notes = _merge([reason], extracted.notes)
    graded.seconds = time.monotonic() - started
    return graded

  folder = Path(tempfile.mkdtemp(prefix=f"{submission.student[:40]}-", dir=scratch))
  work = folder / "work"
  for sub in ("home", "tmp", "scratch"):
    (work / sub).mkdir(parents=True)
  code, result, output = folder / "submission.py", folder / "result.json", folder / "output.txt"
  code.write_text(extracted.code, encoding="utf-8")
  if server is not None:
    try:
      returncode, timed_out = server.run({
          "code": str(code), "result": str(result), "output": str(output), "cwd": str(work),
          "env": _child_environment(work), "time_limit": time_limit, "memory_mb": memory_mb,
          "grace": KILL_GRACE})
    except ForkServerError:
      server = None  # grade this one the slow way; the pool replaces the broken server
      result.unlink(missing_ok=True)
  if server is None:
    returncode, timed_out = _run_spawned(exercise.name, code, result, output, work,
                                         time_limit, memory_mb)
  graded.output, graded.output_size = _read_excerpt(output)
  report = _read_report(result)
  if report is None:
    if timed_out:
      reason = (f"stopped after {time_limit:g} s (the time limit): nothing could be graded; "
                "look for an endless loop")
    else:
      reason = (f"the grading process {_describe_exit(returncode)} before reporting "
                "(a crash, os._exit, or the memory limit)")
    report = exercise.zero_report(reason)
  report.notes = _merge(extracted.notes, report.notes)
  graded.report = report
  graded.seconds = time.monotonic() - started
  shutil.rmtree(folder, ignore_errors=True)
  return graded


def _read_report(path: Path) -> Optional[Report]:
  try:
    return Report.from_dict(json.loads(path.read_text(encoding="utf-8"))["report"])
  except (OSError, ValueError, KeyError, TypeError):
    return None


def grade_all(exercise_name: str, submissions: list[Submission], *, jobs: int = 2,
              time_limit: float = 30.0, memory_mb: int = 2048, progress: bool = True,
              scratch: Optional[Path] = None, fork: Optional[bool] = None) -> list[Graded]:
  """Grade every submission, ``jobs`` at a time; results sorted by student.

  ``fork`` (default: where ``os.fork`` exists) grades through fork servers, one per job;
  ``fork=False`` starts a fresh interpreter per submission (slower, same isolation).
  """
  from tqdm import tqdm

  from adkcourse.scratch import scratch_root

  exercise = get_exercise(exercise_name)
  fork = hasattr(os, "fork") if fork is None else fork
  root = Path(tempfile.mkdtemp(prefix="grade-", dir=scratch or scratch_root()))
  servers: queue.Queue = queue.Queue()
  started: list[ForkServer] = []
  for _ in range(min(jobs, len(submissions))):
    server = ForkServer(exercise_name, root) if fork else None
    if server is not None:
      started.append(server)
    servers.put(server)

  def task(submission: Submission) -> Graded:
    server = servers.get()
    try:
      if server is not None and not server.alive:
        server = ForkServer(exercise_name, root)
        started.append(server)
      return grade_one(exercise, submission, root, time_limit=time_limit,
                       memory_mb=memory_mb, server=server)
    finally:
      servers.put(server)

  results: list[Graded] = []
  try:
    with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(submissions)))) as pool, \
        tqdm(total=len(submissions), desc=f"grading {exercise_name}", unit="submission",
             file=sys.stderr, disable=not progress) as bar:
      futures = {pool.submit(task, s): s for s in submissions}
      for future in as_completed(futures):
        submission = futures[future]
        try:
          results.append(future.result())
        except Exception as error:  # noqa: BLE001 - the grader itself must not stop
          results.append(Graded(submission.student, submission.path, exercise.zero_report(
              f"the grader failed on this submission: {type(error).__name__}: {error}")))
        bar.update(1)
  finally:
    for server in started:
      server.close()
    shutil.rmtree(root, ignore_errors=True)
  return sorted(results, key=lambda g: g.student)
