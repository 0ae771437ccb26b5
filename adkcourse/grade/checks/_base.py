"""The small framework every exercise's checks use, and the protocol that keeps student code
from judging itself.

An exercise runs in three phases, so that a grader can run the submission's phase in a sandbox
and everything that decides the grade outside it:

1. ``prepare(workdir, resources) -> setup`` (trusted): builds fresh input data (SQLite files in
   ``workdir``, PostgreSQL databases through ``resources.postgres_url``) and returns a
   JSON-able ``setup`` dict: paths, URLs, ids, app names, and whatever ``observe`` needs to
   compare against later (``observe`` gets the trusted copy, never the one ``act`` saw).
2. ``act(fn, workdir, setup, time_limit) -> acted`` (untrusted): the only phase that runs in the
   process holding the student's code. It builds the service objects from ``setup``, calls
   ``fn`` through ``call_submission`` and returns plain JSON observations (notes, what ``fn``
   raised), never student objects.
3. ``observe(workdir, setup, acted) -> Trial`` (trusted): treats ``acted`` as untrusted JSON of
   any shape (``untrusted_notes`` and ``untrusted_raised`` validate it), reads the databases and
   files itself with fresh connections, and builds the ``Trial``.

Then ``Exercise.judge(trial)`` (pure) turns the trial into a ``Report``. A check is a plain
function ``trial -> (earned_fraction, feedback)`` decorated with ``@check(points)``:
``earned_fraction`` is a bool or a number between 0 and 1. Checks only read the trial, so they
are easy to test and never touch a database themselves.
"""

from __future__ import annotations

import asyncio
import inspect
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterator, Optional

from ..report import CheckResult, Report

Verdict = tuple[Any, str]
Setup = dict[str, Any]

MAX_NOTES = 20  # notes taken from ``acted``; a submission may not flood its report
MAX_NOTE_CHARS = 2_000


@dataclass(frozen=True)
class Resources:
  """What the grader lends ``prepare`` besides a folder.

  ``postgres_url`` is the admin URL (``postgresql+asyncpg://...``) of a PostgreSQL server
  private to this trial (the course's own server in the students' self-check), or None.
  ``seed`` makes the generated data reproducible; None draws a fresh one per run, so that no
  submission can be written against fixed names.
  """

  postgres_url: Optional[str] = None
  seed: Optional[int] = None


@dataclass
class Trial:
  """What running a submission produced. Exercises subclass it with their observations.

  ``acted`` is False when the submission changed nothing at all: checks declared with
  ``needs_action=True`` ("everything else is untouched") then earn nothing, so that an empty
  stub does not collect points for leaving data alone, and the other checks' feedback states
  the requirement rather than how to meet it (for a stub, that would be the solution). ``raised`` lists what the function
  raised, one ``{"type", "value_error", "message"}`` dict per failed call (``call_submission``
  fills it in ``act``; it reaches ``observe`` as JSON).
  """

  notes: list[str] = field(default_factory=list)
  acted: bool = True
  raised: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class Check:
  """One gradable property: a name, its points, and the function that judges a trial."""

  name: str
  points: float
  judge: Callable[[Any], Verdict]
  needs_action: bool = False

  @property
  def description(self) -> str:
    return " ".join((self.judge.__doc__ or self.name).split())

  def evaluate(self, trial: Trial) -> CheckResult:
    if self.needs_action and not trial.acted:
      return CheckResult(self.name, self.points, 0.0,
                         "not credited: the function changed nothing, so leaving the rest "
                         "untouched proves nothing yet")
    try:
      fraction, feedback = self.judge(trial)
    except Exception as error:  # noqa: BLE001 - a check must never crash the grader
      return CheckResult(self.name, self.points, 0.0,
                         f"could not be checked ({type(error).__name__}: {error})")
    fraction = min(1.0, max(0.0, float(fraction)))
    if not trial.acted and fraction < 1:
      # Nothing changed (the stub, or code that fails before its first write): a check's advice
      # on how to fix a mistake would be the solution, shown before any attempt. Say what is
      # required instead; the notes say what went wrong.
      feedback = "not met yet: " + self.description.replace("`", "")
    return CheckResult(self.name, self.points, round(self.points * fraction, 2), feedback)


def check(points: float, *, needs_action: bool = False) -> Callable[[Callable], Check]:
  """Decorator: turn ``def name(trial) -> (fraction, feedback)`` into a ``Check``."""

  def wrap(judge: Callable[[Any], Verdict]) -> Check:
    return Check(judge.__name__, points, judge, needs_action)

  return wrap


Prepare = Callable[[Path, Resources], Awaitable[Setup]]
Act = Callable[[Callable, Path, Setup, Optional[float]], Awaitable[dict[str, Any]]]
Observe = Callable[[Path, Setup, Any], Awaitable[Trial]]
Cleanup = Callable[[Setup, Resources], Awaitable[None]]


@dataclass(frozen=True)
class Exercise:
  """An exercise as the grader knows it: the function to find, its three phases, its checks.

  ``needs_postgres``: ``prepare`` needs ``Resources.postgres_url``. ``cleanup`` (optional,
  trusted) releases what ``prepare`` made outside ``workdir`` (PostgreSQL databases); call it
  after ``observe`` whatever happened. A grader that throws the whole server away may skip it.
  """

  name: str
  lesson: str
  signature: str
  is_async: bool
  checks: tuple[Check, ...]
  prepare: Prepare
  act: Act
  observe: Observe
  needs_postgres: bool = False
  cleanup: Optional[Cleanup] = None

  @property
  def max_score(self) -> float:
    return round(sum(c.points for c in self.checks), 2)

  def judge(self, trial: Trial) -> Report:
    return Report(self.name, [c.evaluate(trial) for c in self.checks], list(trial.notes))

  def zero_report(self, reason: str) -> Report:
    """The report of a submission that could not run at all: every check at 0."""
    results = [CheckResult(c.name, c.points, 0.0, "not run") for c in self.checks]
    return Report(self.name, results, [reason])


def untrusted_notes(acted: Any, key: str = "notes") -> list[str]:
  """The notes in ``acted[key]``, if it is a list of plain strings; a note saying so if not.

  ``acted`` comes from the process that ran student code: it may hold anything, or nothing.
  """
  if not isinstance(acted, dict):
    return [f"the run reported nothing usable ({type(acted).__name__}); graded on the data"]
  notes = acted.get(key, [])
  if not isinstance(notes, list) or not all(type(n) is str for n in notes):
    return ["the run's notes were malformed; graded on the data"]
  kept = [n if len(n) <= MAX_NOTE_CHARS else n[:MAX_NOTE_CHARS] + "..."
          for n in notes[:MAX_NOTES]]
  if len(notes) > MAX_NOTES:
    kept.append(f"... and {len(notes) - MAX_NOTES} more notes")
  return kept


def untrusted_raised(value: Any) -> Optional[dict[str, Any]]:
  """One ``{"type", "value_error", "message"}`` record from ``acted``, exactly typed, or None."""
  if not isinstance(value, dict):
    return None
  kind, is_value_error, message = (value.get("type"), value.get("value_error"),
                                   value.get("message"))
  if type(kind) is not str or type(is_value_error) is not bool or type(message) is not str:
    return None
  return {"type": kind[:200], "value_error": is_value_error, "message": message[:MAX_NOTE_CHARS]}


class _SubmissionExit(Exception):
  """``sys.exit`` called inside a submission's coroutine, turned into an ordinary exception
  (asyncio lets a SystemExit raised in a task escape the event loop)."""


async def _guarded(awaitable: Any) -> Any:
  try:
    return await awaitable
  except SystemExit as error:
    raise _SubmissionExit(error.code) from None


class SubmissionTimeout(BaseException):
  """Raised into a submission that overran its time (a BaseException: `except Exception`
  in student code must not swallow it)."""


@contextmanager
def _alarm(seconds: Optional[float]) -> Iterator[None]:
  """Interrupt a busy loop after ``seconds`` (main thread on POSIX only; else a no-op)."""
  usable = (seconds is not None and hasattr(signal, "setitimer")
            and threading.current_thread() is threading.main_thread())
  if not usable:
    yield
    return

  def _raise(signum, frame):  # noqa: ARG001
    raise SubmissionTimeout()

  previous = signal.signal(signal.SIGALRM, _raise)
  signal.setitimer(signal.ITIMER_REAL, seconds)
  try:
    yield
  finally:
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)


def alarm_grace(limit: float) -> float:
  """How long after ``limit`` the alarm stops blocking (synchronous) code: an async call is
  stopped at ``limit`` by ``asyncio.wait_for``, the alarm is the backstop for code that never
  yields to the event loop."""
  return min(1.0, limit / 2)


class TimeBudget:
  """Time limits for the student's calls in one ``act`` phase: ``calls`` calls, ``total`` seconds.

  Why not ``total / calls`` each: the first call of a scenario also pays for cold starts (the
  first run of a Runner, lazy imports), which on a busy machine (a class graded two at a time,
  CI) can take longer than an even share, and a right answer would be stopped. Here a call may
  use what is left, except half an even share kept for each call still to come. Only the time
  spent inside the student's calls counts (``charge``), never the grader's own work between
  them, and a call's limit leaves room for the alarm's grace, so that even a blocking call that
  runs to its alarm cannot eat the time kept for the calls after it. ``total=None``: no limit.
  """

  def __init__(self, total: Optional[float], calls: int):
    self.total = total
    self.calls_left = max(1, calls)
    self.reserve = None if total is None else total / self.calls_left / 2
    self.spent = 0.0

  def next(self) -> Optional[float]:
    """The limit for the next call, in seconds (None: no limit)."""
    if self.total is None or self.reserve is None:
      return None
    left = self.total - self.spent - self.reserve * (self.calls_left - 1)
    self.calls_left = max(1, self.calls_left - 1)
    # The largest limit L with L + alarm_grace(L) <= left.
    limit = left - 1.0 if left >= 3.0 else left / 1.5
    return max(limit, 0.05)

  def charge(self, seconds: float) -> None:
    """Count ``seconds`` spent in a call against the budget."""
    self.spent += max(0.0, seconds)


async def call_submission(trial: Trial, fn: Callable, *args: Any, is_async: Optional[bool],
                          time_limit: Optional[float] = None, label: Optional[str] = None,
                          budget: Optional[TimeBudget] = None, **kwargs: Any) -> Any:
  """Call the student's function, never letting it crash the checks.

  Whatever goes wrong (an exception, ``sys.exit``, an endless loop, a missing ``async``)
  becomes a note on the trial; the checks then judge whatever the function managed to do.
  ``is_async`` is the contract (None: not checked here); ``label`` names the function in
  notes when ``fn`` is a scenario wrapped around the student's code. ``budget`` sets
  ``time_limit`` from a ``TimeBudget`` and is charged the time the call took; its timeout note
  names the share of the budget's total, so that the notes of several calls merge.
  Returns the function's result, or None.
  """
  if budget is not None:
    time_limit = budget.next()
  name = label or getattr(fn, "__name__", "the function")
  if is_async and not inspect.iscoroutinefunction(fn):
    trial.notes.append(f"`{name}` is defined with `def`: the contract is `async def` "
                       "(service methods are coroutines and must be awaited)")
  elif is_async is False and inspect.iscoroutinefunction(fn):
    trial.notes.append(f"`{name}` is defined with `async def`: the contract is a plain `def`")
  timed_out = False
  started = time.monotonic()
  try:
    with _alarm(None if time_limit is None else time_limit + alarm_grace(time_limit)):
      result = fn(*args, **kwargs)
      if inspect.isawaitable(result):
        if time_limit is None:
          result = await _guarded(result)
        else:
          try:
            result = await asyncio.wait_for(_guarded(result), time_limit)
          except asyncio.TimeoutError:
            timed_out = True
            raise
    return result
  except (SubmissionTimeout, asyncio.TimeoutError) as error:
    if isinstance(error, SubmissionTimeout) or timed_out:
      limit = (f"its share of the {budget.total:g} s time limit"
               if budget is not None and budget.total is not None else f"{time_limit:.3g} s")
      trial.notes.append(f"`{name}` did not finish within {limit} and was stopped")
    else:
      trial.notes.append(f"`{name}` raised TimeoutError: {error}")
  except (SystemExit, _SubmissionExit) as error:
    code = error.code if isinstance(error, SystemExit) else error.args[0]
    trial.notes.append(f"`{name}` called sys.exit({code!r}); graded on what it had done before")
  except NotImplementedError:
    trial.notes.append(f"`{name}` raised NotImplementedError: the stub is not replaced yet")
  except KeyboardInterrupt:
    raise
  except BaseException as error:  # noqa: BLE001 - anything a student may raise
    text = _safe_str(error)
    message = f": {text}" if text else ""
    trial.notes.append(f"`{name}` raised {_safe_name(error)}{message}")
    raised = getattr(trial, "raised", None)
    if isinstance(raised, list):
      raised.append({"type": _safe_name(error), "value_error": isinstance(error, ValueError),
                     "message": text})
  finally:
    if budget is not None:
      budget.charge(time.monotonic() - started)
  return None


def _safe_name(error: BaseException) -> str:
  return str(type(error).__name__)


def _safe_str(error: BaseException) -> str:
  """``str(error)`` as a plain string, even when the student's exception breaks ``__str__``."""
  try:
    text = str(error)
  except Exception:  # noqa: BLE001
    return "(its message could not be read)"
  return str.__str__(text)  # a plain str, even from a str subclass
