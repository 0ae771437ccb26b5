"""The checks of every exercise, by exercise name, and one call to run them.

Each exercise has a module here (``forget_user``, ``remember_favorite_drink``,
``copy_user_to``) exposing ``EXERCISE``; modules are imported only when asked for, so the
grader's worker loads just what its exercise needs.
"""

from __future__ import annotations

import importlib
import tempfile
from pathlib import Path
from typing import Callable, Optional, Union

from ..report import Report
from ._base import Check, Exercise, Trial, call_submission, check

EXERCISES: tuple[str, ...] = ("remember_favorite_drink", "forget_user", "copy_user_to")


class UnknownExercise(KeyError):
  def __str__(self) -> str:
    return (f"unknown exercise {self.args[0]!r}: choose one of {', '.join(EXERCISES)}")


def get_exercise(name: str) -> Exercise:
  """The exercise called ``name`` (imports its checks module)."""
  if name not in EXERCISES:
    raise UnknownExercise(name)
  return importlib.import_module(f"{__name__}.{name}").EXERCISE


async def run_exercise_checks(name: str, fn: Optional[Callable], *,
                              workdir: Union[str, Path, None] = None,
                              time_limit: Optional[float] = None) -> Report:
  """Run every check of exercise ``name`` against ``fn`` and return the ``Report``.

  Fresh data is built in ``workdir`` (default: an emptied ``checks_NAME`` folder under the
  course's scratch root, never the repository). ``time_limit`` (seconds) stops a function
  that runs too long. Never raises because of the submission: problems become notes.
  """
  exercise = get_exercise(name)
  if fn is None:
    return exercise.zero_report(f"no function named `{name}` was found")
  if not callable(fn):
    return exercise.zero_report(f"`{name}` is a {type(fn).__name__}, not a function")
  if workdir is None:
    from adkcourse.scratch import fresh_scratch

    workdir = fresh_scratch(f"checks_{name}")
  workdir = Path(workdir)
  workdir.mkdir(parents=True, exist_ok=True)
  trial = await exercise.run_trial(fn, workdir, time_limit)
  return exercise.judge(trial)


run_checks = run_exercise_checks

__all__ = ["EXERCISES", "Check", "Exercise", "Report", "Trial", "UnknownExercise",
           "call_submission", "check", "get_exercise", "run_checks", "run_exercise_checks"]
