"""The checks of every exercise, by exercise name, and one call to run them.

Each exercise has a module here (``forget_user``, ``remember_favorite_drink``,
``copy_user_to``) exposing ``EXERCISE``; modules are imported only when asked for, so the
grader's worker loads just what its exercise needs.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any, Callable, Optional, Union

from ..report import Report
from ._base import Check, Exercise, Resources, Trial, call_submission, check

EXERCISES: tuple[str, ...] = ("remember_favorite_drink", "forget_user", "copy_user_to",
                              "grant_runtime_role", "fit_the_budget", "remember_with_consent")


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
                              time_limit: Optional[float] = None,
                              seed: Optional[int] = None,
                              postgres_url: Optional[str] = None) -> Report:
  """Run every check of exercise ``name`` against ``fn`` and return the ``Report``.

  The students' self-check, in one process: ``prepare`` -> ``act`` -> what ``act`` returned,
  through JSON (as it would cross a sandbox's boundary) -> ``observe`` -> ``judge``. Fresh data
  is built in ``workdir`` (default: an emptied ``checks_NAME`` folder under the course's scratch
  root, never the repository), with names drawn from ``seed`` (default: a fresh one each run).
  ``time_limit`` (seconds) stops a function that runs too long. ``postgres_url`` is the admin
  URL of the PostgreSQL server to use (default: the course's ``postgres_server()``), e.g. a
  lesson's private server whose role may create roles. Never raises because of the
  submission: problems become notes.
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
  if not exercise.needs_postgres:
    postgres_url = None
  elif postgres_url is None:
    from adkcourse.postgres import postgres_server

    postgres_url = postgres_server().url
  resources = Resources(postgres_url=postgres_url, seed=seed)
  setup = await exercise.prepare(workdir, resources)
  # Kept as a JSON string while the submission runs: ``act`` gets a copy, ``observe`` the
  # text parsed afresh, so what the submission does to its copy (or to any dict it can find
  # in this process) cannot reach ``observe``. Not a sandbox: code in this process can still
  # do anything; the class grader runs ``act`` elsewhere.
  frozen = json.dumps(setup)
  del setup
  try:
    acted = await run_act(exercise, fn, workdir, json.loads(frozen), time_limit)
    trial = await exercise.observe(workdir, json.loads(frozen), acted)
  finally:
    if exercise.cleanup is not None:
      await exercise.cleanup(json.loads(frozen), resources)
  return exercise.judge(trial)


async def run_act(exercise: Exercise, fn: Callable, workdir: Path, setup: dict,
                  time_limit: Optional[float]) -> Any:
  """``exercise.act``, and what it returned as JSON would carry it (None if it could not be
  carried; a note if ``act`` itself broke, e.g. because the submission tampered with it)."""
  try:
    acted = await exercise.act(fn, workdir, setup, time_limit)
  except KeyboardInterrupt:
    raise
  except BaseException as error:  # noqa: BLE001 - the submission shares act's process
    return {"notes": [f"the exercise's run broke: {type(error).__name__}: {error}"]}
  try:
    return json.loads(json.dumps(acted))
  except (TypeError, ValueError) as error:
    return {"notes": [f"the run's report could not be read ({error})"]}


run_checks = run_exercise_checks

__all__ = ["EXERCISES", "Check", "Exercise", "Report", "Resources", "Trial", "UnknownExercise",
           "call_submission", "check", "get_exercise", "run_act", "run_checks",
           "run_exercise_checks"]
