"""The lesson-4 exercise ``grant_runtime_role``: what the mutation cases in
tests/exercise_cases/grant_runtime_role/ do not show (a stable report for the lesson's stub,
untrusted ``acted``, nothing left on the server)."""

from __future__ import annotations

import asyncpg

from adkcourse.grade import run_exercise_checks
from adkcourse.grade.checks import Resources
from adkcourse.grade.checks import grant_runtime_role as exercise
from adkcourse.postgres import asyncpg_dsn, postgres_server
from labs.exercises.grant_runtime_role import grant_runtime_role as stub


async def _leftovers() -> tuple[set, set]:
  admin = await asyncpg.connect(asyncpg_dsn(postgres_server().url))
  try:
    roles = {r[0] for r in await admin.fetch("SELECT rolname FROM pg_roles")}
    databases = {r[0] for r in await admin.fetch("SELECT datname FROM pg_database")}
  finally:
    await admin.close()
  return roles, databases


async def test_stub_report_is_zero_and_the_same_on_every_run(tmp_path):
  """The lesson commits the stub's report: no name drawn for the run may appear in it."""
  before = await _leftovers()
  first = await run_exercise_checks("grant_runtime_role", stub, workdir=tmp_path / "a", seed=1)
  second = await run_exercise_checks("grant_runtime_role", stub, workdir=tmp_path / "b", seed=2)
  assert first.score == 0 and first.max_score == 10
  assert first.to_text() == second.to_text() and first.to_html() == second.to_html()
  assert await _leftovers() == before  # roles are server-wide: every one is dropped again


async def test_untrusted_acted_is_graded_on_the_server_alone(tmp_path):
  resources = Resources(postgres_url=postgres_server().url)
  setup = await exercise.prepare(tmp_path, resources)
  try:
    for acted in (None, {"runs": "all fine"}, {"runs": [{"calls": [{"raised": "no"}]}] * 2}):
      trial = await exercise.observe(tmp_path, setup, acted)
      report = exercise.EXERCISE.judge(trial)
      assert report.score == 0 and not trial.acted
      assert all(r.adk["failed"] for r in trial.runs)   # nothing granted: CONNECT refused
  finally:
    await exercise.cleanup(setup, resources)


def test_names_are_quoted_as_identifiers_and_hidden_in_reports():
  assert exercise.ident('Concierge-App "EU" x') == '"Concierge-App ""EU"" x"'
  names = {"runtime": 'app "x"', "owner": "own", "database": "Cafe db"}
  assert exercise.hide_names('role "app ""x""" in database Cafe db', names) == (
      "role <runtime> in database <database>")
