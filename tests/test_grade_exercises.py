"""Checks of the lesson-1 and lesson-3 exercises: full marks for the reference, partial marks
for plausible mistakes, nothing for the stub."""

from __future__ import annotations

from adkcourse.grade import EXERCISES, get_exercise, run_exercise_checks
from labs.exercises.copy_user_to import copy_user_to as copy_stub
from labs.exercises.remember_favorite_drink import remember_favorite_drink as drink_stub
from solutions.copy_user_to import copy_user_to
from solutions.remember_favorite_drink import remember_favorite_drink


def marks(report) -> dict[str, float]:
  return {r.check: r.earned for r in report.results}


def test_every_exercise_declares_what_it_judges():
  """Checks with points and the contract's words, what is left open with a reason, enough
  worlds; a check name a difference can cost is one of the exercise's own."""
  for name in EXERCISES:
    exercise = get_exercise(name)
    assert exercise.name == name and len(exercise.checks) >= 5
    assert all(c.points > 0 and len(c.requires) > 20 for c in exercise.checks)
    assert len({c.name for c in exercise.checks}) == len(exercise.checks)
    assert all(rule.why for rule in exercise.leaves_open)
    assert exercise.worlds >= 4
    assert exercise.compare_to_reference or exercise.properties is not None


# --- lesson 1: remember_favorite_drink ------------------------------------------------------

async def test_drink_reference_full_marks(tmp_path):
  report = await run_exercise_checks("remember_favorite_drink", remember_favorite_drink,
                                     workdir=tmp_path)
  assert report.score == report.max_score == 10, report.summary()
  assert report.notes == []


async def test_drink_tool_that_raises_is_reported_once(tmp_path):
  def remember_favorite_drink(tool_context, drink: str) -> dict:
    raise ValueError("no drinks today")

  report = await run_exercise_checks("remember_favorite_drink", remember_favorite_drink,
                                     workdir=tmp_path)
  assert report.score == 0
  assert [n for n in report.notes if "ValueError: no drinks today" in n] == report.notes
  assert len(report.notes) == 1


async def test_drink_stub_earns_nothing(tmp_path):
  report = await run_exercise_checks("remember_favorite_drink", drink_stub, workdir=tmp_path)
  assert report.score == 0
  assert any("NotImplementedError" in note for note in report.notes)


async def test_drink_tool_under_another_name_is_still_graded(tmp_path):
  def keep_drink(tool_context, drink: str) -> dict:
    return remember_favorite_drink(tool_context, drink)

  report = await run_exercise_checks("remember_favorite_drink", keep_drink, workdir=tmp_path)
  assert report.score == report.max_score
  assert any("called `keep_drink`" in note for note in report.notes)


# --- lesson 3: copy_user_to -----------------------------------------------------------------
# Wrong and right solutions are in tests/exercise_cases/copy_user_to/; here: the reference, the
# stub, the data the checks build, and the feedback of the mistake the first reference made.

async def test_copy_reference_full_marks(tmp_path):
  report = await run_exercise_checks("copy_user_to", copy_user_to, workdir=tmp_path)
  assert report.score == report.max_score == 18, report.summary()
  assert report.notes == []


async def test_copy_stub_earns_nothing(tmp_path):
  report = await run_exercise_checks("copy_user_to", copy_stub, workdir=tmp_path)
  assert report.score == 0
  raised = [note for note in report.notes if "NotImplementedError" in note]
  # Every call raised the same way: two examples and a count, not one line per call.
  assert len(raised) == 2, report.notes
  more = [note for note in report.notes if note.endswith("more call(s) that ended the same way")]
  assert len(more) == 1 and int(more[0].split()[1]) > 10, report.notes


async def old_reference(source, dest, app_name, user_id):
  """The first reference (reviewed as wrong, yet full marks then): the user state is written
  when each session is created, then every event is replayed, so old events win."""
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  user_keys = {f"user:{key}": value for key, value in user_state.items()}
  listed = await source.list_sessions(app_name=app_name, user_id=user_id)
  for listed_session in listed.sessions:
    session = await source.get_session(app_name=app_name, user_id=user_id,
                                       session_id=listed_session.id)
    own_state = {k: v for k, v in session.state.items() if ":" not in k}
    copy = await dest.create_session(app_name=app_name, user_id=user_id,
                                     session_id=session.id, state={**own_state, **user_keys})
    for event in session.events:
      await dest.append_event(copy, event)


async def test_the_first_reference_no_longer_passes(tmp_path):
  """Old events win in it, and it checks nothing: below the maximum, never full marks again."""
  report = await run_exercise_checks("copy_user_to", old_reference, workdir=tmp_path, seed=5)
  assert report.score < report.max_score / 2
  assert {"user_state_latest", "refuses_what_postgres_cannot_hold"} <= {
      r.check for r in report.failed()}


async def test_copy_user_to_reads_adk_tables_whatever_search_path_a_submission_set():
  """A submission may own objects in its PostgreSQL database: a schema of look-alike tables put
  first in the role's search_path must not stand in for ADK's tables when the judge reads."""
  import asyncpg

  from adkcourse.postgres import asyncpg_dsn, fresh_database

  url = await fresh_database("search_path_shadow")
  plain = asyncpg_dsn(url)
  admin = await asyncpg.connect(plain)
  try:
    for table, columns in [("sessions", "app_name text, user_id text, id text, state jsonb"),
                           ("user_states", "app_name text, user_id text, state jsonb"),
                           ("app_states", "app_name text, state jsonb")]:
      await admin.execute(f"CREATE TABLE public.{table} ({columns})")
    await admin.execute("CREATE TABLE public.events (app_name text, user_id text, session_id "
                        "text, event_data jsonb, id text, invocation_id text, timestamp "
                        "timestamptz)")
    await admin.execute("""INSERT INTO public.sessions VALUES ('app', 'ada', 's1', '{"real": 1}')""")
    await admin.execute("CREATE SCHEMA shadow")
    await admin.execute("CREATE TABLE shadow.sessions (LIKE public.sessions)")
    await admin.execute("""INSERT INTO shadow.sessions VALUES ('app', 'ada', 's1', '{"forged": 1}')""")
    database = (await admin.fetchval("SELECT current_database()"))
    await admin.execute(f'ALTER DATABASE "{database}" SET search_path = shadow, public')
  finally:
    await admin.close()
  check = await asyncpg.connect(plain)   # a new connection takes the database's setting
  try:
    assert await check.fetchval("SELECT state::text FROM sessions") == '{"forged": 1}'
  finally:
    await check.close()
  from adkcourse.grade.checks._copy_user_to_support import read_postgres

  view = await read_postgres(url, ("db",))
  assert view[("db", "table", "sessions", "app", "ada", "s1", "state", "real")] == 1
  assert any(key[1:3] == ("table", "shadow.sessions") for key in view)  # seen, as its own table
  assert not any(key[1:3] == ("table", "sessions") and "forged" in key for key in view)
