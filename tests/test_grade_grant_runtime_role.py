"""The lesson-4 exercise ``grant_runtime_role``: what the mutation cases in
tests/exercise_cases/grant_runtime_role/ do not show (a stable report for the lesson's stub,
nothing left on the server, nothing secret handed to the submission)."""

from __future__ import annotations

import json
import random

import asyncpg

from adkcourse.grade import get_exercise, run_exercise_checks
from adkcourse.grade.checks._engine import Resources, world_seeds
from adkcourse.postgres import asyncpg_dsn, postgres_server
from labs.exercises.grant_runtime_role import grant_runtime_role as stub

EXERCISE = get_exercise("grant_runtime_role")


async def _leftovers() -> tuple[set, set]:
  admin = await asyncpg.connect(asyncpg_dsn(postgres_server().url))
  try:
    roles = {r[0] for r in await admin.fetch("SELECT rolname FROM pg_roles")}
    databases = {r[0] for r in await admin.fetch("SELECT datname FROM pg_database")}
  finally:
    await admin.close()
  return roles, databases


async def test_stub_report_is_zero_and_the_same_on_every_run(tmp_path):
  """The lesson commits the stub's report: no name drawn for the run may appear in it, and
  roles (server-wide) and databases are all dropped again."""
  before = await _leftovers()
  first = await run_exercise_checks("grant_runtime_role", stub, workdir=tmp_path / "a", seed=1)
  second = await run_exercise_checks("grant_runtime_role", stub, workdir=tmp_path / "b", seed=2)
  assert first.score == 0 and first.max_score == 10
  assert first.to_text() == second.to_text() and first.to_html() == second.to_html()
  assert await _leftovers() == before


async def test_the_submission_is_handed_the_owner_and_nothing_more(tmp_path):
  """What the sandbox can read (``inputs``): the owner's URL, the names, no admin URL and no
  password of the runtime role (which would let it log in as a role the judge trusts)."""
  admin = postgres_server().url
  spec = EXERCISE.generate(random.Random(world_seeds(3, 4)[1]), 1)
  plan = await EXERCISE.build(spec, tmp_path / "t", Resources(postgres_url=admin))
  (tmp_path / "w").mkdir()
  inputs = await EXERCISE.duplicate(spec, tmp_path / "t", plan, tmp_path / "w",
                                    Resources(postgres_url=admin), 1)
  try:
    from sqlalchemy.engine import make_url

    text = json.dumps(inputs)
    assert set(inputs) >= {"owner_url", "database", "runtime"}
    assert admin not in text
    owner, judge = make_url(inputs["owner_url"]), make_url(admin)
    assert owner.username != judge.username and owner.database == inputs["database"]
  finally:
    await EXERCISE.teardown(spec, inputs, Resources(postgres_url=admin))
    await EXERCISE.teardown(spec, plan, Resources(postgres_url=admin))
