"""A grade never depends on what else the machine is doing.

Every reference solution and two right alternatives (tests/exercise_cases/*/right_*.py) of
every exercise, drawn anew on every run (``ADKCOURSE_CASES_SEED`` replays a draw; over runs
every alternative is drawn; test_exercise_cases grades them all, idle), are graded by the class
grader, sandboxed, 2 at a time, twice with the same seed: once as the machine is, and once while busy processes keep its load at four times its
cores. Both times every one gets full marks, and the two gradebooks are the same, feedback
and notes included (no "graded again alone" either: the limits measure CPU time, which the
load does not change).
"""

from __future__ import annotations

import os
import random
import secrets
import shutil
from pathlib import Path

import pytest

from load import Load  # tests/load.py
from adkcourse.grade.checks import EXERCISES
from adkcourse.grade.runner import find_submissions, grade_all
from adkcourse.grade.sandbox import SandboxUnavailable, detect

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "exercise_cases"
SEED = 20261201
DRAW = int(os.environ.get("ADKCOURSE_CASES_SEED") or secrets.randbits(32))
ALTERNATIVES = 2  # right alternatives per exercise: all of them twice would take 30 minutes


@pytest.fixture(scope="module")
def isolation():
  try:
    found = detect("bwrap")
  except SandboxUnavailable as error:  # CI installs bubblewrap: a failure, never a skip
    pytest.fail(f"bubblewrap is required: {error}")
  yield found
  found.close()


def _class(folder: Path, exercise: str) -> Path:
  subs = folder / exercise
  subs.mkdir(parents=True)
  shutil.copy(ROOT / "solutions" / f"{exercise}.py", subs / "reference.py")
  alternatives = sorted((CASES / exercise).glob("right_*.py"))
  for case in random.Random(f"{DRAW}-{exercise}").sample(alternatives, ALTERNATIVES):
    shutil.copy(case, subs / case.name)
  return subs


def _gradebook(graded) -> dict[str, tuple]:
  return {g.student: (g.report.score, g.report.max_score, g.regraded,
                      tuple((r.check, r.earned, r.feedback) for r in g.report.results),
                      tuple(g.report.notes)) for g in graded}


def test_right_answers_get_full_marks_and_the_same_grades_on_a_busy_machine(tmp_path,
                                                                              isolation):
  classes = {exercise: _class(tmp_path, exercise) for exercise in EXERCISES}

  def grade_everything() -> dict[str, dict[str, tuple]]:
    return {exercise: _gradebook(grade_all(exercise, find_submissions(folder), jobs=2,
                                           progress=False, isolation=isolation, seed=SEED))
            for exercise, folder in classes.items()}

  idle = grade_everything()
  with Load(per_core=4):
    busy = grade_everything()
  for exercise in EXERCISES:
    for student, (score, max_score, regraded, rows, notes) in idle[exercise].items():
      assert score == max_score and not regraded, (exercise, student, rows, notes)
    for student, row in busy[exercise].items():
      assert row[0] == row[1], (exercise, student, row)
    assert busy[exercise] == idle[exercise], f"{exercise} (ADKCOURSE_CASES_SEED={DRAW} replays)"
  assert all(len(book) == 1 + ALTERNATIVES for book in idle.values()), idle
