"""The only program that runs student code: one per submission, inside its sandbox.

    python -I -B -m adkcourse.grade._act REQUEST_JSON    (started by ``adkcourse.grade.runner``)

It supervises one submission:

1. locks itself down (``seccomp.lock_down``: a fresh keyring, no sockets but unix ones, no
   key system calls, no tracing of another process), before any student code exists, and
   after the fork makes itself undumpable (``undumpable``), so that the submission's
   processes, of the same user, cannot reach into it;
2. reads the request (exercise, submission file, work folder, each world's ``inputs`` and
   channels, CPU budget, caps) and copies the prepared worlds into the work folder (a
   private, size-capped tmpfs);
3. imports the exercise (before any student code exists in memory) and forks a child. The
   child extracts the submission's definitions (size-capped), defines them, then runs the
   exercise's ``act`` on each world in turn and sends each world's report (how its calls
   ended; its snapshot is a folder) as JSON through a pipe: ``extracted``, ``defined``, one
   ``world`` per world in order, then ``finished`` (anything else is tampering, see
   ``read_messages``);
4. waits for the child until its CPU time or its wall-clock time is spent (then kills it),
   then kills every process the submission started (its descendants: this process is their
   subreaper, so a double fork does not hide one), so that the files are no longer changing;
5. seals each world (``Exercise.seal``, the exercise's trusted record of what its files alone
   do not carry back: a deep tree described, extended attributes), here and not in the
   child, because no code of the submission is left to forge it;
6. writes its report to the result pipe (``$GRADE_RESULT_FD``): one JSON line (what the
   extraction found, the worlds' reports, how the child ended, the files) then the bytes of
   each file.

Nothing here is trusted: the submission shares this sandbox and may tamper with all of it. The
judge outside validates every field and reads the returned databases itself; a submission
that breaks this program only loses its own report.
"""

from __future__ import annotations

import functools
import inspect
import json
import os
import resource
import select
import shutil
import signal
import stat
import sys
import time
from pathlib import Path
from typing import Any, Callable, Optional

from adkcourse.grade.tree import walk

STARTED = time.monotonic()
MESSAGES_CAP = 4 * 1024 * 1024  # bytes of child -> supervisor messages kept
MAX_FILES = 500
MAX_DEPTH = 8
RESERVE = 1.0  # seconds of the wall-clock limit kept for stopping the child and sending the files

# What a submission raising KeyboardInterrupt is turned into: an ordinary exception, so that
# the checks still judge what the function did before (same name in the notes).
Interrupted = type("KeyboardInterrupt", (Exception,), {})


class _NoReferenceSolutions:
  """Import hook: a clear message for ``import solutions`` (the package is not in the
  sandbox at all; this only says why)."""

  def find_spec(self, name, path=None, target=None):  # noqa: ARG002
    if name.split(".")[0] in ("solutions", "exercises"):
      raise ImportError("the course's reference solutions cannot be imported while grading")
    return None


def own_function(namespace: dict, name: str, notes: list[str]) -> Optional[Callable]:
  """The submission's own function called ``name`` (not one it imported), or None."""
  fn = namespace.get(name)
  if fn is None:
    notes.append(f"no function named `{name}` was defined (its definition failed?)")
    return None
  try:
    code = inspect.unwrap(fn).__code__
  except (AttributeError, ValueError, TypeError):
    notes.append(f"`{name}` is a {type(fn).__name__}, not a function defined in the submission")
    return None
  if getattr(code, "co_filename", None) != "submission.py":
    notes.append(f"`{name}` is imported, not defined in the submission: write it yourself")
    return None
  return fn


def define(code: str, notes: list[str]) -> dict:
  """Run the extracted definitions; whatever got defined before an error stays usable."""
  namespace: dict = {"__name__": "submission", "__file__": "submission.py"}
  try:
    exec(compile(code, "submission.py", "exec"), namespace)  # noqa: S102 - in the sandbox
  except SystemExit as error:
    notes.append(f"the submission's definitions called sys.exit({error.code!r})")
  except BaseException as error:  # noqa: BLE001 - KeyboardInterrupt included
    where = ""
    tb = error.__traceback__
    while tb is not None:
      if tb.tb_frame.f_code.co_filename == "submission.py":
        where = f" (submission.py line {tb.tb_lineno})"
      tb = tb.tb_next
    notes.append(f"defining the submission failed: {type(error).__name__}: "
                 f"{_safe_str(error)}{where}")
  return namespace


def _safe_str(error: BaseException) -> str:
  try:
    return str.__str__(str(error))
  except Exception:  # noqa: BLE001
    return "(its message could not be read)"


def interrupt_as_error(fn: Callable) -> Callable:
  """``fn`` with ``KeyboardInterrupt`` turned into an ordinary exception of the same name, and
  the same ``async``-ness (the contract checks look at it)."""
  if inspect.iscoroutinefunction(fn):
    @functools.wraps(fn)
    async def wrapper(*args, **kwargs):
      try:
        return await fn(*args, **kwargs)
      except KeyboardInterrupt:
        raise Interrupted() from None
    return wrapper

  @functools.wraps(fn)
  def wrapper_sync(*args, **kwargs):
    try:
      result = fn(*args, **kwargs)
    except KeyboardInterrupt:
      raise Interrupted() from None
    if inspect.isawaitable(result):
      async def awaited():
        try:
          return await result
        except KeyboardInterrupt:
          raise Interrupted() from None
      return awaited()
    return result
  return wrapper_sync


def _send(fd: int, message: dict) -> None:
  try:
    data = (json.dumps(message) + "\n").encode()
  except (TypeError, ValueError) as error:
    data = (json.dumps({"error": f"could not encode a message: {error}"}) + "\n").encode()
  view = memoryview(data)
  while view:
    written = os.write(fd, view)
    view = view[written:]


def _set_limits(request: dict) -> None:
  """Limits of this sandbox's processes (the cgroup, when there is one, caps them together)."""
  for limit, value in ((resource.RLIMIT_CORE, 0),
                       (resource.RLIMIT_FSIZE, int(request["file_cap"])),
                       (resource.RLIMIT_NPROC, int(request["processes"]))):
    try:
      resource.setrlimit(limit, (value, value))
    except (ValueError, OSError):
      pass
  signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an oversized write fails instead of killing


def child(request: dict, exercise: Any, send: Callable[[dict], None]) -> None:
  """Extract, define and act on every world (never returns)."""
  from adkcourse.grade.checks._channel import SocketChannel
  from adkcourse.grade.checks._harness import ActWorld, TimeBudget
  from adkcourse.grade.extract import extract

  try:
    Path("/proc/self/oom_score_adj").write_text("1000")  # the first to go when memory runs out
  except OSError:
    pass
  memory = int(request["memory_mb"]) * 1024 * 1024
  if memory:
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
  workdir = Path(request["workdir"])
  os.chdir(workdir)
  extracted = extract(Path(request["submission"]), exercise.name,
                      max_code=int(request["code_cap"]))
  send({"extracted": {"found": extracted.found, "error": extracted.error,
                      "notes": extracted.notes, "info": extracted.info}})
  if extracted.error or not extracted.found:
    os._exit(0)
  notes: list[str] = []
  sys.meta_path.insert(0, _NoReferenceSolutions())
  namespace = define(extracted.code, notes)
  fn = own_function(namespace, exercise.name, notes)
  send({"defined": {"ok": fn is not None, "notes": notes}})
  if fn is None:
    os._exit(0)
  import asyncio

  fn = interrupt_as_error(fn)
  budget = TimeBudget(float(request["time_limit"]), int(request["calls"]))

  async def act_all() -> None:
    for world in request["worlds"]:
      index = int(world["index"])
      acting = ActWorld(index, workdir / f"world-{index}", world["inputs"],
                        workdir / f"snapshot-{index}", budget, is_async=exercise.is_async,
                        channels={name: SocketChannel(path)
                                  for name, path in world.get("channels", {}).items()},
                        elsewhere_root=Path("/tmp") if request["input"] else None)
      try:
        await exercise.act(fn, acting)
        report = acting.report()
      except BaseException as error:  # noqa: BLE001 - the submission shares act's process
        report = acting.report()
        report["error"] = f"the exercise's run broke: {type(error).__name__}: {_safe_str(error)}"
      send({"world": report})

  try:
    asyncio.run(act_all())
  except BaseException as error:  # noqa: BLE001 - a broken event loop after an interrupt...
    send({"error": f"the run broke: {type(error).__name__}: {_safe_str(error)}"})
  send({"finished": True})
  sys.stdout.flush()
  sys.stderr.flush()
  os._exit(0)  # threads the submission started must not keep this process alive


def undumpable() -> bool:
  """Make this process undumpable (``PR_SET_DUMPABLE`` 0): a process of the same user can then
  neither trace it nor open its ``/proc/PID/mem``, so the submission (which runs as this
  process's user) cannot stop its kills or rewrite what it records. Done in this process only,
  after the fork: the child keeps its own /proc files. (The lock-down also fails ``ptrace``.)"""
  try:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    return libc.prctl(4, 0, 0, 0, 0) == 0  # PR_SET_DUMPABLE
  except (OSError, AttributeError):
    return False


def become_subreaper() -> bool:
  """Make this process the reaper of every orphan below it (``PR_SET_CHILD_SUBREAPER``): a
  double fork plus ``setsid`` then still leaves a descendant of this process, which
  ``kill_descendants`` finds."""
  try:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    return libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
  except (OSError, AttributeError):
    return False


def descendants(root: int) -> set[int]:
  """Every process whose chain of parents reaches ``root`` (never ``root`` itself)."""
  parents: dict[int, int] = {}
  for entry in os.listdir("/proc"):
    if not entry.isdigit():
      continue
    try:
      stat = Path(f"/proc/{entry}/stat").read_text()
      parents[int(entry)] = int(stat.rpartition(")")[2].split()[1])
    except (OSError, ValueError, IndexError):
      continue
  found: set[int] = set()
  frontier = {root}
  while frontier:
    frontier = {pid for pid, parent in parents.items() if parent in frontier} - found
    found |= frontier
  found.discard(root)
  return found


def kill_descendants(rounds: int = 100) -> int:
  """SIGKILL what the submission left running (this process's descendants only: with the
  sandbox off, this runs among the machine's other processes), so that the files are no
  longer changing while they are sent. How many were killed."""
  me, killed = os.getpid(), 0
  for _ in range(rounds):
    alive = 0
    for pid in descendants(me):
      try:
        os.kill(pid, signal.SIGKILL)
        alive += 1
      except (ProcessLookupError, PermissionError):
        pass
    while True:  # reap the dead (this process is their subreaper)
      try:
        if os.waitpid(-1, os.WNOHANG)[0] == 0:
          break
      except ChildProcessError:
        break
    if not alive:
      break
    killed += alive
    time.sleep(0.005)
  return killed


def copy_input(source: Path, workdir: Path) -> None:
  """The prepared data, into the private work folder (where the submission may change it)."""
  if not source.is_dir():
    return
  for entry in source.iterdir():
    target = workdir / entry.name
    if entry.is_dir() and not entry.is_symlink():
      shutil.copytree(entry, target, symlinks=True)
    elif entry.is_file() and not entry.is_symlink():
      shutil.copyfile(entry, target)


UNOBSERVED = "more-files-beyond-the-grader's-caps"  # one entry standing for all the rest


def collect_files(workdir: Path, cap: int
                  ) -> tuple[list[tuple[str, Path, Optional[int]]], list[str]]:
  """Regular files left in the work folder: (relative path, path, size), and notes on what
  was left out (links, devices, too many, too large). A file beyond the byte cap is returned
  empty (size None), and past the count cap one ``UNOBSERVED`` entry stands for the rest:
  what the grader cannot read must still be seen to exist, never vanish (a backup padded
  past the cap is still a backup), nor does a folder it cannot list or one deeper than
  ``MAX_DEPTH``: each is returned as an empty entry of its name."""
  files: list[tuple[str, Path, Optional[int]]] = []
  notes: list[str] = []
  over: list[str] = []
  total = 0

  def stand_in(relative: str, path: Path, why: str) -> None:
    """An empty entry named as a folder the grader cannot read: what it holds still exists.
    (Named as the report allows: ``MAX_DEPTH`` parts at most, the rest joined into the last.)"""
    if len(files) >= MAX_FILES:
      over.append(relative)
      return
    parts = Path(relative).parts
    if len(parts) > MAX_DEPTH:
      relative = str(_short_relative(Path(relative), MAX_DEPTH))
    files.append((relative, path, None))
    notes.append(f"{relative} {why}: returned as an empty entry")

  def walk(folder: Path, depth: int) -> None:
    nonlocal total
    try:
      entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as error:
      if folder != workdir:
        stand_in(os.path.relpath(folder, workdir), folder,
                 f"could not be listed ({error.strerror or 'unreadable'})")
      return
    for entry in entries:
      relative = os.path.relpath(entry.path, workdir)
      if entry.is_dir(follow_symlinks=False):
        if depth + 1 < MAX_DEPTH:  # what it holds has at most MAX_DEPTH parts (the report's)
          walk(Path(entry.path), depth + 1)
        else:
          stand_in(relative, Path(entry.path), f"is deeper than the {MAX_DEPTH} levels returned")
        continue
      if not entry.is_file(follow_symlinks=False):
        notes.append(f"{relative} is not a regular file: not returned")
        continue
      try:
        size = entry.stat(follow_symlinks=False).st_size
      except OSError as error:  # listed, not searchable (a folder of mode 0444): still there
        stand_in(relative, Path(entry.path),
                 f"could not be read ({error.strerror or 'unreadable'})")
        continue
      if len(files) >= MAX_FILES:
        over.append(relative)
        continue
      if total + size > cap:
        over.append(relative)
        files.append((relative, Path(entry.path), None))
        continue
      files.append((relative, Path(entry.path), size))
      total += size

  walk(workdir, 0)
  if len(over) > sum(1 for _, _, size in files if size is None):
    files.append((UNOBSERVED, workdir / UNOBSERVED, None))
  if over:
    notes.append(f"{len(over)} file(s) beyond the grader's caps ({MAX_FILES} files, "
                 f"{cap:,} bytes) were returned empty or as one entry, e.g. {over[0]}")
  return files, notes


def keep_leftovers(source: Path, target: Path, cap: int) -> None:
  """Copy the files under ``source`` (the sandbox's /tmp, private and gone when it ends) into
  ``target`` in the work folder, so that the judge sees what a submission wrote there (a copy
  of data it should have erased, a log of what it should not keep). Only what lies on
  ``source``'s own file system: folders the sandbox binds there (the trusted services'
  sockets, a server's socket folder) are not the submission's doing. A deep path is kept
  under a flattened name (the report holds paths of a few parts only). What cannot be copied
  (beyond ``cap`` bytes in all, or not a regular file: a link, a FIFO, a socket) is kept as
  an empty file of the same name, and past ``MAX_FILES // 2`` entries one ``UNOBSERVED``
  entry stands for the rest, and a folder it cannot list is kept as an empty file of its
  name: made is made, however large, odd or locked."""
  total = 0
  kept = 0
  device = os.lstat(source).st_dev

  def unlisted(error: OSError) -> None:  # a folder it cannot list: it still held something
    where = Path(error.filename or source)
    relative = where.relative_to(source) if where != source else Path(UNOBSERVED)
    _placeholder(target / _short_relative(relative))

  for root, dirs, names in walk(source, onerror=unlisted):
    unread = [d for d in dirs if _lstat(Path(root) / d) is None]  # listed, not searchable
    dirs[:] = sorted(d for d in dirs if _same_device(Path(root) / d, device))
    for name in sorted(names) + sorted(unread):
      path = Path(root) / name
      info = _lstat(path)
      if info is None:  # what a folder of mode 0444 holds: there, but its kind unknown
        if kept >= MAX_FILES // 2:
          _placeholder(target / UNOBSERVED)
          return
        kept += 1
        _placeholder(target / _short_relative(path.relative_to(source)))
        continue
      if info.st_dev != device:
        continue
      if kept >= MAX_FILES // 2:
        _placeholder(target / UNOBSERVED)
        return
      destination = target / _short_relative(path.relative_to(source))
      kept += 1
      if stat.S_ISREG(info.st_mode) and total + info.st_size <= cap:
        try:
          destination.parent.mkdir(parents=True, exist_ok=True)
          shutil.copyfile(path, destination, follow_symlinks=False)
          total += info.st_size
          continue
        except OSError:
          pass
      _placeholder(destination)


def _placeholder(path: Path) -> None:
  """An empty file at ``path``: something was there that the grader could not copy."""
  try:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.open("ab").close()
  except OSError:
    pass


def _lstat(path: Path) -> Optional[os.stat_result]:
  try:
    return os.lstat(path)
  except OSError:
    return None


def _same_device(path: Path, device: int) -> bool:
  try:
    info = os.lstat(path)
  except OSError:
    return False
  return info.st_dev == device and info.st_mode & 0o170000 == 0o040000


def _short_relative(relative: Path, parts: int = 5) -> Path:
  """``relative`` with at most ``parts`` parts, each at most 120 bytes: the rest is joined
  into the last part's name."""
  names = list(relative.parts)
  if len(names) > parts:
    names = names[:parts - 1] + ["__".join(names[parts - 1:])]
  clipped = [name.encode("utf-8", "surrogateescape")[:120].decode("utf-8", "ignore") or "_"
             for name in names]
  return Path(*clipped)


def send_report(fd: int, header: dict, files: list[tuple[str, Path, Optional[int]]]) -> None:
  """The result: a JSON line, then each file's bytes (exactly the sizes the line lists)."""
  sent: list[list[Any]] = []
  blobs: list[bytes] = []
  for relative, path, size in files:
    data = b""
    if size is not None:
      try:
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
        handle = os.open(path, flags)
        with os.fdopen(handle, "rb") as stream:
          data = stream.read(size + 1)
      except OSError:
        data = b""
      if len(data) != size:  # changed or gone while being read: still, it was there
        data = b""
    sent.append([relative, len(data)])
    blobs.append(data)
  header["files"] = sent
  out = os.fdopen(fd, "wb", closefd=True)
  out.write(json.dumps(header).encode() + b"\n")
  for data in blobs:
    out.write(data)
  out.flush()
  out.close()


TAMPERED = ("the messages of the process that ran the submission were tampered with ({}): "
            "what it reported was discarded; graded on the data it left")


def read_messages(data: bytes, worlds: int) -> dict[str, Any]:
  """The child's messages: exactly ``extracted``, then ``defined``, then one ``world`` per
  world (index 0, 1, ... in order), then ``finished``, one JSON line each (``error`` lines
  aside). The child holds the pipe while student code runs, so anything else (a line that is
  no such message, a second or early one, as a forger writing on the pipe found through /proc
  makes) means tampering: the worlds' reports are then dropped, and each world is judged on
  its data alone (which, without a report, earns nothing)."""
  header: dict[str, Any] = {"extracted": None, "defined": None, "worlds": [],
                            "finished": False, "errors": []}
  lines = data.split(b"\n")
  if lines[-1]:  # an unfinished last line (the child was stopped while writing): not a message
    header["errors"].append("the last message was cut short")
  stage = 0  # 0: extracted next, 1: defined next, 2: worlds, 3: finished
  problem = None
  for line in lines[:-1]:
    try:
      message = json.loads(line)
    except (ValueError, RecursionError):
      problem = "a line that is not JSON"
      break
    if not (type(message) is dict and len(message) == 1):
      problem = "a line that is not one of its messages"
      break
    key, value = next(iter(message.items()))
    if key == "error":
      header["errors"].append(value if type(value) is str else "an error")
      continue
    expected = {0: ("extracted",), 1: ("defined",), 2: ("world", "finished"),
                3: ()}[stage]
    if key not in expected:
      problem = f"an unexpected `{key}` message"
      break
    if key == "extracted":
      header["extracted"], stage = value, 1
    elif key == "defined":
      header["defined"], stage = value, 2
    elif key == "world":
      if not (isinstance(value, dict) and value.get("index") == len(header["worlds"])
              and len(header["worlds"]) < worlds):
        problem = "a world's report out of order"
        break
      header["worlds"].append(value)
    else:
      header["finished"], stage = value is True, 3
  if problem is not None:
    header["worlds"] = []
    header["errors"].append(TAMPERED.format(problem))
  return header


def supervise(request: dict, result_fd: int) -> dict:
  """Steps 2 to 5; returns the report's JSON line (without the files)."""
  workdir = Path(request["workdir"])
  if request["input"]:  # without a sandbox the work folder already holds the data
    copy_input(Path(request["input"]), workdir)
  wall_stop = STARTED + float(request["wall_limit"]) - RESERVE
  cpu_cap = float(request["cpu_cap"])
  import warnings

  from adkcourse.grade.checks import get_exercise

  with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    exercise = get_exercise(request["exercise"])  # trusted code, imported before the fork
  become_subreaper()
  read_fd, write_fd = os.pipe()
  sys.stdout.flush()
  sys.stderr.flush()
  pid = os.fork()
  if pid == 0:
    try:
      os.close(read_fd)
      os.close(result_fd)
      child(request, exercise, functools.partial(_send, write_fd))
    except BaseException as error:  # noqa: BLE001
      try:
        _send(write_fd, {"error": f"{type(error).__name__}: {_safe_str(error)}"})
      except BaseException:  # noqa: BLE001
        pass
    finally:
      os._exit(70)
  os.close(write_fd)
  undumpable()
  messages = bytearray()
  status: Optional[int] = None
  stopped: Optional[str] = None
  open_pipe = True
  next_look = 0.0
  while status is None:
    now = time.monotonic()
    if now >= wall_stop:
      stopped = "wall"
    elif now >= next_look:
      next_look = now + 0.1
      if own_cpu(pid) > cpu_cap:
        stopped = "cpu"
    if stopped:
      os.kill(pid, signal.SIGKILL)
      _, status = os.waitpid(pid, 0)
      break
    if open_pipe:
      ready, _, _ = select.select([read_fd], [], [], min(wall_stop - now, 0.02))
      if ready:
        chunk = os.read(read_fd, 65536)
        if not chunk:
          open_pipe = False
        elif len(messages) < MESSAGES_CAP:
          messages += chunk[: MESSAGES_CAP - len(messages)]
    else:
      time.sleep(0.02)
    done, waited = os.waitpid(pid, os.WNOHANG)
    if done:
      status = waited
  seconds = round(time.monotonic() - STARTED, 2)
  killed = kill_descendants()
  try:  # whatever is still in the pipe
    os.set_blocking(read_fd, False)
    while len(messages) < MESSAGES_CAP:
      chunk = os.read(read_fd, 65536)
      if not chunk:
        break
      messages += chunk
  except (BlockingIOError, OSError):
    pass
  os.close(read_fd)
  header = read_messages(bytes(messages), len(request["worlds"]))
  code = os.waitstatus_to_exitcode(status)
  header["child"] = {"exit": code if code >= 0 else None,
                     "signal": signal.Signals(-code).name if code < 0 and -code in
                     signal.Signals._value2member_map_ else None,
                     "timed_out": stopped is not None, "stopped": stopped,
                     "seconds": seconds, "killed_after": killed}
  header["seal_errors"] = seal_worlds(exercise, request)
  return header


def seal_worlds(exercise: Any, request: dict) -> dict[str, str]:
  """``exercise.seal`` on every world, now that nothing the submission started is running
  (this process imported the exercise before the fork: the child's changes to it are not
  here). What failed, by world index: the judge does not observe such a world (what the run
  left where the record goes, a forged one, must not be read as the record)."""
  if getattr(exercise, "seal", None) is None:
    return {}
  workdir = Path(request["workdir"])
  elsewhere_root = Path("/tmp") if request["input"] else workdir  # as ``child`` sets it
  errors: dict[str, str] = {}
  for world in request["worlds"]:
    index = int(world["index"])
    try:
      exercise.seal(workdir / f"world-{index}", elsewhere_root / f"elsewhere-{index}",
                    world["inputs"])
    except BaseException as error:  # noqa: BLE001 - RecursionError, MemoryError: anything
      errors[str(index)] = f"{type(error).__name__}: {_safe_str(error)}"[:500]
  return errors


def own_cpu(pid: int) -> float:
  """CPU seconds of everything below this process (the submission's processes, live ones and
  those already reaped: this process is their subreaper). ``pid``: the child, for the record."""
  ticks = os.sysconf("SC_CLK_TCK")
  reaped = resource.getrusage(resource.RUSAGE_CHILDREN)  # ended below, already waited for
  total = reaped.ru_utime + reaped.ru_stime
  me = os.getpid()
  for found in descendants(me):
    try:
      fields = Path(f"/proc/{found}/stat").read_text().rpartition(")")[2].split()
      total += sum(int(fields[i]) for i in (11, 12, 13, 14)) / ticks
    except (OSError, ValueError, IndexError):
      continue
  return total


def main(argv: Optional[list[str]] = None) -> int:
  argv = sys.argv[1:] if argv is None else argv
  request = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
  if request.get("lock_down", True):
    from adkcourse.grade.seccomp import LockDownUnavailable, lock_down

    try:
      lock_down()
    except LockDownUnavailable as error:
      if request.get("lock_down") == "required":
        raise
      print(f"(grader) no seccomp lock-down here: {error}", file=sys.stderr)
  result_fd = int(os.environ.pop("GRADE_RESULT_FD"))
  os.set_inheritable(result_fd, False)
  for variable in ("HOME", "TMPDIR", "ADKCOURSE_SCRATCH", "ADKCOURSE_HOME"):
    if os.environ.get(variable):
      Path(os.environ[variable]).mkdir(parents=True, exist_ok=True)
  _set_limits(request)
  header = supervise(request, result_fd)
  if request["input"]:  # sandboxed: what the run left in the sandbox's own /tmp is observed too
    keep_leftovers(Path("/tmp"), Path(request["workdir"]) / "elsewhere-sandbox",
                   int(request["files_cap"]) // 4)
  files, notes = collect_files(Path(request["workdir"]), int(request["files_cap"]))
  header["file_notes"] = notes
  send_report(result_fd, header, files)
  return 0


if __name__ == "__main__":
  sys.exit(main())
