"""The forget_user checks: full marks for the reference, the lost points of plausible
mistakes, and no free points for a function that does nothing."""

from __future__ import annotations

import sqlite3

import pytest

from adkcourse.grade import get_exercise, run_exercise_checks
from labs.exercises.forget_user import forget_user as student_stub
from solutions.forget_user import forget_user


def earned(report) -> dict[str, float]:
  return {row["check"]: row["earned"] for row in report.rows}


async def api_only(service, db_path, app_name, user_id):
  """The lesson's first attempt: sessions through the API, user state forgotten."""
  listed = await service.list_sessions(app_name=app_name, user_id=user_id)
  for session in listed.sessions:
    await service.delete_session(app_name=app_name, user_id=user_id, session_id=session.id)


async def sql_only_without_app_filter(service, db_path, app_name, user_id):
  """Raw SQL everywhere, filtering on user_id only: events orphaned, other app damaged."""
  connection = sqlite3.connect(db_path)
  connection.execute("DELETE FROM sessions WHERE user_id = ?", (user_id,))
  connection.execute("DELETE FROM user_states WHERE user_id = ?", (user_id,))
  connection.commit()
  connection.close()


async def wipe_everything(service, db_path, app_name, user_id):
  connection = sqlite3.connect(db_path)
  for table in ("sessions", "events", "user_states", "app_states"):
    connection.execute(f"DELETE FROM {table}")
  connection.commit()
  connection.close()


async def drop_tables(service, db_path, app_name, user_id):
  connection = sqlite3.connect(db_path)
  connection.executescript("DROP TABLE events; DROP TABLE sessions; DROP TABLE user_states;")
  connection.close()


async def test_reference_gets_full_marks(tmp_path):
  report = await run_exercise_checks("forget_user", forget_user, workdir=tmp_path)
  assert report.max_score == get_exercise("forget_user").max_score == 13
  assert report.score == report.max_score, report.summary()
  assert report.notes == []
  assert list(report.table().columns) == ["points", "earned", "feedback"]


async def test_api_only_attempt_loses_exactly_the_user_state_points(tmp_path):
  report = await run_exercise_checks("forget_user", api_only, workdir=tmp_path)
  lost = {r.check for r in report.failed()}
  assert lost == {"user_state_removed"}
  assert report.score == 10
  assert "DELETE FROM user_states" in earned_feedback(report, "user_state_removed")


def earned_feedback(report, name):
  return next(r.feedback for r in report.results if r.check == name)


async def test_raw_sql_without_app_filter_gets_partial_marks(tmp_path):
  report = await run_exercise_checks("forget_user", sql_only_without_app_filter,
                                     workdir=tmp_path)
  marks = earned(report)
  assert marks["sessions_removed"] == 3 and marks["user_state_removed"] == 3
  assert marks["deleted_through_api"] == 0
  assert marks["events_removed"] == 0  # no cascade without PRAGMA foreign_keys
  assert marks["other_apps_untouched"] == 0  # ada in quiz_master was hit
  assert marks["other_users_untouched"] == 2
  assert 0 < report.score < report.max_score


async def test_damaging_other_users_loses_those_points(tmp_path):
  report = await run_exercise_checks("forget_user", wipe_everything, workdir=tmp_path)
  marks = earned(report)
  assert marks["other_users_untouched"] == marks["other_apps_untouched"] == 0
  assert marks["app_state_untouched"] == 0
  assert report.score == 8  # it did remove ada's sessions, events and state


async def test_dropped_tables_earn_no_removal_points(tmp_path):
  report = await run_exercise_checks("forget_user", drop_tables, workdir=tmp_path)
  marks = earned(report)
  assert marks["sessions_removed"] == marks["events_removed"] == 0
  assert marks["user_state_removed"] == 0
  assert any("no longer exists" in note for note in report.notes)


async def test_stub_earns_nothing_and_says_why(tmp_path):
  report = await run_exercise_checks("forget_user", student_stub, workdir=tmp_path)
  assert report.score == 0
  assert any("NotImplementedError" in note for note in report.notes)
  assert "not credited" in earned_feedback(report, "other_users_untouched")


async def test_sync_definition_is_reported(tmp_path):
  def forget_user(service, db_path, app_name, user_id):  # noqa: ARG001 - wrong on purpose
    connection = sqlite3.connect(db_path)
    connection.execute("DELETE FROM user_states WHERE app_name=? AND user_id=?",
                       (app_name, user_id))
    connection.commit()
    connection.close()

  report = await run_exercise_checks("forget_user", forget_user, workdir=tmp_path)
  assert any("async def" in note for note in report.notes)
  assert earned(report)["user_state_removed"] == 3  # the points it earned
  assert earned(report)["sessions_removed"] == 0


@pytest.mark.parametrize("error", [ValueError("boom"), SystemExit(3)])
async def test_raising_after_partial_work_keeps_the_work(tmp_path, error):
  async def forget_user(service, db_path, app_name, user_id):
    await api_only(service, db_path, app_name, user_id)
    raise error

  report = await run_exercise_checks("forget_user", forget_user, workdir=tmp_path)
  assert report.score == 10
  assert len(report.notes) == 1 and ("boom" in report.notes[0] or "sys.exit(3)" in report.notes[0])


async def test_endless_coroutine_is_stopped(tmp_path):
  import asyncio

  async def forget_user(service, db_path, app_name, user_id):
    await api_only(service, db_path, app_name, user_id)
    while True:
      await asyncio.sleep(0.05)

  report = await run_exercise_checks("forget_user", forget_user, workdir=tmp_path,
                                     time_limit=0.5)
  assert any("did not finish within 0.5 s" in note for note in report.notes)
  assert report.score == 10


async def test_busy_loop_is_interrupted(tmp_path):
  async def forget_user(service, db_path, app_name, user_id):
    while True:
      pass

  report = await run_exercise_checks("forget_user", forget_user, workdir=tmp_path,
                                     time_limit=0.3)
  assert report.score == 0
  assert any("did not finish" in note for note in report.notes)


async def test_missing_function_gives_a_zero_report():
  report = await run_exercise_checks("forget_user", None)
  assert report.score == 0 and report.max_score == 13
  assert report.notes == ["no function named `forget_user` was found"]
