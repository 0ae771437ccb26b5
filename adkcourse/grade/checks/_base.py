"""The small framework every exercise's checks use.

A check is a plain function ``trial -> (earned_fraction, feedback)`` decorated with
``@check(points)``: ``earned_fraction`` is a bool or a number between 0 and 1. A trial is what
an exercise's ``run_trial`` observed while running a submission on fresh data (snapshots
before/after, what the function returned, notes). Checks are pure: they only read the trial,
so they are easy to test and never touch a database themselves.
"""

from __future__ import annotations

import asyncio
import inspect
import signal
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterator, Optional

from ..report import CheckResult, Report

Verdict = tuple[Any, str]


@dataclass
class Trial:
  """What running a submission produced. Exercises subclass it with their observations.

  ``acted`` is False when the submission changed nothing at all: checks declared with
  ``needs_action=True`` ("everything else is untouched") then earn nothing, so that an empty
  stub does not collect points for leaving data alone.
  """

  notes: list[str] = field(default_factory=list)
  acted: bool = True


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
    return CheckResult(self.name, self.points, round(self.points * fraction, 2), feedback)


def check(points: float, *, needs_action: bool = False) -> Callable[[Callable], Check]:
  """Decorator: turn ``def name(trial) -> (fraction, feedback)`` into a ``Check``."""

  def wrap(judge: Callable[[Any], Verdict]) -> Check:
    return Check(judge.__name__, points, judge, needs_action)

  return wrap


@dataclass(frozen=True)
class Exercise:
  """An exercise as the grader knows it: the function to find, how to try it, its checks."""

  name: str
  lesson: str
  signature: str
  is_async: bool
  run_trial: Callable[[Callable, Path, Optional[float]], Awaitable[Trial]]
  checks: tuple[Check, ...]

  @property
  def max_score(self) -> float:
    return round(sum(c.points for c in self.checks), 2)

  def judge(self, trial: Trial) -> Report:
    return Report(self.name, [c.evaluate(trial) for c in self.checks], list(trial.notes))

  def zero_report(self, reason: str) -> Report:
    """The report of a submission that could not run at all: every check at 0."""
    results = [CheckResult(c.name, c.points, 0.0, "not run") for c in self.checks]
    return Report(self.name, results, [reason])


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


async def call_submission(trial: Trial, fn: Callable, *args: Any, is_async: Optional[bool],
                          time_limit: Optional[float] = None, label: Optional[str] = None,
                          **kwargs: Any) -> Any:
  """Call the student's function, never letting it crash the checks.

  Whatever goes wrong (an exception, ``sys.exit``, an endless loop, a missing ``async``)
  becomes a note on the trial; the checks then judge whatever the function managed to do.
  ``is_async`` is the contract (None: not checked here); ``label`` names the function in
  notes when ``fn`` is a scenario wrapped around the student's code. Returns the function's
  result, or None.
  """
  name = label or getattr(fn, "__name__", "the function")
  if is_async and not inspect.iscoroutinefunction(fn):
    trial.notes.append(f"`{name}` is defined with `def`: the contract is `async def` "
                       "(service methods are coroutines and must be awaited)")
  elif is_async is False and inspect.iscoroutinefunction(fn):
    trial.notes.append(f"`{name}` is defined with `async def`: the contract is a plain `def`")
  timed_out = False
  try:
    with _alarm(None if time_limit is None else time_limit + 1.0):
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
      trial.notes.append(f"`{name}` did not finish within {time_limit:.3g} s and was stopped")
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
    message = f": {error}" if str(error) else ""
    trial.notes.append(f"`{name}` raised {type(error).__name__}{message}")
  return None
