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
import asyncio
import atexit
import importlib.util
import multiprocessing
import os
import secrets
import shutil
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest

from adkcourse.grade import get_exercise, run_exercise_checks
from adkcourse.grade.checks import TemplateCache

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


@pytest.fixture(scope="module")
def graded():
  """Each exercise's cases, graded once, when a test of that exercise first asks (so that
  ``-k exercise`` grades only that one), two at a time in worker processes (the judge is
  CPU-bound; this halves the time on two cores). The workers use this process's PostgreSQL
  instead of each starting one."""
  from adkcourse.postgres import POSTGRES_URL_VARIABLE, postgres_server

  done: dict[tuple[str, str], CaseResult] = {}
  pool = None

  def grade(exercise: str) -> dict[tuple[str, str], CaseResult]:
    nonlocal pool
    if not any(key[0] == exercise for key in done):
      if pool is None:
        url = postgres_server().url
        context = multiprocessing.get_context("spawn")  # no inherited loop or server handles
        pool = ProcessPoolExecutor(max_workers=2, mp_context=context, initializer=_use_server,
                                   initargs=(POSTGRES_URL_VARIABLE, url))
      # The seed goes with each job: a spawned worker imports this module afresh and would
      # draw a seed of its own, not the one a failure message tells to replay.
      jobs = [(exercise, str(path), SEED) for path in case_files(exercise)]
      done.update(zip([job[:2] for job in jobs], pool.map(grade_case, jobs)))
    return done

  yield grade
  if pool is not None:
    pool.shutdown()
  for path in fixed_tmp_paths():  # what the cases that write outside their world left there
    if os.path.isdir(path) and not os.path.islink(path):
      shutil.rmtree(path, ignore_errors=True)
    elif os.path.lexists(path):
      os.unlink(path)


def fixed_tmp_paths() -> set[str]:
  """The hard-coded /tmp paths the case files name (a wrong case that keeps a copy in
  /tmp/x/y, or sqlite3.connect('/tmp/z.db')), each as the entry directly under /tmp: grading
  in-process has no private /tmp, so the test removes what those cases leave on the machine."""
  found = set()
  for exercise in EXERCISE_NAMES:
    for path in case_files(exercise):
      for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
          for word in node.value.split():
            if word.startswith("/tmp/") and len(word.split("/")) > 2 and word.split("/")[2]:
              found.add("/tmp/" + word.split("/")[2])
  return found


def test_the_cases_fixed_tmp_paths_are_found():
  """The cases known to write under /tmp are the ones the clean-up finds (a new one is too)."""
  found = fixed_tmp_paths()
  assert {"/tmp/adkcourse-case-leftovers", "/tmp/adkcourse-case-leftovers-cp",
          "/tmp/forget_user-backup.db", "/tmp/cafe_concierge_favourites.json"} <= found, found
  assert all(path.count("/") == 2 and path != "/tmp/" for path in found), found


def _use_server(variable: str, url: str) -> None:
  os.environ[variable] = url


@dataclass(frozen=True)
class CaseResult:
  """What a worker sends back: plain values only."""

  score: float
  max_score: float
  lost: frozenset[str]
  summary: str
  loses: frozenset[str]


_TEMPLATES: dict[str, TemplateCache] = {}  # this worker's: the exercise it is grading


def _close_templates(keep: str = "") -> None:
  import shutil

  for name in [n for n in _TEMPLATES if n != keep]:
    cache = _TEMPLATES.pop(name)
    asyncio.run(cache.close())
    shutil.rmtree(cache.folder, ignore_errors=True)


def _templates(exercise: str) -> TemplateCache:
  """The worker's template cache for ``exercise``: every case of an exercise is judged on the
  same worlds (one seed), so each world is built, and the reference and no-op runs made, once
  per worker instead of once per case; each case still acts on a fresh copy of its own. The
  previous exercise's templates (and databases) go when the next exercise starts, the last
  ones when the worker exits."""
  _close_templates(keep=exercise)
  if exercise not in _TEMPLATES:
    _TEMPLATES[exercise] = TemplateCache(Path(tempfile.mkdtemp(prefix=f"templates-{exercise}-")))
  return _TEMPLATES[exercise]


atexit.register(_close_templates)


def grade_case(job: tuple[str, str, int]) -> CaseResult:
  """Grade one case file in this (worker) process, on a fresh copy of the seeded worlds."""
  exercise, path, seed = job
  try:
    module, fn = load(Path(path), exercise)
    with tempfile.TemporaryDirectory(prefix="case-") as workdir:
      report = asyncio.run(run_exercise_checks(exercise, fn, workdir=workdir, seed=seed,
                                               cache=_templates(exercise)))
  except BaseException:  # noqa: BLE001 - this case fails alone, its batch goes on
    import traceback

    return CaseResult(float("nan"), float("nan"), frozenset(),
                      "the checks themselves failed:\n" + traceback.format_exc(), frozenset())
  return CaseResult(report.score, report.max_score, frozenset(r.check for r in report.failed()),
                    report.summary(), frozenset(getattr(module, "LOSES", ())))


@pytest.mark.parametrize("exercise,path", [
    pytest.param(exercise, path, id=f"{exercise}/{path.stem}")
    for exercise in EXERCISE_NAMES for path in case_files(exercise)])
def test_case(exercise, path, graded):
  result = graded(exercise)[(exercise, str(path))]
  where = f"seed {SEED} (ADKCOURSE_CASES_SEED={SEED} to replay)\n{result.summary}"
  assert result.score == result.score, where  # NaN: the checks raised instead of grading
  if path.stem.startswith("right_"):
    assert result.score == result.max_score == get_exercise(exercise).max_score, where
  else:
    assert result.score < result.max_score, where
    assert result.loses <= result.lost, where
