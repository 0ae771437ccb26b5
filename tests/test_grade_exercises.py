"""Checks of the lesson-1 and lesson-3 exercises: full marks for the reference, partial marks
for plausible mistakes, nothing for the stub."""

from __future__ import annotations

from adkcourse.grade import EXERCISES, get_exercise, run_exercise_checks
from adkcourse.grade.checks import Resources
from labs.exercises.copy_user_to import copy_user_to as copy_stub
from labs.exercises.remember_favorite_drink import remember_favorite_drink as drink_stub
from solutions.copy_user_to import copy_user_to
from solutions.copy_user_to import copy_user_to as reference_copy
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
  assert len(set(drinks.values())) == 4
  assert setup["neighbour"].startswith(setup["customer"])
  named = [turn["drink"] for turn in setup["script"] if turn["drink"]]
  assert named == [drinks["first"], drinks["second"], drinks["neighbour"]]
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

async def test_copy_reference_full_marks(tmp_path):
  report = await run_exercise_checks("copy_user_to", copy_user_to, workdir=tmp_path)
  assert report.score == report.max_score == 14, report.summary()
  assert report.notes == []


async def old_reference(source, dest, app_name, user_id):
  """The first reference (reviewed as wrong, yet 12/12 then): the user state is written when
  each session is created, then every event is replayed, so old events win."""
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  user_keys = {f"user:{key}": value for key, value in user_state.items()}
  listed = await source.list_sessions(app_name=app_name, user_id=user_id)
  for listed_session in listed.sessions:  # oldest update first: "later values win" (they don't)
    session = await source.get_session(app_name=app_name, user_id=user_id,
                                       session_id=listed_session.id)
    own_state = {k: v for k, v in session.state.items() if ":" not in k}
    copy = await dest.create_session(app_name=app_name, user_id=user_id,
                                     session_id=session.id, state={**own_state, **user_keys})
    for event in session.events:
      await dest.append_event(copy, event)


async def test_replaying_old_user_writes_last_loses_the_latest_value_points(tmp_path):
  report = await run_exercise_checks("copy_user_to", old_reference, workdir=tmp_path)
  assert {r.check for r in report.failed()} == {"user_state_latest"}
  assert report.score == report.max_score - 2 == 12
  feedback = next(r.feedback for r in report.results if r.check == "user_state_latest")
  assert "level is 'beginner' instead of 'intermediate'" in feedback


async def test_no_session_order_replays_the_latest_user_state(tmp_path):
  """Copying the sessions in the other order (by id, by creation) fails too, on another key."""
  async def by_id(source, dest, app_name, user_id):
    class Sorted:
      async def list_sessions(self, **kwargs):
        listed = await source.list_sessions(**kwargs)
        listed.sessions.sort(key=lambda s: s.id)
        return listed

      def __getattr__(self, name):
        return getattr(source, name)

    await old_reference(Sorted(), dest, app_name, user_id)

  report = await run_exercise_checks("copy_user_to", by_id, workdir=tmp_path)
  assert {r.check for r in report.failed()} == {"user_state_latest"}
  feedback = next(r.feedback for r in report.results if r.check == "user_state_latest")
  assert "streak is 2 instead of 3" in feedback


async def test_the_interleaved_source_is_what_the_review_reproduced(tmp_path):
  """Tuesday holds the newest user:level, yet Monday was updated last (a plain event)."""
  from adkcourse.grade.checks.copy_user_to import APP, CONTESTED, SOURCE_TIMELINE, TARGET, fill
  from google.adk.sessions.sqlite_session_service import SqliteSessionService

  source = SqliteSessionService(str(tmp_path / "source.db"))
  await fill(source, APP, SOURCE_TIMELINE)
  listed = await source.list_sessions(app_name=APP, user_id=TARGET)
  assert [s.id for s in listed.sessions] == ["ada-tuesday", "ada-monday"]
  monday = await source.get_session(app_name=APP, user_id=TARGET, session_id="ada-monday")
  assert monday.events[-1].actions.state_delta == {}
  assert await source.get_user_state(app_name=APP, user_id=TARGET) == {
      "plan": "pro", "level": "intermediate", "streak": 3}
  assert CONTESTED == ("level", "streak")


async def test_an_extra_event_to_carry_the_user_state_is_not_a_copy(tmp_path):
  async def copy_user_to(source, dest, app_name, user_id):
    from google.adk.events import Event, EventActions

    await old_reference(source, dest, app_name, user_id)
    user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
    last = (await dest.list_sessions(app_name=app_name, user_id=user_id)).sessions[-1]
    last = await dest.get_session(app_name=app_name, user_id=user_id, session_id=last.id)
    await dest.append_event(last, Event(author="user", actions=EventActions(
        state_delta={f"user:{k}": v for k, v in user_state.items()})))

  report = await run_exercise_checks("copy_user_to", copy_user_to, workdir=tmp_path)
  got = marks(report)
  assert got["user_state_latest"] == 2 and got["events_copied"] == 1.5
  feedback = next(r.feedback for r in report.results if r.check == "events_copied")
  assert "1 event(s) more than the source" in feedback


async def test_a_carrier_session_left_behind_costs_half_the_session_points(tmp_path):
  async def copy_user_to(source, dest, app_name, user_id):
    await old_reference(source, dest, app_name, user_id)
    user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
    await dest.create_session(app_name=app_name, user_id=user_id, session_id="carrier",
                              state={f"user:{k}": v for k, v in user_state.items()})

  report = await run_exercise_checks("copy_user_to", copy_user_to, workdir=tmp_path)
  assert {r.check for r in report.failed()} == {"sessions_copied"}
  assert marks(report)["sessions_copied"] == 1
  assert "dest also holds carrier" in report.results[0].feedback


async def test_copy_from_list_sessions_loses_the_events(tmp_path):
  async def copy_user_to(source, dest, app_name, user_id):
    listed = await source.list_sessions(app_name=app_name, user_id=user_id)
    for session in listed.sessions:  # no events: list_sessions leaves them out
      await dest.create_session(app_name=app_name, user_id=user_id, session_id=session.id,
                                state=session.state)

  report = await run_exercise_checks("copy_user_to", copy_user_to, workdir=tmp_path)
  assert {r.check for r in report.failed()} == {"events_copied"}
  assert report.score == 11  # list_sessions' state already holds the latest user: values


async def test_copy_of_events_only_misses_state_set_at_creation(tmp_path):
  async def copy_user_to(source, dest, app_name, user_id):
    listed = await source.list_sessions(app_name=app_name, user_id=user_id)
    for item in listed.sessions:
      session = await source.get_session(app_name=app_name, user_id=user_id,
                                         session_id=item.id)
      copy = await dest.create_session(app_name=app_name, user_id=user_id,
                                       session_id=item.id)
      for event in session.events:
        await dest.append_event(copy, event)

  report = await run_exercise_checks("copy_user_to", copy_user_to, workdir=tmp_path)
  assert {r.check for r in report.failed()} == {"session_state_copied", "user_state_copied",
                                                "user_state_latest"}
  assert report.score == 8
  assert "plan" in next(r.feedback for r in report.results if r.check == "user_state_copied")


async def test_copying_everyone_with_new_ids(tmp_path):
  async def copy_user_to(source, dest, app_name, user_id):
    listed = await source.list_sessions(app_name=app_name)  # every user
    for item in listed.sessions:
      session = await source.get_session(app_name=app_name, user_id=item.user_id,
                                         session_id=item.id)
      copy = await dest.create_session(app_name=app_name, user_id=item.user_id,
                                       state=session.state)
      for event in session.events:
        await dest.append_event(copy, event)

  report = await run_exercise_checks("copy_user_to", copy_user_to, workdir=tmp_path)
  got = marks(report)
  assert got["only_that_user"] == 0
  assert got["sessions_copied"] == 1  # right count, new ids: half the points
  assert got["source_untouched"] == 1


async def test_a_move_instead_of_a_copy_loses_the_source_point(tmp_path):
  async def copy_user_to(source, dest, app_name, user_id):
    await reference_copy(source, dest, app_name, user_id)
    for item in (await source.list_sessions(app_name=app_name, user_id=user_id)).sessions:
      await source.delete_session(app_name=app_name, user_id=user_id, session_id=item.id)

  report = await run_exercise_checks("copy_user_to", copy_user_to, workdir=tmp_path)
  assert {r.check for r in report.failed()} == {"source_untouched"}


async def test_copy_stub_earns_nothing(tmp_path):
  report = await run_exercise_checks("copy_user_to", copy_stub, workdir=tmp_path)
  assert report.score == 0
