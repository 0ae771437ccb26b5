"""Every exercise's judge, by exercise name, and one call to run it in this process.

Each exercise has a module here exposing ``EXERCISE`` (an ``_engine.Exercise``: how to make a
random world, act on it, observe it, and what the contract leaves open); modules are imported
only when asked for, so the grader's processes load just what their exercise needs. The judge
itself (comparing the submission with the reference on identical worlds) is ``_engine``.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Callable, Iterable, Optional, Union

from ..report import Report
from ._engine import Check, Exercise, Open, Resources, TemplateCache, View, world_seeds

EXERCISES: tuple[str, ...] = ("remember_favorite_drink", "forget_user", "copy_user_to",
                              "grant_runtime_role", "fit_the_budget", "remember_with_consent",
                              "erase_user_artifacts")


class UnknownExercise(KeyError):
  def __str__(self) -> str:
    return (f"unknown exercise {self.args[0]!r}: choose one of {', '.join(EXERCISES)}")


def get_exercise(name: str) -> Exercise:
  """The exercise called ``name`` (imports its module)."""
  if name not in EXERCISES:
    raise UnknownExercise(name)
  return importlib.import_module(f"{__name__}.{name}").EXERCISE


async def run_exercise_checks(name: str, fn: Optional[Callable], *,
                              lang: Optional[str] = None,
                              workdir: Union[str, Path, None] = None,
                              time_limit: Optional[float] = None,
                              seed: Optional[int] = None,
                              postgres_url: Optional[str] = None,
                              worlds: Optional[Iterable[int]] = None,
                              reference: Optional[Callable] = None,
                              cache: Optional[TemplateCache] = None) -> Report:
  """Judge ``fn`` as the course grader does, in this process, and return the ``Report``.

  The reference solution and ``fn`` each run on an identical copy of every world; the report
  compares what they left. Worlds are drawn fresh each time, or from ``seed``; ``worlds``
  replays exactly the world seeds a report names. The data goes to ``workdir`` (default: an
  emptied ``checks_NAME`` folder under the course's scratch root, never the repository).
  ``time_limit``: CPU seconds for all of ``fn``'s calls together. ``postgres_url``: the admin
  URL of the PostgreSQL server to use (default: the course's ``postgres_server()``).
  ``cache``: a ``TemplateCache`` (``_engine``) that keeps each world's template and reference
  run for the next trial on the same seed (a batch of submissions). Never raises because of
  the submission: problems become notes.

  ``lang``: the language of the report (``"en"``, ``"fr"``, ``"id"``). None: the notebook's
  own language (``adkcourse.quiz.language.resolve_language``: the kernel of a notebook in
  ``labs/exercises/fr/`` reports in French); an unknown code is a ``ValueError``. Only the
  sentences change with it: the worlds, the checks and the points are the same.
  """
  from adkcourse.quiz.language import resolve_language

  from ..wording import english
  from ._engine import run_trial

  lang = resolve_language(lang)  # first: a typo in the code fails before anything runs
  exercise = get_exercise(name)
  if fn is None:
    return exercise.zero_report(english("no_function", name=name), lang)
  if not callable(fn):
    return exercise.zero_report(english("not_a_function", name=name, kind=type(fn).__name__),
                                lang)
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
  seeds = list(worlds) if worlds is not None else world_seeds(seed, exercise.worlds)
  return await run_trial(exercise, fn, workdir, Resources(postgres_url=postgres_url), seeds,
                         time_limit=time_limit, reference=reference, cache=cache, lang=lang)


run_checks = run_exercise_checks

__all__ = ["EXERCISES", "Check", "Exercise", "Open", "Report", "Resources", "UnknownExercise",
           "View", "get_exercise", "run_checks", "run_exercise_checks", "world_seeds"]
