"""Mutation tests of the exercises' checks: every wrong solution in tests/exercise_cases/<exercise>/
scores below the maximum (and loses points where its ``LOSES`` says), every right one, however
it is written, scores the maximum.

Case files are named ``wrong_*.py`` or ``right_*.py``, define the exercise's function, and say
in their docstring's first line why they are wrong or how they differ. The data is drawn from
a fresh seed per test run (``ADKCOURSE_CASES_SEED`` fixes it), so that the cases are judged on
names nobody chose for them; a failure message names the seed to replay it.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import secrets
from pathlib import Path

import pytest

from adkcourse.grade import get_exercise, run_exercise_checks

CASES = Path(__file__).resolve().parent / "exercise_cases"
SEED = int(os.environ.get("ADKCOURSE_CASES_SEED") or secrets.randbits(32))
EXERCISE_NAMES = sorted(p.name for p in CASES.iterdir() if p.is_dir() and not p.name.startswith("_"))


def case_files(exercise: str) -> list[Path]:
  return sorted(p for p in (CASES / exercise).glob("*.py") if p.stem.startswith(("wrong_", "right_")))


def load(path: Path, name: str):
  spec = importlib.util.spec_from_file_location(f"case_{path.parent.name}_{path.stem}", path)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module, getattr(module, name)


@pytest.mark.parametrize("exercise", EXERCISE_NAMES)
def test_each_exercise_has_enough_cases_with_reasons(exercise):
  files = case_files(exercise)
  wrong = [p for p in files if p.stem.startswith("wrong_")]
  right = [p for p in files if p.stem.startswith("right_")]
  assert len(wrong) >= 8 and len(right) >= 3, (len(wrong), len(right))
  for path in files:
    docstring = ast.get_docstring(ast.parse(path.read_text()))
    assert docstring and len(docstring.splitlines()[0]) > 20, f"{path.name}: say why"


@pytest.mark.parametrize("exercise,path", [
    pytest.param(exercise, path, id=f"{exercise}/{path.stem}")
    for exercise in EXERCISE_NAMES for path in case_files(exercise)])
async def test_case(exercise, path, tmp_path):
  module, fn = load(path, exercise)
  report = await run_exercise_checks(exercise, fn, workdir=tmp_path, seed=SEED)
  where = f"seed {SEED} (ADKCOURSE_CASES_SEED={SEED} to replay)\n{report.summary()}"
  if path.stem.startswith("right_"):
    assert report.score == report.max_score == get_exercise(exercise).max_score, where
  else:
    assert report.score < report.max_score, where
    lost = {r.check for r in report.failed()}
    assert set(getattr(module, "LOSES", ())) <= lost, where
