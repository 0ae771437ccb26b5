"""Checks of the lesson-2 exercise ``forget_user`` (erase a student from a SQLite store).

Contract: ``async def forget_user(service, db_path, app_name, user_id) -> None`` deletes the
user's sessions through the service API (their events go with them), then the user's
``user_states`` row with SQL, and leaves everything else alone.

The trial builds a fresh SQLite file with ``SqliteSessionService``: the user to forget
(``ada``, two sessions in app ``tutor``), two other users of the same app, the same user id
``ada`` in another app, and app state. It snapshots the four tables, runs the submission, and
snapshots them again. Every check compares the two snapshots.
"""

from __future__ import annotations

import sqlite3
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from google.adk.events import Event, EventActions
from google.adk.sessions.sqlite_session_service import SqliteSessionService
from google.genai import types

from ._base import Exercise, Trial, call_submission, check

APP = "tutor"
OTHER_APP = "quiz_master"
TARGET = "ada"
TABLES = ("app_states", "user_states", "sessions", "events")
_QUERIES = {
    "app_states": "SELECT app_name, state FROM app_states",
    "user_states": "SELECT app_name, user_id, state FROM user_states",
    "sessions": "SELECT app_name, user_id, id, state FROM sessions",
    "events": "SELECT app_name, user_id, session_id, id, event_data FROM events",
}

# (app, user, session id, initial session state, [(user text, state delta), ...])
WORLD = [
    (APP, TARGET, "ada-monday", {"topic": "sessions"},
     [("Hello, I'm Ada", {"user:level": "beginner", "app:course_version": 2}),
      ("What is an event?", {"topic": "events"})]),
    (APP, TARGET, "ada-tuesday", {},
     [("I'm back", {"user:level": "intermediate", "user:streak": 2})]),
    (APP, "grace", "grace-1", {"topic": "state"},
     [("Hi", {"user:level": "advanced"}), ("Explain user: keys", {"topic": "prefixes"})]),
    (APP, "alan", "alan-1", {}, [("Just looking", {})]),
    (OTHER_APP, TARGET, "ada-quiz", {},
     [("Quiz me", {"user:score": 3, "app:quiz_count": 6})]),
]

Snapshot = dict[str, Optional[list[tuple]]]  # table -> sorted rows (None: table is gone)


class RecordingSqliteSessionService(SqliteSessionService):
  """A ``SqliteSessionService`` that remembers which sessions were deleted through it."""

  def __init__(self, db_path: str):
    super().__init__(db_path)
    self.deleted: list[tuple[str, str, str]] = []

  async def delete_session(self, *, app_name: str, user_id: str, session_id: str) -> None:
    self.deleted.append((app_name, user_id, session_id))
    await super().delete_session(app_name=app_name, user_id=user_id, session_id=session_id)


@dataclass
class ForgetTrial(Trial):
  before: Snapshot = field(default_factory=dict)
  after: Snapshot = field(default_factory=dict)
  deleted_through_api: list[tuple[str, str, str]] = field(default_factory=list)


def snapshot(db_path: str) -> Snapshot:
  """Every row of the four tables, sorted (stdlib sqlite3: fast and independent of ADK)."""
  rows: Snapshot = {}
  with closing(sqlite3.connect(db_path)) as connection:
    for table in TABLES:
      try:
        rows[table] = sorted(connection.execute(_QUERIES[table]).fetchall())
      except sqlite3.Error:
        rows[table] = None
  return rows


async def build_world(service: SqliteSessionService) -> None:
  """The data every submission starts from (a fresh file each time)."""
  for app, user, session_id, state, turns in WORLD:
    session = await service.create_session(app_name=app, user_id=user, session_id=session_id,
                                           state=state)
    for number, (text, delta) in enumerate(turns, start=1):
      event = Event(invocation_id=f"{session_id}-{number}", author="user",
                    content=types.Content(role="user", parts=[types.Part(text=text)]),
                    actions=EventActions(state_delta=delta))
      await service.append_event(session, event)


async def run_trial(fn: Callable, workdir: Path, time_limit: Optional[float] = None
                    ) -> ForgetTrial:
  db_path = str(Path(workdir) / "forget_user.db")
  service = RecordingSqliteSessionService(db_path)
  await build_world(service)
  trial = ForgetTrial(before=snapshot(db_path))
  await call_submission(trial, fn, service, db_path, APP, TARGET, is_async=True,
                        time_limit=time_limit)
  trial.after = snapshot(db_path)
  trial.acted = trial.after != trial.before
  trial.deleted_through_api = list(service.deleted)
  for table in TABLES:
    if trial.after.get(table) is None:
      trial.notes.append(f"the table `{table}` no longer exists: drop rows, never tables")
  return trial


def _is_target(row: tuple) -> bool:
  return row[0] == APP and row[1] == TARGET


def _rows(snap: Snapshot, table: str, keep: Callable[[tuple], bool]) -> Optional[list[tuple]]:
  rows = snap.get(table)
  return None if rows is None else [r for r in rows if keep(r)]


def _gone(table: str) -> tuple[float, str]:
  return 0, f"the `{table}` table itself is gone: delete the user's rows, not the table"


@check(3)
def sessions_removed(trial: ForgetTrial) -> tuple[float, str]:
  """No session of the user is left in the app."""
  left = _rows(trial.after, "sessions", _is_target)
  if left is None:
    return _gone("sessions")
  had = len(_rows(trial.before, "sessions", _is_target) or [])
  if not left:
    return 1, f"all {had} of {TARGET}'s sessions are gone"
  return 0, (f"{len(left)} of {TARGET}'s {had} sessions are still there: list them with "
             "list_sessions(app_name=..., user_id=...) and delete each one")


@check(1)
def deleted_through_api(trial: ForgetTrial) -> tuple[float, str]:
  """Each of the user's sessions was deleted with ``service.delete_session``."""
  wanted = {r[2] for r in _rows(trial.before, "sessions", _is_target) or []}
  called = {sid for app, user, sid in trial.deleted_through_api if (app, user) == (APP, TARGET)}
  if wanted <= called:
    return 1, "sessions deleted through the service API (works on every backend)"
  return 0, (f"delete_session was called for {len(wanted & called)} of {len(wanted)} sessions: "
             "the contract asks for the service API (list_sessions + delete_session), which "
             "also removes the events and works the same on PostgreSQL")


@check(2)
def events_removed(trial: ForgetTrial) -> tuple[float, str]:
  """No event of the user is left."""
  left = _rows(trial.after, "events", _is_target)
  if left is None:
    return _gone("events")
  if not left:
    return 1, f"none of {TARGET}'s events is left"
  return 0, (f"{len(left)} of {TARGET}'s events are still stored (deleting a session with raw "
             "SQL does not cascade unless foreign keys are on; delete_session removes them)")


@check(3)
def user_state_removed(trial: ForgetTrial) -> tuple[float, str]:
  """The user's ``user_states`` row is gone."""
  left = _rows(trial.after, "user_states", _is_target)
  if left is None:
    return _gone("user_states")
  if not left:
    return 1, f"{TARGET}'s user_states row is gone"
  return 0, (f"{TARGET}'s user_states row survived: delete_session never removes user state "
             "and no ADK API does, so delete it with SQL: DELETE FROM user_states WHERE "
             "app_name=? AND user_id=?")


def _others_same_app(row: tuple) -> bool:
  return row[0] == APP and row[1] != TARGET


def _other_apps(row: tuple) -> bool:
  return row[0] != APP


def _unchanged(trial: ForgetTrial, keep: Callable[[tuple], bool]) -> list[str]:
  """Tables (among user_states, sessions, events) whose kept rows changed."""
  return [table for table in ("sessions", "events", "user_states")
          if _rows(trial.before, table, keep) != _rows(trial.after, table, keep)]


@check(2, needs_action=True)
def other_users_untouched(trial: ForgetTrial) -> tuple[float, str]:
  """Other users of the same app keep their sessions, events and user state."""
  changed = _unchanged(trial, _others_same_app)
  if not changed:
    return 1, "other users' sessions, events and state are unchanged"
  return 0, (f"other users' data changed in {', '.join(changed)}: filter every delete on "
             "app_name AND user_id")


@check(1, needs_action=True)
def other_apps_untouched(trial: ForgetTrial) -> tuple[float, str]:
  """The same user id in another app is a different user: left untouched."""
  changed = _unchanged(trial, _other_apps)
  if not changed:
    return 1, f"{TARGET}'s data in the app {OTHER_APP!r} is unchanged"
  return 0, (f"data of another app changed in {', '.join(changed)}: a user is identified "
             "by (app_name, user_id), so filter on both")


@check(1, needs_action=True)
def app_state_untouched(trial: ForgetTrial) -> tuple[float, str]:
  """``app_states`` is shared by every user of an app: unchanged."""
  if trial.before.get("app_states") == trial.after.get("app_states"):
    return 1, "app_states is unchanged"
  return 0, "app_states changed: app state belongs to every user of the app, leave it alone"


EXERCISE = Exercise(
    name="forget_user",
    lesson="02_sqlite_memory",
    signature="async def forget_user(service, db_path: str, app_name: str, user_id: str) -> None",
    is_async=True,
    run_trial=run_trial,
    checks=(sessions_removed, deleted_through_api, events_removed, user_state_removed,
            other_users_untouched, other_apps_untouched, app_state_untouched),
)
