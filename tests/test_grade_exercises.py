"""Checks of the lesson-1 and lesson-3 exercises: full marks for the reference, partial marks
for plausible mistakes, nothing for the stub."""

from __future__ import annotations

from adkcourse.grade import EXERCISES, get_exercise, run_exercise_checks
from adkcourse.grade.checks import Resources
from labs.exercises.copy_user_to import copy_user_to as copy_stub
from labs.exercises.remember_favorite_drink import remember_favorite_drink as drink_stub
from solutions.copy_user_to import copy_user_to
from solutions.remember_favorite_drink import remember_favorite_drink


def marks(report) -> dict[str, float]:
  return {r.check: r.earned for r in report.results}


def test_every_exercise_declares_checks_with_points():
  for name in EXERCISES:
    exercise = get_exercise(name)
    assert exercise.name == name and len(exercise.checks) >= 5
    assert all(c.points > 0 and c.description for c in exercise.checks)
    assert len({c.name for c in exercise.checks}) == len(exercise.checks)


# --- lesson 1: remember_favorite_drink ------------------------------------------------------

async def test_drink_reference_full_marks(tmp_path):
  report = await run_exercise_checks("remember_favorite_drink", remember_favorite_drink,
                                     workdir=tmp_path)
  assert report.score == report.max_score == 10, report.summary()
  assert report.notes == []


async def test_drink_scenario_tells_the_scopes_apart(tmp_path):
  """The first conversation's last drink is not the favourite at the end, the look-alike
  customer's id starts with the customer's, and every drink is different."""
  exercise = get_exercise("remember_favorite_drink")
  setup = await exercise.prepare(tmp_path, Resources(seed=11))
  drinks = setup["drinks"]
  assert len(set(drinks.values())) == 5
  assert setup["neighbour"].startswith(setup["customer"])
  named = [turn["drink"] for turn in setup["script"] if turn["drink"]]
  assert named == [drinks["first"], drinks["tried"], drinks["second"], drinks["neighbour"]]
  second_session = setup["sessions"]["second"]
  assert [t["session"] for t in setup["script"]].count(second_session) == 2  # changes its mind
  first_session = setup["sessions"]["first"]
  assert [t["session"] for t in setup["script"]].count(first_session) == 2  # it goes on after


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
  assert any("called 'keep_drink'" in note for note in report.notes)


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
  assert any("NotImplementedError" in note for note in report.notes)


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


async def test_replaying_old_user_writes_last_is_explained(tmp_path):
  report = await run_exercise_checks("copy_user_to", old_reference, workdir=tmp_path, seed=5)
  assert "user_state_latest" in {r.check for r in report.failed()}
  feedback = next(r.feedback for r in report.results if r.check == "user_state_latest")
  assert "PostgreSQL -> SQLite" in feedback and "instead of" in feedback
  assert "write the source's user state once more after the last event" in feedback


async def test_copy_data_has_the_awkward_cases(tmp_path):
  """Quotes, a look-alike user, ids at and over PostgreSQL's limit, function calls and
  responses, nested state; in the PostgreSQL -> SQLite source the stale session is listed last."""
  from adkcourse.postgres import postgres_server
  from adkcourse.grade.checks.copy_user_to import open_service, close_service

  exercise = get_exercise("copy_user_to")
  resources = Resources(postgres_url=postgres_server().url, seed=23)
  setup = await exercise.prepare(tmp_path, resources)
  try:
    runs = {s["kind"]: s for s in setup["scenarios"]}
    assert "'" in runs["to_postgres"]["user"] and '"' in runs["to_postgres"]["user"]
    lengths = {len(s["id"]) for s in runs["to_postgres"]["source_before"]["sessions"]}
    assert 128 in lengths
    assert max(len(s["id"]) for s in runs["long_id"]["source_before"]["sessions"]) == 200
    back = runs["to_sqlite"]
    users = {s["user"] for s in back["dest_before"]["sessions"]}
    assert any(u != back["user"] and u.startswith(back["user"]) for u in users)
    parts = [p for s in back["source_before"]["sessions"] for e in s["events"]
             for p in e.get("content", {}).get("parts", [])]
    assert any("function_call" in p for p in parts) and any("function_response" in p
                                                            for p in parts)
    source = open_service(back["source"])
    try:
      listed = await source.list_sessions(app_name=back["app"], user_id=back["user"])
      last = await source.get_session(app_name=back["app"], user_id=back["user"],
                                      session_id=listed.sessions[-1].id)
      now = await source.get_user_state(app_name=back["app"], user_id=back["user"])
    finally:
      await close_service(source)
    written = {}
    for event in last.events:
      written.update({k[5:]: v for k, v in event.actions.state_delta.items()
                      if k.startswith("user:")})
    assert any(now[k] != v for k, v in written.items())  # its user: writes are not the latest
  finally:
    await exercise.cleanup(setup, resources)


def test_views_compare_exact_types():
  from adkcourse.grade.checks.copy_user_to import same

  assert same({"a": [1, {"b": "x"}]}, {"a": [1, {"b": "x"}]})
  assert not same(1, 1.0) and not same(1, True) and not same({"a": 1}, {"a": 1.0})
  assert not same([1, 2], [2, 1])


async def test_copy_user_to_reads_adk_tables_whatever_search_path_a_submission_set():
  """A submission may own objects in its PostgreSQL database: a schema of look-alike tables put
  first in the role's search_path must not stand in for ADK's tables when the judge reads."""
  import asyncpg

  from adkcourse.grade.checks import copy_user_to as exercise
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
  view = await exercise.read_postgres(url, ["app"])
  assert "forged" not in str(view) and "real" in str(view)
