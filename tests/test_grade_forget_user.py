"""The forget_user checks' protocol and framework: full marks for the reference, what the
phases see and keep apart, and every way a submission can fail becoming a note, never a crash.
(The catalogue of right and wrong solutions is tests/exercise_cases/forget_user/.)"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from contextlib import closing

import pytest

from adkcourse.grade import get_exercise, run_exercise_checks
from adkcourse.grade.checks import Resources
from labs.exercises.forget_user import forget_user as student_stub
from solutions.forget_user import forget_user

EXERCISE = get_exercise("forget_user")


def earned(report) -> dict[str, float]:
  return {row["check"]: row["earned"] for row in report.rows}


async def api_only(service, db_path, app_name, user_id):
  """The lesson's first attempt: sessions through the API, user state and bytes left."""
  listed = await service.list_sessions(app_name=app_name, user_id=user_id)
  for session in listed.sessions:
    await service.delete_session(app_name=app_name, user_id=user_id, session_id=session.id)


async def test_reference_gets_full_marks(tmp_path):
  report = await run_exercise_checks("forget_user", forget_user, workdir=tmp_path)
  assert report.max_score == EXERCISE.max_score == 13
  assert report.score == report.max_score, report.summary()
  assert report.notes == []
  assert list(report.table().columns) == ["points", "earned", "feedback"]


async def test_setup_is_json_and_names_change_with_the_seed(tmp_path):
  first = await EXERCISE.prepare(tmp_path / "a", Resources(seed=1))
  again = await EXERCISE.prepare(tmp_path / "b", Resources(seed=1))
  other = await EXERCISE.prepare(tmp_path / "c", Resources(seed=2))
  assert json.loads(json.dumps(first)) == first
  users = [s["user"] for s in first["scenarios"]]
  assert users == [s["user"] for s in again["scenarios"]]
  assert users != [s["user"] for s in other["scenarios"]]
  quoted, plain = first["scenarios"]
  assert "'" in quoted["user"] and '"' in quoted["user"]
  assert any(o.startswith(plain["user"]) and o != plain["user"] for o in plain["others"])
  assert plain["user"].upper() in plain["others"]


async def test_the_data_holds_the_users_markers_before_anything_runs(tmp_path):
  """The trace check is not vacuous: every file starts with the user's markers in its bytes."""
  from adkcourse.grade.checks.forget_user import scan_folder

  setup = await EXERCISE.prepare(tmp_path, Resources(seed=3))
  for scenario in setup["scenarios"]:
    traces, _files = scan_folder(tmp_path / scenario["folder"], scenario["marks"])
    assert traces == {"tutor.db": len(scenario["marks"])}


async def test_observe_survives_any_shape_of_acted(tmp_path):
  setup = await EXERCISE.prepare(tmp_path, Resources(seed=4))
  for acted in (None, 3, "x", {"runs": "no"}, {"runs": [{"notes": [1, 2]}, {"notes": "s"}]},
                {"runs": [{}, {}, {}]}):
    trial = await EXERCISE.observe(tmp_path, setup, acted)
    report = EXERCISE.judge(trial)
    assert report.score == 0 and report.notes, acted


async def test_what_act_is_handed_cannot_change_what_observe_compares(tmp_path):
  async def forget_user(service, db_path, app_name, user_id):
    import gc

    for obj in gc.get_objects():  # a submission looking for the grader's expectations
      if isinstance(obj, dict) and "scenarios" in obj:
        for scenario in obj["scenarios"]:
          scenario["before"] = {}
          scenario["marks"] = []

  report = await run_exercise_checks("forget_user", forget_user, workdir=tmp_path)
  assert report.score == 0


async def test_stub_earns_nothing_and_says_why(tmp_path):
  report = await run_exercise_checks("forget_user", student_stub, workdir=tmp_path)
  assert report.score == 0
  assert any("NotImplementedError" in note for note in report.notes)
  assert "not credited" in next(r.feedback for r in report.results
                                if r.check == "other_users_untouched")


async def test_sync_definition_is_reported(tmp_path):
  def forget_user(service, db_path, app_name, user_id):  # noqa: ARG001 - wrong on purpose
    with closing(sqlite3.connect(db_path)) as connection:
      connection.execute("DELETE FROM user_states WHERE app_name=? AND user_id=?",
                         (app_name, user_id))
      connection.commit()

  report = await run_exercise_checks("forget_user", forget_user, workdir=tmp_path)
  assert any("async def" in note for note in report.notes)
  assert earned(report)["user_state_removed"] == 2  # the points it earned
  assert earned(report)["sessions_removed"] == 0


@pytest.mark.parametrize("error", [ValueError("boom"), SystemExit(3)])
async def test_raising_after_partial_work_keeps_the_work(tmp_path, error):
  async def forget_user(service, db_path, app_name, user_id):
    await api_only(service, db_path, app_name, user_id)
    raise error

  report = await run_exercise_checks("forget_user", forget_user, workdir=tmp_path)
  assert earned(report)["sessions_removed"] == 2 and earned(report)["user_state_removed"] == 0
  assert len(report.notes) == 2  # one per file
  assert all("boom" in note or "sys.exit(3)" in note for note in report.notes)


async def test_endless_coroutine_is_stopped(tmp_path):
  calls = []

  async def forget_user(service, db_path, app_name, user_id):
    calls.append(user_id)
    if len(calls) == 2:
      await asyncio.sleep(1.1)  # the second call is slow before it does its work
    await api_only(service, db_path, app_name, user_id)
    while True:
      await asyncio.sleep(0.05)

  # 6 s for two calls, 1.5 s kept for the second. The first may use 4.5 s less 1 s for the
  # alarm's grace: stopped at 3.5 s. The second then has 2.5 s left, a limit of 2.5 / 1.5 =
  # 1.67 s: its 1.1 s wait and its work fit, with 0.5 s to spare on a busy machine. Had the
  # first call been allowed everything but its grace (5 s), the second would get 0.67 s and be
  # stopped before its work.
  report = await run_exercise_checks("forget_user", forget_user, workdir=tmp_path,
                                     time_limit=6.0)
  # Each scenario's call was stopped, and the first one's endless wait still left the second
  # call the time to do its work (TimeBudget keeps half a share for every call to come).
  assert sum("did not finish within" in note for note in report.notes) == 2
  assert earned(report)["sessions_removed"] == 2


async def test_a_slow_first_call_is_not_stopped(tmp_path):
  """The first call pays for cold starts: on a busy machine it may take longer than an even
  share of the time limit (4 s of 8 s here), and a right answer must not be stopped for it.
  Its limit is 5 s (8 s less the 2 s kept for the second call, less 1 s for the alarm's grace):
  4.2 s of waiting leaves 0.8 s for its work on a busy machine."""
  calls = []

  async def forget_user(service, db_path, app_name, user_id):
    if not calls:
      await asyncio.sleep(4.2)
    calls.append(user_id)
    await api_only(service, db_path, app_name, user_id)

  report = await run_exercise_checks("forget_user", forget_user, workdir=tmp_path,
                                     time_limit=8.0)
  assert not [note for note in report.notes if "did not finish" in note]
  assert len(calls) == 2 and earned(report)["sessions_removed"] == 2


async def test_a_blocking_hang_leaves_the_next_call_its_time(tmp_path):
  """A call that blocks (no await) runs to its alarm, after the limit: that grace must come out of
  its own time, not the time kept for the calls after it."""
  calls = []

  async def forget_user(service, db_path, app_name, user_id):
    calls.append(user_id)
    if len(calls) == 1:
      time.sleep(60)  # blocking: only the alarm stops it
    await asyncio.sleep(0.5)  # a slow but right second call
    await api_only(service, db_path, app_name, user_id)

  # 6 s for two calls, 1.5 s kept for the second. The first runs to its alarm: limit 3.5 s plus
  # 1 s of grace, all charged to it, so the second still gets a 1 s limit for its 0.5 s sleep
  # and its work (0.5 s to spare on a busy machine). Were the grace taken from the time kept
  # for it, the second call would get 0.5 s and be stopped.
  report = await run_exercise_checks("forget_user", forget_user, workdir=tmp_path,
                                     time_limit=6.0)
  stopped = [note for note in report.notes if "did not finish" in note]
  assert len(stopped) == 1 and "share of the 6 s time limit" in stopped[0]
  assert earned(report)["sessions_removed"] == 1   # the second file, done in its kept time


def test_a_time_budget_never_exceeds_its_total_and_keeps_time_for_later_calls():
  from adkcourse.grade.checks._base import TimeBudget, alarm_grace
  for total, calls in [(30.0, 12), (2.0, 2), (1.0, 5), (0.2, 3)]:
    budget, used, limits = TimeBudget(total, calls), 0.0, []
    for _ in range(calls):         # every call runs to its alarm: the worst case
      limit = budget.next()
      limits.append(limit)
      budget.charge(limit + alarm_grace(limit))
      used += limit + alarm_grace(limit)
    assert used <= total + 0.05 * 1.5 * calls + 1e-9, (total, calls, limits)
    if total >= 1.0:                # each call keeps at least about a third of an even share
      assert min(limits) >= total / calls / 2 / 1.5 - 1e-9, (total, calls, limits)
  assert TimeBudget(None, 3).next() is None


async def test_busy_loop_is_interrupted(tmp_path):
  async def forget_user(service, db_path, app_name, user_id):
    while True:
      pass

  report = await run_exercise_checks("forget_user", forget_user, workdir=tmp_path,
                                     time_limit=0.6)
  assert report.score == 0
  assert any("did not finish" in note for note in report.notes)


async def test_missing_function_gives_a_zero_report():
  report = await run_exercise_checks("forget_user", None)
  assert report.score == 0 and report.max_score == 13
  assert report.notes == ["no function named `forget_user` was found"]
