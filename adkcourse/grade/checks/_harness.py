"""Running a function on one world: limits that measure the code, and the outcome at return.

This is the only part of grading that calls student code, and it runs the reference the same
way, so that both are observed under identical conditions. An exercise's ``act`` gets an
``ActWorld`` and calls the function through ``ActWorld.call``; when the function has returned
(while whatever the world keeps open, a reader's connection, is still open) ``act`` calls
``ActWorld.snapshot()``, which copies the world's folder byte for byte: the judge reads that
copy, as it was at return time, not the folder after the process has ended and closed things.

Time is CPU time. A machine under load runs the same code more slowly, but not with more CPU
seconds, so a limit in CPU seconds stops an endless loop on any machine and never a right
answer that waited for the CPU. Each call gets ``TimeBudget.next()``: its CPU limit (the
process's CPU time, every thread included) and a wall-clock limit several times larger, which
only a call blocked without using the CPU (a sleep, a lock nobody releases) ever reaches; a
watcher thread enforces both (``_Stopper``). What a call raised, whether it was stopped and
what it returned become its outcome (``CallOutcome``): plain JSON, the only thing a world's run
reports besides its files.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import os
import resource
import signal
import stat
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

from ..tree import remove_tree, walk
from ..wording import MESSAGES, english

WALL_FACTOR = 6.0  # a call's wall-clock limit: this many times its CPU limit...
WALL_SLACK = 5.0  # ... plus this many seconds (a blocked call, never a slow machine)
ESCALATE = 0.25  # seconds between attempts to stop a call that ignores the first one
SNAPSHOT_CAP = 64 * 1024 * 1024  # bytes of a world's folder copied at return time
MAX_MESSAGE = 2_000


class SubmissionTimeout(BaseException):
  """Raised into a call that reached its limit (a BaseException: ``except Exception`` in the
  code being graded must not swallow it)."""


class _SubmissionExit(Exception):
  """``sys.exit`` inside a coroutine, turned into an ordinary exception (asyncio lets a
  SystemExit raised in a task escape the event loop)."""


@dataclass(frozen=True)
class Limits:
  cpu: float  # CPU seconds
  wall: float  # seconds of wall-clock time


class TimeBudget:
  """CPU-time limits for the calls of one grading run: ``calls`` calls, ``total`` CPU seconds.

  Why not ``total / calls`` each: the first call of a run also pays for cold starts (a Runner's
  first turn, lazy imports), and a right answer must not be stopped for that. A call may use
  what is left, except half an even share kept for each call still to come; only CPU time
  spent inside the calls counts (``charge``). ``total=None``: no limit at all.
  """

  def __init__(self, total: Optional[float], calls: int):
    self.total = total
    self.calls_left = max(1, calls)
    self.reserve = None if total is None else total / self.calls_left / 2
    self.spent = 0.0

  def next(self) -> Optional[Limits]:
    """The limits of the next call (None: no limit)."""
    if self.total is None or self.reserve is None:
      return None
    left = self.total - self.spent - self.reserve * (self.calls_left - 1)
    self.calls_left = max(1, self.calls_left - 1)
    cpu = max(left, 0.05)
    return Limits(cpu=cpu, wall=cpu * WALL_FACTOR + WALL_SLACK)

  def charge(self, cpu_seconds: float) -> None:
    self.spent += max(0.0, cpu_seconds)


@dataclass
class CallOutcome:
  """How one call ended, as plain JSON (``to_dict``): what crosses from a sandbox."""

  label: str
  raised: Optional[str] = None  # the exception's class name, None if it returned
  value_error: bool = False  # was it a ValueError (or a subclass)?
  message: str = ""
  stopped: Optional[str] = None  # "cpu" or "wall": stopped at that limit
  exit_code: Any = None  # what sys.exit was called with (``raised`` is "SystemExit")
  returned: Any = None  # ``describe(value)`` of what it returned
  cpu: float = 0.0  # CPU seconds it used
  time_limit: Optional[float] = None  # the run's CPU seconds in all (None: no limit)
  notes: list[str] = field(default_factory=list)

  def to_dict(self) -> dict[str, Any]:
    return {"label": self.label, "raised": self.raised, "value_error": self.value_error,
            "message": self.message, "stopped": self.stopped,
            "exit_code": self.exit_code if isinstance(self.exit_code, (int, str, type(None)))
            else repr(self.exit_code)[:100],
            "returned": self.returned, "cpu": round(self.cpu, 3), "time_limit": self.time_limit,
            "notes": self.notes}


def describe(value: Any, depth: int = 0) -> Any:
  """What a call returned, as JSON that says what it is: plain data as itself (exact types:
  ``True`` is not ``1``, a ``str`` subclass is not a ``str``), anything else by its type."""
  if value is None or type(value) in (bool, int, float, str):
    return value if not isinstance(value, str) else value[:MAX_MESSAGE]
  if depth < 4 and type(value) in (list, tuple):
    return {"type": type(value).__name__, "items": [describe(v, depth + 1) for v in value[:50]]}
  if depth < 4 and type(value) is dict and all(type(k) is str for k in value):
    return {"type": "dict", "items": {k[:200]: describe(v, depth + 1)
                                      for k, v in list(value.items())[:50]}}
  return {"type": f"{type(value).__module__}.{type(value).__qualname__}"[:200]}


def safe_str(error: BaseException) -> str:
  """``str(error)`` as a plain string, even when the exception breaks ``__str__``."""
  try:
    text = str(error)
  except Exception:  # noqa: BLE001
    return "(its message could not be read)"
  return str.__str__(text)[:MAX_MESSAGE]


STOP_SIGNAL = signal.SIGURG if hasattr(signal, "SIGURG") else None  # ignored by default:
# one that arrives late, after the call, does nothing
POLL = 0.02  # seconds between two looks at the call's CPU and wall-clock time


class _Stopper:
  """Stops the running call at its limits.

  A watcher thread looks at the process's CPU time (every thread's) and the wall clock. When
  the call is over a limit it cancels the call's task through the event loop (which also wakes
  a loop that sleeps) and sends ``STOP_SIGNAL`` to the main thread, whose handler raises
  ``SubmissionTimeout`` if the main thread is running code (a busy coroutine, a plain
  function); when the loop only waits, the cancellation does it. Both are repeated every
  ``ESCALATE`` seconds until the call has ended: code that swallows the first attempt meets
  the next one (code that swallows them all is stopped by the sandbox's own limits).
  """

  def __init__(self) -> None:
    self.reason: Optional[str] = None
    self.judge_cpu = 0.0  # CPU seconds the watcher itself used: not the call's
    self.active = True
    self.task: Optional[asyncio.Task] = None
    self.loop: Optional[asyncio.AbstractEventLoop] = None

  def kick(self, main: int) -> None:
    loop, task = self.loop, self.task
    if loop is not None and task is not None and not task.done():
      try:
        loop.call_soon_threadsafe(task.cancel)
      except RuntimeError:  # the loop is closed
        pass
    if STOP_SIGNAL is not None:
      signal.pthread_kill(main, STOP_SIGNAL)

  def on_signal(self, signum, frame) -> None:  # noqa: ARG002 - runs in the main thread
    if not self.active or self.reason is None:
      return
    loop, task = self.loop, self.task
    if loop is None or task is None or asyncio.current_task(loop) is not None:
      raise SubmissionTimeout(self.reason)


@contextmanager
def _limited(limits: Optional[Limits], stopper: _Stopper) -> Iterator[None]:
  """Watch one call against its limits (main thread on POSIX; elsewhere: no limit)."""
  usable = (limits is not None and STOP_SIGNAL is not None and hasattr(signal, "pthread_kill")
            and threading.current_thread() is threading.main_thread())
  if not usable:
    yield
    return
  assert limits is not None
  previous = signal.signal(STOP_SIGNAL, stopper.on_signal)
  done = threading.Event()
  main = threading.main_thread().ident
  cpu_start, wall_start = time.process_time(), time.monotonic()

  def watch() -> None:
    # The watcher's own CPU (its polls, and a garbage collection its allocations happen to
    # trigger) is the judge's, not the call's: it is taken out of what the call is charged.
    own_start = time.thread_time()
    next_kick = 0.0
    while not done.wait(POLL):
      stopper.judge_cpu = time.thread_time() - own_start
      if stopper.reason is None:
        if time.process_time() - cpu_start - stopper.judge_cpu > limits.cpu:
          stopper.reason = "cpu"
        elif time.monotonic() - wall_start > limits.wall:
          stopper.reason = "wall"
        else:
          continue
      now = time.monotonic()
      if now >= next_kick and not done.is_set():
        next_kick = now + ESCALATE
        stopper.kick(main)  # type: ignore[arg-type]
    stopper.judge_cpu = time.thread_time() - own_start

  watcher = threading.Thread(target=watch, name="grader-limits", daemon=True)
  watcher.start()
  try:
    yield
  finally:
    stopper.active = False
    done.set()
    watcher.join()
    signal.signal(STOP_SIGNAL, previous)


class _StartedTasks:
  """The tasks a call starts, from its own task or from one it started (never another
  coroutine's that runs meanwhile, such as the Runner's), through the loop's task factory while
  the call runs. Why: a contract's effects are done when the call returns; work left running
  ("fire and forget") would happen, or not, at a time no judge can fix, so a grade would
  depend on how busy the machine is. ``stop_leftovers`` cancels what is still pending at the
  return, so that such work never happens, on every machine alike."""

  def __init__(self, loop: asyncio.AbstractEventLoop, root: asyncio.Task) -> None:
    self.loop = loop
    self.owned: set[asyncio.Task] = {root}
    self.started: list[asyncio.Task] = []
    self.previous = loop.get_task_factory()

  def factory(self, loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Future:
    task = (self.previous(loop, coro, **kwargs) if self.previous is not None
            else asyncio.Task(coro, loop=loop, **kwargs))
    if asyncio.current_task(loop) in self.owned and isinstance(task, asyncio.Task):
      self.owned.add(task)
      self.started.append(task)
    return task

  def __enter__(self) -> "_StartedTasks":
    self.loop.set_task_factory(self.factory)
    return self

  def __exit__(self, *_: Any) -> None:
    self.loop.set_task_factory(self.previous)

  def stop_leftovers(self) -> int:
    """Cancel the started tasks still pending; how many there were."""
    pending = [task for task in self.started if not task.done()]
    for task in pending:
      task.cancel()
    return len(pending)


LEFT_RUNNING = MESSAGES["left_running_it"]["en"].replace("it returned", "{who} returned", 1)
"""``LEFT_RUNNING.format(who=..., count=...)``: ``who`` is ``it`` or ``the callback``, the two
rows ``left_running_it`` and ``left_running_callback`` of ``wording`` (translated from there)."""


async def _guarded(awaitable: Any) -> Any:
  try:
    return await awaitable
  except SystemExit as error:
    raise _SubmissionExit(error.code) from None


class ContractError(TypeError):
  """The call broke the contract's ``async def`` or plain ``def``: what the caller the contract
  describes would meet (``await`` on a plain value, or a coroutine it never awaits)."""


def _contract_error(value: Any, name: str, is_async: Optional[bool]) -> Optional[str]:
  """Why what ``name`` returned breaks the contract (None: it keeps it). Judged on the value,
  not the definition: a plain ``def`` that returns a coroutine can be awaited, as it must."""
  if is_async and not inspect.isawaitable(value):
    return english("contract_not_awaitable", kind=type(value).__name__, name=name)
  if is_async is False and inspect.isawaitable(value):
    return english("contract_coroutine")
  return None


async def call_limited(fn: Callable, *args: Any, label: str, is_async: Optional[bool] = None,
                       budget: Optional[TimeBudget] = None, **kwargs: Any
                       ) -> tuple[Any, CallOutcome]:
  """Call ``fn`` (awaiting what it returns), never letting it crash the caller: (its result
  or None, its ``CallOutcome``). ``is_async`` is the contract (None: not checked);
  ``budget`` sets the limits and is charged the CPU time the call used."""
  outcome = CallOutcome(label=label, time_limit=budget.total if budget is not None else None)
  limits = budget.next() if budget is not None else None
  stopper = _Stopper()
  started, children_started = time.process_time(), _children_cpu()
  wall_started = time.monotonic()
  result = None
  try:
    with _limited(limits, stopper):
      value = fn(*args, **kwargs)
      broken = _contract_error(value, getattr(fn, "__name__", None) or label, is_async)
      if broken is not None:
        if inspect.iscoroutine(value):
          value.close()  # what its caller never awaits never runs
        raise ContractError(broken)
      if inspect.isawaitable(value):
        stopper.loop = asyncio.get_running_loop()
        stopper.task = asyncio.ensure_future(_guarded(value))
        its_tasks = _StartedTasks(stopper.loop, stopper.task)
        try:
          with its_tasks:
            value = await stopper.task
        finally:
          left = its_tasks.stop_leftovers()
          if left:
            outcome.notes.append(english("left_running_it", count=left))
      result = value
    outcome.returned = describe(result)
  except (SubmissionTimeout, asyncio.CancelledError) as error:
    if stopper.reason is None and isinstance(error, asyncio.CancelledError):
      outcome.raised, outcome.message = "CancelledError", safe_str(error)
    else:
      outcome.stopped = stopper.reason or "cpu"
  except (SystemExit, _SubmissionExit) as error:
    outcome.raised = "SystemExit"
    outcome.exit_code = error.code if isinstance(error, SystemExit) else error.args[0]
  except KeyboardInterrupt:
    raise
  except BaseException as error:  # noqa: BLE001 - anything the code may raise
    outcome.raised = "TypeError" if isinstance(error, ContractError) else \
        str(type(error).__name__)[:200]
    outcome.value_error = isinstance(error, ValueError)
    outcome.message = safe_str(error)
  finally:
    outcome.cpu = (max(0.0, time.process_time() - started - stopper.judge_cpu)
                   + _children_cpu() - children_started)
    if budget is not None:
      budget.charge(outcome.cpu)
  if limits is not None and outcome.stopped is None:
    # A call past its limit that was not stopped (it ignored the stop signal, or spent the
    # time in child processes it waited for, which the watcher cannot see) is judged as
    # stopped there, whatever it did next: the limit is the call's, not the watcher's.
    over = ("cpu" if outcome.cpu > limits.cpu
            else "wall" if time.monotonic() - wall_started > limits.wall else None)
    if over is not None:
      result = None
      outcome.stopped, outcome.returned, outcome.raised, outcome.message = over, None, None, ""
      outcome.value_error, outcome.exit_code = False, None
  return result, outcome


def _children_cpu() -> float:
  """CPU seconds of this process's child processes that have ended and been waited for."""
  usage = resource.getrusage(resource.RUSAGE_CHILDREN)
  return usage.ru_utime + usage.ru_stime


def outcome_note(outcome: dict[str, Any], share: Optional[float] = None) -> Optional[str]:
  """The one line a student reads about a call that did not simply return."""
  name = outcome.get("label") or "the function"
  total = outcome.get("time_limit")
  limit = (english("limit_total", total=f"{total:g}") if isinstance(total, (int, float))
           else english("limit_plain"))
  if outcome.get("stopped") == "cpu":
    limit = english("limit_share", share=f"{share:.3g}") if share else limit
    return english("stopped_cpu", name=name, limit=limit)
  if outcome.get("stopped") == "wall":
    return english("stopped_wall", name=name, limit=limit)
  raised = outcome.get("raised")
  if raised == "SystemExit":
    return english("sys_exit", name=name, code=repr(outcome.get("exit_code")))
  if raised == "NotImplementedError":
    return english("stub", name=name)
  if raised:  # the message's first line only: a driver's error goes on with SQL and values
    message = (outcome.get("message") or "").strip().splitlines()[:1]
    message = message[0][:300] if message else ""
    return (english("raised_message", name=name, raised=raised, message=message) if message
            else english("raised", name=name, raised=raised))
  return None


# -- the world as the acting code sees it ---------------------------------------------------

@contextmanager
def quiet_adk() -> Iterator[None]:
  """ADK's own log muted while a submission runs (it logs the traceback of every tool or
  callback that raises): the call's outcome note already says what was raised."""
  adk_logger = logging.getLogger("google_adk")
  level = adk_logger.level
  adk_logger.setLevel(logging.CRITICAL)
  try:
    yield
  finally:
    adk_logger.setLevel(level)


@contextmanager
def elsewhere(folder: Path) -> Iterator[None]:
  """During a call, the temporary folder and the home folder are ``folder/tmp`` and
  ``folder/home``: in the work folder, where the judge looks for files left behind (a "safety"
  copy of data to be erased is one), for the reference and the submission alike."""
  import tempfile

  tmp, home = folder / "tmp", folder / "home"
  tmp.mkdir(parents=True, exist_ok=True)
  home.mkdir(parents=True, exist_ok=True)
  saved = {name: os.environ.get(name) for name in ("TMPDIR", "TEMP", "TMP", "HOME")}
  saved_tempdir = tempfile.tempdir
  os.environ.update(TMPDIR=str(tmp), TEMP=str(tmp), TMP=str(tmp), HOME=str(home))
  tempfile.tempdir = str(tmp)
  try:
    yield
  finally:
    tempfile.tempdir = saved_tempdir
    for name, value in saved.items():
      if value is None:
        os.environ.pop(name, None)
      else:
        os.environ[name] = value

def snapshot_folder(folder: Path, into: Path, cap: int = SNAPSHOT_CAP,
                    only: Optional[tuple[str, ...]] = None) -> list[str]:
  """Copy every regular file under ``folder`` (under its top-level names in ``only``, when
  given) into ``into`` (same relative paths, links and devices left out); notes on what was
  left out. Read while the world's other connections are still open: what SQLite has not yet
  folded back into the file is in the copy too."""
  notes: list[str] = []
  total = 0
  if into.exists() or into.is_symlink():
    remove_tree(into)  # what is there, at any depth (3.11's rmtree recurses)
  into.mkdir(parents=True)

  def unlisted(error: OSError) -> None:
    where = Path(error.filename or folder)
    notes.append(english("not_listed", path=where.relative_to(folder) if where != folder
                         else ".", error=error.strerror))

  for root, dirs, files in walk(folder, onerror=unlisted):
    if only is not None and Path(root) == folder:
      dirs[:] = [name for name in dirs if name in only]
      files = [name for name in files if name in only]
    dirs.sort()
    for name in sorted(files):
      source = Path(root) / name
      relative = source.relative_to(folder)
      try:
        info = os.lstat(source)
        if not stat.S_ISREG(info.st_mode):
          notes.append(english("not_regular", path=relative))
          continue
        if total + info.st_size > cap:
          notes.append(english("beyond_cap", path=relative, cap=f"{cap:,}"))
          continue
        target = into / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(source, "rb") as stream:
          data = stream.read(cap - total + 1)
        target.write_bytes(data)
        total += len(data)
      except OSError as error:
        notes.append(english("not_read", path=relative, error=error.strerror))
  return notes


@dataclass
class ActWorld:
  """One world as ``act`` sees it: its folder (this copy's data), what ``build`` handed over
  (``inputs``), the calls made so far and the snapshot at return time."""

  index: int
  folder: Path
  inputs: dict[str, Any]
  snapshot_dir: Path
  budget: Optional[TimeBudget] = None
  is_async: Optional[bool] = None
  channels: dict[str, Any] = field(default_factory=dict)
  outcomes: list[dict[str, Any]] = field(default_factory=list)
  snapshot_notes: list[str] = field(default_factory=list)
  snapshotted: bool = False
  # where each call's temporary and home folders go (None: beside the world's folder). A
  # sandbox puts them in its own /tmp, capped apart from the work folder (a call filling its
  # home must not leave the next world without room), and keeps what they hold for the judge
  elsewhere_root: Optional[Path] = None

  def path(self, relative: str) -> str:
    return str(self.folder / relative)

  @property
  def elsewhere_folder(self) -> Path:
    """Where each call's temporary and home folders are made (``elsewhere``)."""
    root = self.elsewhere_root if self.elsewhere_root is not None else self.folder.parent
    return root / f"elsewhere-{self.index}"

  async def call(self, fn: Callable, *args: Any, label: Optional[str] = None,
                 is_async: Any = "contract", **kwargs: Any) -> Any:
    """Call ``fn`` under the budget; record its outcome; return its result (None if it
    did not return). ``is_async``: the contract to check (default: the exercise's)."""
    name = label or getattr(fn, "__name__", "the function")
    contract = self.is_async if is_async == "contract" else is_async
    with elsewhere(self.elsewhere_folder):
      result, outcome = await call_limited(fn, *args, label=name, is_async=contract,
                                           budget=self.budget, **kwargs)
    self.outcomes.append(outcome.to_dict())
    return result

  def snapshot(self, only: Optional[tuple[str, ...]] = None) -> None:
    """The world's folder as it is now (call it right after the function returned); ``only``:
    just these top-level names (what ``act`` describes instead of copying needs no copy)."""
    self.snapshot_notes += (snapshot_folder(self.folder, self.snapshot_dir) if only is None
                            else snapshot_folder(self.folder, self.snapshot_dir, only=only))
    self.snapshotted = True

  def report(self) -> dict[str, Any]:
    return {"index": self.index, "outcomes": self.outcomes, "snapshot": self.snapshotted,
            "snapshot_notes": self.snapshot_notes[:20]}
