"""forget_user's worlds and judge: the worlds hold what they promise, the reference meets its
own contract on every seed, what the submission is handed holds no answer, and every way a
submission can fail becomes a note. (The catalogue of right and wrong solutions is
tests/exercise_cases/forget_user/.)"""

from __future__ import annotations

import json
import random
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from adkcourse.grade import get_exercise, run_exercise_checks
from adkcourse.grade.checks._engine import Resources, View, world_seeds
from adkcourse.grade.checks._observe import markers_in
from adkcourse.grade.checks.forget_user import DB_NAME, build, generate, observe, properties
from labs.exercises.forget_user import forget_user as student_stub
from solutions.forget_user import forget_user

EXERCISE = get_exercise("forget_user")


def earned(report) -> dict[str, float]:
  return {row["check"]: row["earned"] for row in report.rows}


def spec_for(seed: int) -> dict:
  return generate(random.Random(seed), seed % EXERCISE.worlds)


async def test_reference_meets_its_own_contract(tmp_path):
  """Full marks against itself is not enough (it is compared with itself): the contract's
  properties (none of the user's rows, none of their markers in any file at return time)
  must hold for its outcome, in WAL and rollback-journal files alike (tests/test_references.py
  runs every exercise's reference on 10 seeds)."""
  for seed in range(3):
    report = await run_exercise_checks("forget_user", forget_user, workdir=tmp_path / str(seed),
                                       seed=seed)
    assert report.score == report.max_score == 13, (seed, report.to_text())
    assert report.notes == [], (seed, report.notes)


async def test_worlds_hold_the_awkward_cases(tmp_path):
  kinds, journals, shared_ids = set(), set(), 0
  for seed in world_seeds(11, 4) + world_seeds(12, 4):
    spec = spec_for(seed)
    kinds.add(spec["kind"])
    journals.add(spec["journal"])
    sessions = {(s["app"], s["user"], s["id"]) for s in spec["script"] if s["op"] == "create"}
    ids = [i for a, u, i in sessions if a == spec["app"] and u == spec["user"]]
    others = {(a, u) for a, u, i in sessions if i in ids and (a, u) != (spec["app"],
                                                                        spec["user"])}
    shared_ids += bool(others)  # a session id the user shares with someone else
    assert spec["user"] in {u for a, u, i in sessions if a == spec["twin_app"]}
    assert any(o.lower() == spec["user"].lower() or o.startswith(spec["user"])
               for o in spec["others"])
  assert {"quotes", "like", "glob"} <= kinds and journals == {"delete", "wal"}
  assert shared_ids == 8


async def test_the_users_markers_are_in_the_file_before_anything_runs(tmp_path):
  """The trace check is not vacuous: the pristine file's bytes hold every marker of the
  user's rows (tests/exercise_cases/forget_user/wrong_no_vacuum.py shows that deleting them
  leaves them there)."""
  for seed in world_seeds(3, 4) + world_seeds(4, 4):
    spec = spec_for(seed)
    folder = tmp_path / str(seed)
    folder.mkdir()
    await build(spec, folder, Resources())
    data = (folder / DB_NAME).read_bytes()
    found = set(markers_in(data, spec["marks"]))
    pristine = await observe(spec, folder, {}, View("pristine"))
    live = {mark for mark in spec["marks"] if mark in json.dumps(list(pristine.items()))}
    assert live and live <= found, (len(live), len(found))
    with closing(sqlite3.connect(folder / DB_NAME)) as db:
      assert db.execute("PRAGMA journal_mode").fetchone()[0] == spec["journal"]
    assert properties(spec, pristine, pristine)  # the untouched world breaks the contract


async def test_inputs_hold_nothing_the_submission_could_use_as_an_answer(tmp_path):
  """What the sandbox reads: the file's name, the app, the user and the file's length in pages
  before the call (what the trusted census needs). No marker, no row, no list of what must be
  left."""
  spec = spec_for(5)
  inputs = await build(spec, tmp_path, Resources())
  assert set(inputs) == {"db", "app", "user", "pages"} and type(inputs["pages"]) is int
  text = json.dumps(inputs)
  assert not any(mark in text for mark in spec["marks"])
  assert not any(other in text for other in spec["others"] if other not in spec["user"])


async def test_the_stub_is_told_what_is_required(tmp_path):
  report = await run_exercise_checks("forget_user", student_stub, workdir=tmp_path, seed=1)
  assert report.score == 0
  assert any("NotImplementedError" in note for note in report.notes)
  assert all(r.feedback.startswith("not met yet: ") for r in report.results)


async def test_a_wrong_answer_is_told_which_world_item_and_values(tmp_path):
  async def api_only(service, db_path, app_name, user_id):
    listed = await service.list_sessions(app_name=app_name, user_id=user_id)
    for session in listed.sessions:
      await service.delete_session(app_name=app_name, user_id=user_id, session_id=session.id)

  report = await run_exercise_checks("forget_user", api_only, workdir=tmp_path, seed=2)
  feedback = {r.check: r.feedback for r in report.results}
  # every session goes, but in the world where the user has none left (only user state) it
  # changes nothing where the reference does: that world earns nothing (3 of 4 worlds)
  assert earned(report)["sessions_removed"] == 1.5 and earned(report)["user_state_removed"] == 0
  state = feedback["user_state_removed"]
  assert "world 1 (seed " in state and "the user_states row (app " in state
  assert "expected nothing, found" in state and "no ADK API does" in state
  assert "DELETE FROM" not in state and "VACUUM" not in feedback["user_state_removed"]


async def test_sync_definition_is_noted(tmp_path):
  def forget_user_sync(service, db_path, app_name, user_id):  # noqa: ARG001 - wrong on purpose
    with closing(sqlite3.connect(db_path)) as connection:
      connection.execute("DELETE FROM user_states WHERE app_name=? AND user_id=?",
                         (app_name, user_id))
      connection.commit()

  report = await run_exercise_checks("forget_user", forget_user_sync, workdir=tmp_path, seed=3)
  assert any("async def" in note for note in report.notes)


@pytest.mark.parametrize("error", [ValueError("boom"), SystemExit(3)])
async def test_raising_after_the_work_earns_nothing_and_says_why(tmp_path, error):
  async def forget_then_raise(service, db_path, app_name, user_id):
    await forget_user(service, db_path, app_name, user_id)
    raise error

  report = await run_exercise_checks("forget_user", forget_then_raise, workdir=tmp_path, seed=4)
  assert report.score == 0
  assert any("boom" in note or "sys.exit(3)" in note for note in report.notes)
  assert "where a right answer returns" in report.results[0].feedback


async def test_an_endless_coroutine_is_stopped_and_the_next_worlds_still_run(tmp_path):
  calls = []

  async def stuck_once(service, db_path, app_name, user_id):
    calls.append(db_path)
    if len(calls) == 1:
      while True:
        pass
    await forget_user(service, db_path, app_name, user_id)

  report = await run_exercise_checks("forget_user", stuck_once, workdir=tmp_path, seed=5,
                                     time_limit=4.0)
  assert len(calls) == 4
  assert any("endless loop" in note for note in report.notes)
  assert all(r.earned == pytest.approx(r.points * 3 / 4, abs=0.01) for r in report.results)


async def test_missing_function_gives_a_zero_report():
  report = await run_exercise_checks("forget_user", None)
  assert report.score == 0 and "no function named" in report.notes[0]
  report = await run_exercise_checks("forget_user", 42)
  assert report.score == 0 and "not a function" in report.notes[0]


def test_what_the_contract_leaves_open_is_listed_with_reasons():
  assert all(rule.why for rule in EXERCISE.leaves_open)
  assert {c.name for c in EXERCISE.checks} >= {"no_trace_left", "file_stays_adks"}
  assert Path(EXERCISE.lesson + ".ipynb").name == "02_sqlite_memory.ipynb"


# --- SQLite's own files, extended attributes, writes outside the world ------------------------

async def _reference_world(tmp_path: Path, seed: int) -> tuple[dict, Path, bytes]:
  """A WAL world after the reference ran, with the tutor's connection still open: (spec,
  folder, the -shm's bytes at that moment)."""
  from google.adk.sessions.sqlite_session_service import SqliteSessionService

  from adkcourse.grade.checks._world import sqlite_secure_delete_off

  spec = spec_for(seed)
  assert spec["journal"] == "wal"
  tmp_path.mkdir(parents=True)
  await build(spec, tmp_path, Resources())
  db = str(tmp_path / DB_NAME)
  with sqlite_secure_delete_off():
    tutor = sqlite3.connect(db)
    try:
      tutor.execute("SELECT count(*) FROM sessions").fetchall()
      await forget_user(SqliteSessionService(db), db, spec["app"], spec["user"])
      shm = (tmp_path / f"{DB_NAME}-shm").read_bytes()
    finally:
      tutor.close()
  return spec, tmp_path, shm


async def test_the_wal_index_sqlite_leaves_is_explained_and_a_doctored_one_is_not(tmp_path):
  """The -shm SQLite leaves after the reference (stale page numbers and their hash tables
  included) passes ``shm_problem``; any byte changed, or added, does not."""
  from adkcourse.grade.checks._forget_user_support import shm_problem

  for seed in (1, 2, 5):
    _, _, shm = await _reference_world(tmp_path / str(seed), seed)
    assert shm_problem(shm, 4096, 200) is None
    assert shm_problem(shm + b"\x1f\x8b" + bytes(100), 4096, 200)  # appended
    assert shm_problem(shm, 4096, 3)  # page numbers the file never had
    for offset in (20, 100, 136 + 4 * 3000, 16384 + 2 * 7000, 32767):
      doctored = bytearray(shm)
      doctored[offset] ^= 0x5A
      assert shm_problem(bytes(doctored), 4096, 200), offset


def test_bytes_sqlite_never_reads_in_the_main_file_are_named(tmp_path):
  from adkcourse.grade.checks._forget_user_support import main_file_problem

  path = tmp_path / "x.db"
  with closing(sqlite3.connect(path)) as db:
    db.execute("CREATE TABLE t (v)")
    db.executemany("INSERT INTO t VALUES (?)", [("x" * 500,)] * 40)
    db.commit()
    assert main_file_problem(path.read_bytes()) is None
    db.execute("DELETE FROM t")
    db.commit()
  assert "free list" in main_file_problem(path.read_bytes())
  with closing(sqlite3.connect(path)) as db:
    db.execute("VACUUM")
  assert main_file_problem(path.read_bytes()) is None
  assert "past its" in main_file_problem(path.read_bytes() + b"BZh91AY&SY")


def test_the_census_sees_extended_attributes_and_empty_folders(tmp_path):
  import os

  from adkcourse.grade.checks._forget_user_support import as_observation, census

  (tmp_path / "a.db").write_bytes(b"x")
  (tmp_path / "empty" / "deeper").mkdir(parents=True)
  try:
    os.setxattr(tmp_path / "a.db", "user.backup", b"\x78\x9c" + bytes(50))
    os.setxattr(tmp_path, "user.backup", b"\x78\x9c")
  except OSError:
    pytest.skip("no user extended attributes on this file system")
  observed = as_observation(census(tmp_path), ("folder",))
  assert observed[("folder", "xattr", "a.db", "user.backup")]["size"] == 52
  assert ("folder", "xattr", ".", "user.backup") in observed
  assert observed[("folder", "file", "empty/deeper")] == "folder"
