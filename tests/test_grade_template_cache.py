"""A ``TemplateCache`` (the mutation tests' speed-up) changes how often a world is built, never
a grade: trials that share it get the points they get without it, each on a fresh copy (the
feedback word for word, where two builds of a seed differ only in what ADK draws itself: event
ids, timestamps), and
closing it tears the templates down (copy_user_to's databases included: its submission copy
normally consumes the template, which a kept template must survive)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from adkcourse.grade import get_exercise, run_exercise_checks
from adkcourse.grade.checks import TemplateCache
from adkcourse.grade.checks._engine import load_reference

CASES = Path(__file__).resolve().parent / "exercise_cases"


def _load(path: Path, name: str):
  import importlib.util

  spec = importlib.util.spec_from_file_location(f"cache_case_{path.stem}", path)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return getattr(module, name)


def _points(report) -> tuple:
  return (report.score, tuple((r.check, r.earned) for r in report.results))


def _grades(report) -> tuple:
  return (_points(report), tuple(r.feedback for r in report.results), tuple(report.notes))


@pytest.mark.parametrize("name", ["copy_user_to", "forget_user"])
async def test_trials_sharing_templates_get_the_grades_they_get_alone(tmp_path, monkeypatch, name):
  exercise = get_exercise(name)
  counts = {"build": 0, "teardown": 0}

  async def counted_build(*args, **kwargs):
    counts["build"] += 1
    return await build(*args, **kwargs)

  async def counted_teardown(*args, **kwargs):
    counts["teardown"] += 1
    return await teardown(*args, **kwargs)

  build, teardown = exercise.build, exercise.teardown
  counted = dataclasses.replace(exercise, build=counted_build,
                                teardown=counted_teardown if teardown else None)
  monkeypatch.setattr("adkcourse.grade.checks.get_exercise", lambda _name: counted)
  wrong = sorted((CASES / name).glob("wrong_*.py"))[:2]
  functions = [load_reference(name)] + [_load(path, name) for path in wrong]

  alone = []
  for number, fn in enumerate(functions):
    alone.append(_grades(await run_exercise_checks(name, fn, workdir=tmp_path / f"alone-{number}",
                                                   seed=11)))
  built_alone = counts["build"]
  assert built_alone == len(functions) * exercise.worlds

  cache = TemplateCache(tmp_path / "templates")
  shared = []
  for round_ in range(2):  # the second round copies the templates the first one kept
    for number, fn in enumerate(functions):
      shared.append(_grades(await run_exercise_checks(
          name, fn, workdir=tmp_path / f"shared-{round_}-{number}", seed=11, cache=cache)))
  assert counts["build"] - built_alone == exercise.worlds  # once per world, not per trial
  rounds = len(functions)
  assert shared[:rounds] == shared[rounds:]  # the same templates: the same reports, word for word
  assert [points for points, _, _ in shared[:rounds]] == [points for points, _, _ in alone]
  assert alone[0][0][0] == exercise.max_score and alone[1][0][0] < exercise.max_score

  torn_down = counts["teardown"]
  await cache.close()
  if teardown is not None:
    assert counts["teardown"] - torn_down == exercise.worlds
  assert not any((tmp_path / "templates").glob("template-*"))
