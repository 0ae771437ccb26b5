"""Every reference solution passes its own judge on 10 seeds: full marks, no note, and every
property its contract states (a wrong reference would make the differential judge wrong).
The seeds change on every run (``ADKCOURSE_CASES_SEED`` fixes them; a failure names it)."""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import secrets
import tempfile
from concurrent.futures import ProcessPoolExecutor

import pytest

from adkcourse.grade import get_exercise, run_exercise_checks
from adkcourse.grade.checks import EXERCISES
from adkcourse.grade.checks._engine import load_reference

SEED = int(os.environ.get("ADKCOURSE_CASES_SEED") or secrets.randbits(32))
SEEDS = 10


def _use_server(variable: str, url: str) -> None:
  if url:
    os.environ[variable] = url


def judge_reference(job: tuple[str, int]) -> tuple[float, float, list[str], str]:
  exercise, seed = job
  with tempfile.TemporaryDirectory(prefix="reference-") as workdir:
    report = asyncio.run(run_exercise_checks(exercise, load_reference(exercise),
                                             workdir=workdir, seed=seed))
  return report.score, report.max_score, report.notes, report.to_text()


@pytest.mark.parametrize("exercise", EXERCISES)
def test_the_reference_passes_its_own_judge_on_10_seeds(exercise):
  from adkcourse.postgres import POSTGRES_URL_VARIABLE, postgres_server

  jobs = [(exercise, SEED * 100 + n) for n in range(SEEDS)]
  url = postgres_server().url if get_exercise(exercise).needs_postgres else ""
  context = multiprocessing.get_context("spawn")
  with ProcessPoolExecutor(max_workers=2, mp_context=context, initializer=_use_server,
                           initargs=(POSTGRES_URL_VARIABLE, url)) as pool:
    results = list(pool.map(judge_reference, jobs))
  for (_, seed), (score, max_score, notes, text) in zip(jobs, results):
    where = f"seed {seed} (ADKCOURSE_CASES_SEED={SEED} to replay)"
    assert score == max_score == get_exercise(exercise).max_score, f"{where}\n{text}"
    assert notes == [], f"{where}\n{text}"
