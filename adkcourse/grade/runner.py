"""Grade a folder of submissions without trusting any of them.

For each submission, in a private folder of this run (never the submissions folder, which no
sandbox sees):

1. **prepare** (trusted): a judge process (``_judge``), which never imports student code,
   builds the submission's random worlds twice each: it runs the reference on one copy, in a
   folder no sandbox sees, and observes it; the other copy goes in the submission's work
   folder (and, for ``needs_postgres`` exercises, in a PostgreSQL server private to this
   submission, see ``pgsandbox``);
2. **act** (untrusted): ``_act`` runs in a bubblewrap sandbox (``sandbox``): it extracts the
   submission's definitions, runs the exercise's ``act`` on a private copy of each world and
   sends back how each call ended, plus the files left in the work folder, nothing else;
3. **observe + judge** (trusted): the files are put back in the work folder, the judge reads
   them (and the PostgreSQL server, and the world's services) itself and compares them with
   the reference's; this process rebuilds the report from its own list of checks, numbers
   clamped to each check's points.

Time is CPU time (``--timeout``: CPU seconds for all of a submission's calls), measured for the
whole sandbox by its cgroup (or its processes' own counts where there is none), with a
wall-clock limit several times longer for calls that block. A submission that reached a time
limit is graded again at the end, alone, before the limit costs it anything.

Anything malformed from the sandbox is 0 plus a note for that student alone; one submission's
crash, timeout or damage never reaches another. The submissions are copied into the run's
folder before anything runs, and everything the run started is dead when ``grade_all`` returns.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import queue
import selectors
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
import unicodedata
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Optional

from .checks import Exercise, get_exercise
from .extract import MAX_CODE, kind
from .hygiene import escape_id, lookalike_key, one_line
from .report import CheckResult, Report
from .sandbox import Isolation, Running, Sandbox, detect
from ..scratch import reproducible_environment

KILL_GRACE = 2.0  # seconds past the sandbox's own limits before the grader kills it
STARTUP_CPU = 30.0  # CPU seconds a sandbox may use besides the calls (imports, worlds' set-up)
STARTUP_WALL = 120.0  # seconds of wall-clock time on top of WALL_FACTOR times the CPU limit
WALL_FACTOR = 6.0  # a sandbox's wall-clock limit: this many times its CPU limit, plus the above
MAX_FILE = 32 * 1024 * 1024  # bytes of one submission file taken (a notebook with outputs)
SCRATCH_MB = 64  # size of each of a sandbox's two private tmpfs folders
PROCESSES = 128  # processes and threads of one sandbox, all together
HEADER_CAP = 8 * 1024 * 1024  # bytes of the sandbox's JSON report
MAX_RETURNED_FILES = 1000  # files a sandbox may send back (``_act`` sends at most 500)
JUDGE_START_TIMEOUT = 600.0  # seconds for a judge to import and warm up (a loaded machine)


def judge_timeout(time_limit: float) -> float:
  """Seconds the judge may take for one request (it builds worlds and runs the reference, or
  observes and compares): generous, and scaled with the submissions' own limit."""
  return 120.0 + 4.0 * time_limit
MAX_NOTES = 30
MAX_TEXT = 2_000
# The only variables a submission inherits from the grader's environment (an allowlist: a
# list of secrets to remove always misses one). They set language and time zone.
INHERITED_VARIABLES = ("LANG", "LANGUAGE", "TZ")
INHERITED_PREFIXES = ("LC_",)


class UsageError(ValueError):
  """A mistake in how the grader was called (exit status 2)."""


class Malformed(ValueError):
  """The sandbox's report is not what ``_act`` writes (the submission tampered with it)."""


@dataclass(frozen=True)
class Submission:
  student: str  # the file name without its extension, NFC, invisible characters escaped
  path: Path
  problem: Optional[str] = None  # why it gets 0 without running (two files for one id)
  notes: tuple[str, ...] = ()  # shown to the student and the instructor (a look-alike id)


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
  isolation_off: bool = False
  survivors: int = 0  # processes that outlived the submission's sandbox (then killed)
  timed_out: bool = False  # a time limit was reached (so it is graded again, alone)
  regraded: bool = False  # this is the second grading, alone, after a time limit
  cpu_seconds: Optional[float] = None  # CPU time of its sandbox


def find_submissions(folder: Path, skipped: Optional[list[str]] = None) -> list[Submission]:
  """One submission per ``.ipynb`` or ``.py`` file (any case, hidden files included); the
  student id is the file name's stem (``hygiene.escape_id``). Everything else is listed in
  ``skipped`` with why. Two files with the same stem (``ada.py`` and ``ada.ipynb``) give that
  id one row with 0 and a note, never stop the class; ids that look alike (same
  ``hygiene.lookalike_key``: case, a zero-width joiner, a decomposed accent) are graded per
  file, each with a note naming the other."""
  folder = Path(folder)
  if not folder.exists():
    raise UsageError(f"submissions folder not found: {folder}")
  if not folder.is_dir():
    raise UsageError(f"not a folder: {folder}")
  skipped = skipped if skipped is not None else []
  by_stem: dict[str, list[Path]] = {}
  for path in sorted(folder.iterdir()):
    shown = escape_id(path.name)
    if path.is_symlink():
      skipped.append(f"{shown}: a symbolic link, not a file handed in")
      continue
    if not kind(path):
      if path.is_dir():
        skipped.append(f"{shown}/: a folder")
      else:
        skipped.append(f"{shown}: not a .ipynb or .py file")
      continue
    if not path.is_file():
      skipped.append(f"{shown}: not a regular file")
      continue
    by_stem.setdefault(path.stem, []).append(path)
  if not by_stem:
    raise UsageError(f"no .ipynb or .py submissions in {folder}")
  # a stem already in NFC keeps the plain id; another file whose NFC form is the same gets
  # its own code points escaped (two files never share an id)
  ids: dict[str, str] = {}
  for stem in sorted(by_stem, key=lambda s: (unicodedata.normalize("NFC", s) != s, s)):
    student = escape_id(stem)
    if student in ids.values():
      student = escape_id(stem, normalize=False)
    while student in ids.values():  # (cannot happen: escaping is one-to-one)
      student += "_"
    ids[stem] = student
  groups: dict[str, list[str]] = {}
  for stem in by_stem:
    groups.setdefault(lookalike_key(stem), []).append(stem)
  found = []
  for stem, paths in by_stem.items():
    student = ids[stem]
    problem = None
    if len(paths) > 1:
      names = " and ".join(escape_id(p.name) for p in paths)
      problem = (f"two submissions for student '{student}': {names}; nothing was graded: "
                 "keep one and re-submit")
    others = [ids[o] for o in groups[lookalike_key(stem)] if o != stem]
    notes = ()
    if others:
      alike = ", ".join(f"'{o}'" for o in others)
      notes = (f"the id '{student}' looks like {alike} (another "
               "file): each file is graded on its own; check that this grade is yours",)
    found.append(Submission(student, paths[0], problem, notes))
  return found


def copy_private(path: Path, destination: Path) -> Optional[str]:
  """Copy one submission file into the run's private folder; the reason it could not be."""
  try:
    handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
  except OSError as error:
    return f"the file could not be opened ({error.strerror})"
  try:
    info = os.fstat(handle)
    if not stat.S_ISREG(info.st_mode):
      return "not a regular file"
    if info.st_nlink > 1:  # a hard link could be any file of the machine, /etc/shadow...
      return "the file is a hard link (it has other names): copy it, then grade the copy"
    if info.st_size > MAX_FILE:
      return (f"the file is {info.st_size / 1e6:.1f} MB, more than the "
              f"{MAX_FILE / 1e6:.0f} MB the grader takes")
    with os.fdopen(handle, "rb", closefd=False) as stream:
      data = stream.read(MAX_FILE + 1)
  except OSError as error:
    return f"the file could not be read ({error.strerror})"
  finally:
    os.close(handle)
  if len(data) > MAX_FILE:
    return f"the file grew past {MAX_FILE / 1e6:.0f} MB while being read"
  destination.write_bytes(data)
  destination.chmod(0o644)
  return None


def _inherited() -> dict[str, str]:
  return {k: v for k, v in os.environ.items()
          if (k in INHERITED_VARIABLES or k.startswith(INHERITED_PREFIXES))
          and len(v) < 100 and v.isprintable()}


def act_environment(base: Path) -> dict[str, str]:
  """The whole environment of a submission: language settings from an allowlist, and the
  grader's own settings pointing into the sandbox's private ``base`` folder. Nothing else of
  the instructor's (keys, passwords, tokens) exists there."""
  env = {"LANG": "C.UTF-8", **_inherited()}
  env.update(reproducible_environment(base))
  env.update(HOME=str(base / "home"), TMPDIR=str(base / "tmp"),
             PATH=f"{Path(sys.prefix) / 'bin'}:/usr/local/bin:/usr/bin:/bin",
             PYTHONDONTWRITEBYTECODE="1", PYTHONIOENCODING="utf-8", PYTHONUNBUFFERED="1",
             MPLBACKEND="Agg", USER="student", LOGNAME="student",
             XDG_RUNTIME_DIR=str(base / "runtime"))
  return env


def _boot(module: str) -> list[str]:
  """The command running ``module``'s ``main`` with this Python, isolated from the
  environment (``-I``), the course package importable."""
  parent = _package_parent()
  code = (f"import sys; sys.path.insert(0, {parent!r}); "
          f"from {module} import main; sys.exit(main(sys.argv[1:]))")
  return [sys.executable, "-I", "-B", "-u", "-c", code]


def _package_parent() -> str:
  # the package's folder from this module's own path (``adkcourse`` has no ``__init__``)
  return os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))


class JudgeError(RuntimeError):
  """The judge did not answer (crashed, timed out, or its answer was unreadable)."""

  def __init__(self, message: str, timed_out: bool = False):
    super().__init__(message)
    self.timed_out = timed_out


class Judge:
  """One ``_judge`` process: prepares data and judges, for one job slot at a time."""

  def __init__(self, exercise: str, sandbox: Sandbox, root: Path, log: Path,
               reference: Path, timeout: float, sockets: Optional[Path] = None):
    self.exercise, self.sandbox, self.root, self.log = exercise, sandbox, root, log
    self.reference, self.timeout = reference, timeout
    self.sockets = sockets  # where the trusted services listen, when not under root
    self.running: Optional[Running] = None
    self._buffer = b""

  def launch(self) -> None:
    """Start the judge now, without waiting for it (call ``ready`` next). From the thread that
    outlives the run: bubblewrap ends a sandbox when the thread that started it ends."""
    if self.running is None or not self.running.alive():
      self.stop()
      self._launch()

  def ready(self) -> None:
    """Wait until a launched judge has warmed up (``JudgeError`` if it does not)."""
    try:
      reply = self._read(JUDGE_START_TIMEOUT)
    except JudgeError:
      self.stop()
      raise
    if reply.get("ready") is not True:
      self.stop()
      raise JudgeError(f"the judge did not start: {reply}")

  def _start(self) -> None:
    self._launch()
    self.ready()

  def _launch(self) -> None:
    enabled = self.sandbox.isolation.enabled
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/tmp", "TMPDIR": "/tmp",
           **reproducible_environment(Path("/tmp") if enabled else self.root / "judge")}
    reference = "/grade/reference.py" if enabled else str(self.reference)
    with self.log.open("ab") as log:
      self.running = self.sandbox.start(
          _boot("adkcourse.grade._judge") + [self.exercise, reference], env=env,
          chdir=str(self.root), rw_binds=[(str(self.root), str(self.root))] + (
              [(str(self.sockets), str(self.sockets))] if self.sockets is not None
              and not self.sockets.is_relative_to(self.root) else []),
          ro_binds=[(str(self.reference), reference)] if enabled else (),
          # the submissions' files are no business of the judge: hidden behind an empty tmpfs
          tmpfs=[("/tmp", 64 * 1024 * 1024), (str(self.root / "submissions"), 4096)],
          private_uid=False, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
          cwd_without_sandbox=str(self.root))
    self._buffer = b""

  def _read(self, timeout: float) -> dict:
    assert self.running is not None
    stdout = self.running.process.stdout
    assert stdout is not None
    fd = stdout.fileno()
    stop = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
      selector.register(fd, selectors.EVENT_READ)
      while b"\n" not in self._buffer:
        left = stop - time.monotonic()
        if left <= 0:
          raise JudgeError(f"no answer within {timeout:g} s")
        if not selector.select(left):
          continue
        chunk = os.read(fd, 1 << 20)
        if not chunk:
          raise JudgeError("the judge stopped (see judge log)")
        self._buffer += chunk
        if len(self._buffer) > HEADER_CAP * 2:
          raise JudgeError("the judge's answer is too long")
    line, _, self._buffer = self._buffer.partition(b"\n")
    try:
      reply = json.loads(line)
    except ValueError as error:
      raise JudgeError(f"unreadable answer ({error})") from None
    if not isinstance(reply, dict):
      raise JudgeError("unreadable answer")
    return reply

  def call(self, request: dict, timeout: Optional[float] = None) -> dict:
    """Send one request; its reply (``ok`` true), or ``JudgeError``. A judge that failed is
    stopped; the next call starts a fresh one."""
    timeout = self.timeout if timeout is None else timeout
    try:
      if self.running is None or not self.running.alive():
        self.stop()
        self._start()
      assert self.running is not None and self.running.process.stdin is not None
      self.running.process.stdin.write(json.dumps(request).encode() + b"\n")
      self.running.process.stdin.flush()
      reply = self._read(timeout)
    except (OSError, ValueError, JudgeError) as error:
      self.stop()
      raise JudgeError(str(error), timed_out="no answer within" in str(error)) from None
    if reply.get("ok") is not True:
      raise JudgeError(str(reply.get("error", "failed"))[:MAX_TEXT])
    return reply

  def stop(self) -> None:
    if self.running is not None:
      self.running.stop()
      self.running = None


# -- what came out of the sandbox ------------------------------------------------------------

def _text(value: Any) -> Optional[str]:
  return value[:MAX_TEXT] if type(value) is str else None


def unsealed(reports: Any, errors: Any) -> Any:
  """The worlds' reports, each world whose record the sandbox's supervisor could not make
  (``_act.seal_worlds``) marked so: the judge then observes nothing of it and it earns
  nothing (a record the run itself left in its place may be forged)."""
  if not isinstance(reports, list) or not isinstance(errors, dict) or not errors:
    return reports
  marked = list(reports)
  for key, message in list(errors.items())[:100]:
    if type(key) is str and key.isdigit() and int(key) < len(marked) \
        and isinstance(marked[int(key)], dict):
      marked[int(key)] = {**marked[int(key)], "unsealed": str(message)[:MAX_TEXT]}
  return marked


def _texts(value: Any, limit: int = MAX_NOTES) -> Optional[list[str]]:
  """A list of plain strings (cut to ``limit`` items of ``MAX_TEXT`` characters), or None."""
  if not isinstance(value, list) or not all(type(v) is str for v in value):
    return None
  kept = [v[:MAX_TEXT] for v in value[:limit]]
  if len(value) > limit:
    kept.append(f"... and {len(value) - limit} more")
  return kept


def _relative(name: Any) -> PurePosixPath:
  if type(name) is not str or not 0 < len(name) <= 1024 or "\x00" in name:
    raise Malformed("a file name is not a short string")
  path = PurePosixPath(name)
  if path.is_absolute() or len(path.parts) > 8 or any(
      part in ("", ".", "..") or len(part.encode("utf-8", "surrogatepass")) > 255
      for part in path.parts) or str(path) != name:
    raise Malformed(f"unsafe file name {name!r:.80}")
  return path


def _no_constant(name: str) -> Any:
  raise ValueError(f"{name} is not JSON")


def parse_result(data: bytes) -> tuple[dict, list[tuple[PurePosixPath, bytes]]]:
  """The sandbox's JSON line and files, each field's type checked; ``Malformed`` if not."""
  line, newline, rest = data.partition(b"\n")
  if not newline:
    raise Malformed("no report")
  if len(line) > HEADER_CAP:
    raise Malformed("the report is too long")
  try:
    header = json.loads(line, parse_constant=_no_constant)
  except (ValueError, RecursionError) as error:
    raise Malformed(f"the report is not JSON ({type(error).__name__})") from None
  if not isinstance(header, dict):
    raise Malformed("the report is not a JSON object")
  listed = header.get("files")
  if not isinstance(listed, list):
    raise Malformed("no list of files")
  if len(listed) > MAX_RETURNED_FILES:
    raise Malformed(f"{len(listed):,} files: more than the {MAX_RETURNED_FILES} a work folder holds")
  files, offset, seen = [], 0, set()
  for item in listed:
    if (not isinstance(item, list) or len(item) != 2 or type(item[1]) is not int
        or item[1] < 0):
      raise Malformed("a file entry is not [name, size]")
    path = _relative(item[0])
    if path in seen:
      raise Malformed("a file is listed twice")
    seen.add(path)
    files.append((path, rest[offset: offset + item[1]]))
    offset += item[1]
  if offset != len(rest):
    raise Malformed("the files do not add up to what was sent")
  return header, files


def restore_files(workdir: Path, files: list[tuple[PurePosixPath, bytes]]) -> list[str]:
  """Replace the work folder's content by the files the sandbox returned; notes on those
  that could not be placed."""
  for entry in list(workdir.iterdir()):
    if entry.is_dir() and not entry.is_symlink():
      shutil.rmtree(entry)
    else:
      entry.unlink()
  notes = []
  for path, data in files:
    target = workdir.joinpath(*path.parts)
    try:
      target.parent.mkdir(parents=True, exist_ok=True)
      with open(target, "xb") as stream:
        stream.write(data)
    except (OSError, ValueError) as error:  # a name the file system refuses, a clash...
      notes.append(f"{path} could not be returned ({getattr(error, 'strerror', None) or error})")
  return notes


def rebuild_report(exercise: Exercise, data: Any) -> Report:
  """The report from the judge's answer, rebuilt from this process's own list of checks:
  every check present once, ``earned`` a finite number clamped to its points."""
  results = data.get("results") if isinstance(data, dict) else None
  by_name: dict[str, dict] = {}
  for item in results if isinstance(results, list) else []:
    if isinstance(item, dict) and type(item.get("check")) is str:
      by_name.setdefault(item["check"], item)
  rebuilt = []
  for check in exercise.checks:
    item = by_name.get(check.name, {})
    earned, feedback = item.get("earned"), _text(item.get("feedback"))
    if type(earned) not in (int, float) or not math.isfinite(earned) or feedback is None:
      rebuilt.append(CheckResult(check.name, check.points, 0.0, "not judged"))
      continue
    rebuilt.append(CheckResult(check.name, check.points,
                               round(min(max(float(earned), 0.0), check.points), 2), feedback))
  notes = _texts(data.get("notes") if isinstance(data, dict) else None) or []
  return Report(exercise.name, rebuilt, notes)


def _merge(*groups: list[str]) -> list[str]:
  return list(dict.fromkeys(note for group in groups for note in group))


def _child_notes(header: dict, name: str, time_limit: float, memory_mb: int,
                 memory_exceeded: bool) -> list[str]:
  child = header.get("child")
  if not isinstance(child, dict):
    return ["the sandbox's report does not say how the submission ended"]
  notes = []
  if memory_exceeded:
    notes.append(f"the submission went over the memory limit ({memory_mb:,} MiB for all its "
                 "processes together): the kernel stopped some of them; graded on what it had "
                 "done")
  if child.get("stopped") == "cpu":
    notes.append(f"the process running `{name}` used up its CPU time ({time_limit:g} CPU s "
                 "for the calls, plus the grader's own start) and was stopped: look for an "
                 "endless loop; graded on the worlds it had finished")
  elif child.get("stopped") == "wall":
    notes.append(f"the process running `{name}` was still running long after its time limit "
                 "(waiting, not computing) and was stopped; graded on the worlds it had "
                 "finished")
  elif type(child.get("signal")) is str and not memory_exceeded:
    notes.append(f"the process running `{name}` was killed by {child['signal'][:20]}; "
                 "graded on the worlds it had finished")
  elif type(child.get("exit")) is int and child["exit"] not in (0,) and not header.get(
      "finished"):
    notes.append(f"the process running `{name}` ended with exit status {child['exit']} "
                 "before reporting every world (os._exit?); graded on what it reported")
  for error in header.get("errors") or []:
    if type(error) is str and error.startswith(("the messages of the process", "the run broke")):
      notes.append(error[:MAX_TEXT])
  return notes


def _stopped(header: Optional[dict]) -> bool:
  """Did a time limit stop anything in this run (a call, or the whole process)?"""
  if not isinstance(header, dict):
    return False
  child = header.get("child")
  if isinstance(child, dict) and child.get("stopped"):
    return True
  for world in header.get("worlds") or []:
    for outcome in (world.get("outcomes") or []) if isinstance(world, dict) else []:
      if isinstance(outcome, dict) and outcome.get("stopped") in ("cpu", "wall"):
        return True
  return False


MACHINE_ERRORS = ("OSError", "MemoryError", "BlockingIOError", "RuntimeError: can't start new "
                  "thread")



SOCKET_PATH_ROOM = 100  # a unix socket's path holds about 107 bytes; names add up to 30


def sockets_root(root: Path) -> Path:
  """Where the trusted services of this run's submissions listen (a folder per submission):
  under ``root`` when its path is short, else a fresh short-named folder of the system's (a
  unix socket cannot be bound at a path longer than about 107 bytes, and a grader's root may
  lie deep in a clone or a test's temporary folder); the judges and sandboxes see it."""
  sockets = root / "sockets"
  if len(str(sockets)) + 30 > SOCKET_PATH_ROOM:
    base = "/tmp" if os.access("/tmp", os.W_OK) else None
    sockets = Path(tempfile.mkdtemp(prefix="adkc-", dir=base))
  else:
    sockets.mkdir(exist_ok=True)
  sockets.chmod(0o755)
  return sockets


def _machine_failed(header: Optional[dict]) -> bool:
  """Did the run break for a reason of the machine's rather than the submission's code (the
  event loop or a thread could not be made)?"""
  if not isinstance(header, dict):
    return False
  return any(type(e) is str and e.startswith("the run broke: ") and
             e[len("the run broke: "):].startswith(MACHINE_ERRORS)
             for e in header.get("errors") or [])


def reference_file(exercise: str) -> Path:
  """The reference solution's file (``solutions/NAME.py``), found by this trusted process."""
  import importlib.util

  spec = importlib.util.find_spec(f"solutions.{exercise}")
  if spec is None or spec.origin is None:
    raise UsageError(f"the reference solution solutions/{exercise}.py is not installed")
  return Path(spec.origin)


class Grader:
  """One grading run: its private folder, sandbox, judges and PostgreSQL servers."""

  def __init__(self, exercise: Exercise, isolation: Isolation, root: Path, *, jobs: int,
               time_limit: float, memory_mb: int, seed: Optional[int] = None,
               lang: str = "en", languages: Optional[dict[str, str]] = None):
    import secrets

    self.lang, self.languages = lang, dict(languages or {})

    self.exercise, self.isolation, self.root = exercise, isolation, root
    self.time_limit, self.memory_mb = time_limit, memory_mb
    # Without --seed, fresh worlds every run, but the same for a submission graded again.
    self.seed = seed if seed is not None else secrets.randbits(48)
    self.sandbox = Sandbox(isolation)
    self.sockets = sockets_root(root)
    self.judges: queue.Queue = queue.Queue()
    self._all_judges: list[Judge] = []
    reference = reference_file(exercise.name)
    for number in range(jobs):
      judge = Judge(exercise.name, self.sandbox, root, root / f"judge-{number}.log", reference,
                    judge_timeout(time_limit), sockets=self.sockets)
      self._all_judges.append(judge)
      self.judges.put(judge)
    self.farm = None
    if exercise.needs_postgres:
      from .pgsandbox import PostgresFarm

      self.farm = PostgresFarm(self.sandbox, root)
    self._numbers = iter(range(1, 1_000_000))
    self._lock = threading.Lock()

  def close(self) -> None:
    for judge in self._all_judges:
      judge.stop()
    shutil.rmtree(self.sockets, ignore_errors=True)

  def grade(self, submission: Submission, private: Optional[Path], problem: Optional[str]
            ) -> Graded:
    started = time.monotonic()
    graded = Graded(submission.student, submission.path, self.exercise.zero_report(""),
                    isolation_off=not self.isolation.enabled)
    if submission.problem is not None:
      graded.report = self.exercise.zero_report(submission.problem)
      return graded
    if private is None:
      graded.report = self.exercise.zero_report(f"{submission.path.name}: {problem}")
      return graded
    with self._lock:
      number = next(self._numbers)
    folder = self.root / f"s{number:04d}"
    workdir = folder / "work"
    for sub in ("work", "judge"):
      (folder / sub).mkdir(parents=True)
      (folder / sub).chmod(0o700 if sub == "judge" else 0o755)
    folder.chmod(0o755)
    sockets = self.sockets / folder.name
    sockets.mkdir()
    sockets.chmod(0o755)
    judge = self.judges.get()
    try:
      graded.report = self._grade(submission, private, folder, workdir, sockets, judge, graded)
    finally:
      self.judges.put(judge)
      shutil.rmtree(sockets, ignore_errors=True)
      shutil.rmtree(folder, ignore_errors=True)
    graded.seconds = time.monotonic() - started
    return graded

  def _grade(self, submission: Submission, private: Path, folder: Path, workdir: Path,
             sockets: Path, judge: Judge, graded: Graded) -> Report:
    exercise = self.exercise
    server = None
    prepared = False
    try:
      if self.farm is not None:
        try:
          server = self.farm.start(folder)
        except Exception as error:  # noqa: BLE001 - the grader's problem, said as such
          return exercise.zero_report(f"the grader could not start this submission's "
                                      f"PostgreSQL server ({one_line(error, 200)})")
      try:
        worlds = judge.call({"op": "prepare", "workdir": str(workdir),
                             "private": str(folder / "judge"), "sockets": str(sockets),
                             "postgres_url": server.url if server else None,
                             "seed": self._seed_for(submission)})
        prepared = True
      except JudgeError as error:
        graded.timed_out = graded.timed_out or error.timed_out
        return exercise.zero_report(f"the grader could not prepare this submission's data "
                                    f"({one_line(error, 300)}): grade it again")
      run, header, files, problem = self._act(private, folder, workdir, sockets, worlds, server)
      graded.output = run.output.decode("utf-8", "replace")
      graded.output_size = run.output_size
      graded.cpu_seconds = run.cpu_seconds
      # a limit reached, or the machine itself failed the run (no memory, no file handles):
      # either way graded again, alone, before it costs anything
      graded.timed_out = run.timed_out or _stopped(header) or _machine_failed(header)
      if run.output_truncated:
        graded.info.append(f"it printed more than {run.output_size:,} bytes: the grader "
                           "stopped reading there")
      graded.survivors = run.survivors
      if run.survivors:
        graded.info.append(f"{run.survivors} process(es) outlived the sandbox and were killed")
      if problem is not None:
        return exercise.zero_report(problem)
      assert header is not None
      extracted = header.get("extracted")
      if not isinstance(extracted, dict) or type(extracted.get("found")) is not bool:
        return exercise.zero_report("the submission's code could not be read (the sandbox "
                                    "reported no extraction)")
      notes = _texts(extracted.get("notes")) or []
      graded.info += _texts(extracted.get("info")) or []
      error = _text(extracted.get("error"))
      if error or not extracted["found"]:
        reason = error or (notes[-1] if notes else "the exercise's function was not found")
        report = exercise.zero_report(reason)
        report.notes = _merge([reason], notes)
        return report
      defined = header.get("defined")
      define_notes = (_texts(defined.get("notes")) or []) if isinstance(defined, dict) else []
      if not isinstance(defined, dict) or defined.get("ok") is not True:
        report = exercise.zero_report(define_notes[-1] if define_notes else
                                      "the submission's definitions did not run")
        report.notes = _merge(notes, define_notes, report.notes)
        return report
      child_notes = _child_notes(header, exercise.name, self.time_limit, self.memory_mb,
                                 run.memory_exceeded)
      file_notes = _texts(header.get("file_notes"), 10) or []
      file_notes += restore_files(workdir, files)
      try:
        answer = judge.call({"op": "observe", "workdir": str(workdir),
                             "reports": unsealed(header.get("worlds") or [],
                                                 header.get("seal_errors")),
                             "lang": self.language_of(submission)})
        prepared = False
      except JudgeError as error:
        graded.timed_out = graded.timed_out or error.timed_out
        report = exercise.zero_report(f"what the submission left could not be judged "
                                      f"({one_line(error, 300)})")
        report.notes = _merge(notes, define_notes, child_notes, report.notes)
        return report
      report = rebuild_report(exercise, answer.get("report"))
      report.notes = _merge(notes, define_notes, child_notes, file_notes, report.notes)
      if run.survivors:
        report.notes.append(f"{run.survivors} process(es) it started outlived its sandbox "
                            "and were killed")
      return report
    finally:
      if prepared:
        try:
          judge.call({"op": "discard", "workdir": str(workdir)})
        except JudgeError:
          pass
      if server is not None:
        server.stop()

  def language_of(self, submission: Submission) -> str:
    """The language of this student's feedback: the roster's, else the run's ``--lang``."""
    return self.languages.get(submission.student, self.lang)

  def _seed_for(self, submission: Submission) -> int:
    """The seed of this submission's worlds: the same on every grading of it in this run
    (and, with ``--seed``, on every run), different for each student."""
    digest = hashlib.sha256(f"{self.seed}:{submission.student}".encode("utf-8",
                                                                       "surrogatepass"))
    return int.from_bytes(digest.digest()[:6], "big")

  def limits(self) -> tuple[float, float]:
    """(CPU seconds, wall-clock seconds) a submission's sandbox may use, everything included."""
    cpu = self.time_limit + STARTUP_CPU
    return cpu, STARTUP_WALL + WALL_FACTOR * cpu

  def _act(self, private: Path, folder: Path, workdir: Path, sockets: Path, prepared: dict,
           server: Any):
    """Run the submission's phase in its sandbox: (run, header, files, reason for a zero)."""
    enabled = self.isolation.enabled
    scratch = SCRATCH_MB * 1024 * 1024
    base = Path("/tmp") if enabled else folder / "private"
    submission = (f"/grade/submission{kind(private)}" if enabled else str(private))
    cpu_cap, wall_limit = self.limits()
    request = {"exercise": self.exercise.name, "submission": submission,
               "workdir": str(workdir), "input": "/grade/input" if enabled else "",
               "worlds": [{"index": w["index"], "inputs": w["inputs"],
                           "channels": w["channels"]} for w in prepared["worlds"]],
               "calls": prepared["calls"], "time_limit": self.time_limit,
               "cpu_cap": cpu_cap, "wall_limit": wall_limit,
               "memory_mb": self.memory_mb, "processes": PROCESSES, "file_cap": scratch,
               "files_cap": scratch, "code_cap": MAX_CODE}
    request_file = folder / "request.json"
    request_file.write_text(json.dumps(request), encoding="utf-8")
    request_file.chmod(0o644)
    ro_binds = [(str(request_file), "/grade/request.json"), (str(private), submission),
                (str(workdir), "/grade/input"), (str(sockets), str(sockets))]
    if server is not None:
      ro_binds.append((str(server.socket_dir), str(server.socket_dir)))
    if not enabled:
      for sub in ("home", "tmp", "scratch"):
        (base / sub).mkdir(parents=True, exist_ok=True)
    run = self.sandbox.run(
        _boot("adkcourse.grade._act") + ["/grade/request.json" if enabled else
                                         str(request_file)],
        deadline=wall_limit + KILL_GRACE, cpu_limit=cpu_cap + KILL_GRACE,
        result_cap=scratch + HEADER_CAP, env=act_environment(base), chdir=str(workdir),
        tmpfs=[(str(workdir), scratch), ("/tmp", scratch)] if enabled else (),
        ro_binds=ro_binds if enabled else (),
        memory_bytes=(self.memory_mb * 1024 * 1024 + 2 * scratch), processes=PROCESSES,
        cwd_without_sandbox=str(workdir))
    if run.timed_out:
      what = (f"{cpu_cap:g} CPU seconds" if run.cpu_exceeded
              else f"{wall_limit:g} seconds of waiting")
      return run, None, [], (f"stopped after {what} (the time limit, everything included): "
                             "nothing could be graded; look for an endless loop")
    try:
      header, files = parse_result(run.result)
    except Malformed as error:
      ended = (f"killed by signal {-run.returncode}" if (run.returncode or 0) < 0
               else f"exit status {run.returncode}")
      memory = " after going over the memory limit" if run.memory_exceeded else ""
      return run, None, [], (f"the sandbox ended ({ended}){memory} without a readable report "
                             f"({error}): nothing could be graded")
    return run, header, files, None


def copy_submissions(submissions: list[Submission], folder: Path
                     ) -> list[tuple[Submission, Optional[Path], Optional[str]]]:
  """Every submission copied into ``folder`` first, before any of them runs: what a
  submission could do to the others' files later no longer matters."""
  folder.mkdir(mode=0o755)
  copied = []
  for number, submission in enumerate(submissions, start=1):
    if submission.problem is not None:  # never run: no copy
      copied.append((submission, None, submission.problem))
      continue
    target = folder / f"{number:04d}{kind(submission.path)}"
    problem = copy_private(submission.path, target)
    copied.append((submission, None if problem else target, problem))
  return copied


def _result(future: Any, submission: Submission, exercise: Exercise, isolation: Isolation
            ) -> Graded:
  """A future's ``Graded``; a grader failure becomes that student's 0."""
  try:
    return future.result()
  except Exception as error:  # noqa: BLE001 - the grader itself must not stop
    return Graded(submission.student, submission.path, exercise.zero_report(
        f"the grader failed on this submission: {type(error).__name__}: {error}"),
        isolation_off=not isolation.enabled)


def _by_item(copied: list, results: list[Graded]) -> list:
  """The ``copied`` items in the order of ``results`` (matched by student)."""
  by_student = {item[0].student: item for item in copied}
  return [by_student[graded.student] for graded in results]


def grade_all(exercise_name: str, submissions: list[Submission], *, jobs: int = 2,
              time_limit: float = 30.0, memory_mb: int = 2048, progress: bool = True,
              scratch: Optional[Path] = None, sandbox: str = "bwrap",
              isolation: Optional[Isolation] = None, seed: Optional[int] = None,
              lang: str = "en", languages: Optional[dict[str, str]] = None
              ) -> list[Graded]:
  """Grade every submission, ``jobs`` at a time; results sorted by student.

  ``sandbox="bwrap"`` isolates each submission (``SandboxUnavailable`` where bubblewrap
  cannot run); ``"none"`` runs them with the grader's rights (every page says so). An
  ``isolation`` from ``sandbox.detect`` can be passed instead (the caller then closes it).
  ``seed`` makes each student's data the same on every run (default: fresh data each time).
  ``lang`` is the language of every report, ``languages`` (student id -> code) a student's
  own where it differs: the same grading, only the sentences change (``wording``).
  """
  from tqdm import tqdm

  from adkcourse.scratch import scratch_root

  exercise = get_exercise(exercise_name)
  own_isolation = isolation is None
  isolation = isolation or detect(sandbox)
  jobs = max(1, min(jobs, len(submissions)))
  base = Path(scratch or scratch_root())
  base.mkdir(parents=True, exist_ok=True)
  root = Path(tempfile.mkdtemp(prefix="grade-", dir=base))  # 0700: no other user looks in
  if not isolation.enabled and isolation.server_uid is not None:
    root.chmod(0o711)  # without bwrap's binds, PostgreSQL's own user must cross it
  grader = None
  results: list[Graded] = []
  try:
    copied = copy_submissions(submissions, root / "submissions")
    grader = Grader(exercise, isolation, root, jobs=jobs, time_limit=time_limit,
                    memory_mb=memory_mb, seed=seed, lang=lang, languages=languages)
    for judge in grader._all_judges:  # from this thread; all warm up at once
      judge.launch()
    for judge in grader._all_judges:
      try:
        judge.ready()
      except JudgeError:
        pass  # started again (and its failure told) when a submission needs it
    with ThreadPoolExecutor(max_workers=jobs) as pool, \
        tqdm(total=len(submissions), desc=f"grading {exercise_name}", unit="submission",
             file=sys.stderr, disable=not progress) as bar:
      futures = {pool.submit(grader.grade, *item): item for item in copied}
      for future in as_completed(futures):
        item = futures[future]
        results.append(_result(future, item[0], exercise, isolation))
        bar.update(1)
      again = [item for item, graded in zip(_by_item(copied, results), results)
               if graded.timed_out]
      # A limit reached (perhaps while other submissions were graded too): graded again now,
      # alone (one at a time, in the same worker threads, whose judges are warm), before the
      # limit costs anything.
      for item in tqdm(again, desc="grading again alone (time limit reached)",
                       unit="submission", file=sys.stderr, disable=not progress):
        first = next(g for g in results if g.student == item[0].student)
        second = _result(pool.submit(grader.grade, *item), item[0], exercise, isolation)
        second.regraded = True
        while_ = (f" while {jobs} submissions were graded at a time" if jobs > 1 else "")
        second.report.notes.insert(0, (
            f"this submission reached a time limit{while_}, so it was graded again, alone; "
            "this is the second grading" + (" (it reached a limit again)" if second.timed_out
                                            else "")))
        results[results.index(first)] = second
  finally:
    if grader is not None:
      grader.close()
    shutil.rmtree(root, ignore_errors=True)
    if own_isolation:
      isolation.close()
  by_student = {s.student: s for s in submissions}
  for graded in results:
    submission = by_student.get(graded.student)
    if submission is not None and submission.notes:
      graded.report.notes = (_merge(graded.report.notes, list(submission.notes))
                             if submission.problem else
                             _merge(list(submission.notes), graded.report.notes))
  for graded in results:
    student_lang = (languages or {}).get(graded.student, lang)
    if student_lang != "en":  # the grader's notes were made in English: said in theirs now
      graded.report = graded.report.in_language(student_lang)
  return sorted(results, key=lambda g: g.student)
