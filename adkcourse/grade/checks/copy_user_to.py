"""Checks of the lesson-3 exercise ``copy_user_to`` (move a user from SQLite to PostgreSQL).

Contract: ``async def copy_user_to(source, dest, app_name, user_id) -> None`` copies one user's
sessions (same ids, own state), their events in order, and the user state from ``source`` (a
``SqliteSessionService``) into ``dest``.

Grading needs no PostgreSQL: ``dest`` is a ``DatabaseSessionService`` on
``sqlite+aiosqlite``, the same class and code path as ``postgresql+asyncpg``. The source holds
the user to copy (``ada``: two sessions, a user-state key set only at creation, a session key
no event touches) and another user; ``dest`` already holds a third user, who must stay as is.

Ada's two sessions interleave: Tuesday's session writes newer ``user:level`` and
``user:streak`` values, then Ada goes back to Monday's session, which becomes the session
updated last while still holding the older ``user:level`` write. Replaying events in any
session order leaves one of those keys with an old value (events replay their ``state_delta``),
so only a copy that writes the user state after the events gets ``user_state_latest``.
"""

from __future__ import annotations

import sqlite3
import time
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from google.adk.events import Event, EventActions
from google.adk.sessions.sqlite_session_service import SqliteSessionService
from google.genai import types

from ._base import Exercise, Trial, call_submission, check, legacy_phases

APP = "tutor"
TARGET = "ada"
PREFIXES = ("user:", "app:", "temp:")

# The source, in time order: ("create", user, session id, state at creation) or
# ("say", user, session id, text, state delta).
SOURCE_TIMELINE = [
    ("create", TARGET, "ada-monday", {"started_from": "web", "user:plan": "pro"}),
    ("say", TARGET, "ada-monday", "Hello, I'm Ada",
     {"user:level": "beginner", "topic": "sessions"}),
    ("say", TARGET, "ada-monday", "What is an event?", {"topic": "events"}),
    ("create", "grace", "grace-1", {}),
    ("say", "grace", "grace-1", "Hi", {"user:level": "advanced"}),
    ("create", TARGET, "ada-tuesday", {"started_from": "cli"}),
    ("say", TARGET, "ada-tuesday", "I'm back", {"user:level": "intermediate", "topic": "state"}),
    ("say", TARGET, "ada-tuesday", "Quiz me", {"user:streak": 2}),
    # Back to Monday's session: updated last now, yet its user:level write is the older one.
    ("say", TARGET, "ada-monday", "One more quiz", {"user:streak": 3}),
    ("say", TARGET, "ada-monday", "Thanks!", {}),
]
DEST_TIMELINE = [
    ("create", "alan", "alan-1", {"topic": "postgres"}),
    ("say", "alan", "alan-1", "Hello from Postgres", {}),
]


def _user_writes(timeline: list, user: str) -> dict[str, list[tuple[str, Any]]]:
  """Each user-state key of ``user`` -> [(session id, value written), ...] in time order."""
  writes: dict[str, list[tuple[str, Any]]] = {}
  for step in timeline:
    if step[1] != user:
      continue
    state = step[3] if step[0] == "create" else step[4]
    for key, value in state.items():
      if key.startswith("user:"):
        writes.setdefault(key[len("user:"):], []).append((step[2], value))
  return writes


# Keys written more than once, from more than one session: their latest value is what counts.
CONTESTED = tuple(sorted(key for key, writes in _user_writes(SOURCE_TIMELINE, TARGET).items()
                         if len({session for session, _ in writes}) > 1))


@dataclass
class SessionView:
  """What matters of one stored session: its own state and its events."""

  own_state: dict[str, Any]
  events: list[tuple]  # (id, author, text, state_delta) in order


@dataclass
class CopyTrial(Trial):
  source_user: dict[str, SessionView] = field(default_factory=dict)
  source_user_state: dict[str, Any] = field(default_factory=dict)
  dest_user: dict[str, SessionView] = field(default_factory=dict)
  dest_user_state: dict[str, Any] = field(default_factory=dict)
  dest_other_users: list[str] = field(default_factory=list)
  other_before: dict[str, SessionView] = field(default_factory=dict)
  other_after: dict[str, SessionView] = field(default_factory=dict)
  source_rows_before: list[tuple] = field(default_factory=list)
  source_rows_after: list[tuple] = field(default_factory=list)


def _event(session_id: str, number: int, text: str, delta: dict, timestamp: float) -> Event:
  return Event(invocation_id=f"{session_id}-{number}", author="user", timestamp=timestamp,
               content=types.Content(role="user", parts=[types.Part(text=text)]),
               actions=EventActions(state_delta=delta))


async def fill(service, app: str, timeline: list) -> None:
  """Play a timeline into ``service``. Event times strictly increase, so that the order of
  ``list_sessions`` (by last update) is the timeline's, never a tie broken by id."""
  sessions: dict[str, Any] = {}
  counts: dict[str, int] = {}
  last = 0.0
  for step in timeline:
    kind, user, session_id = step[:3]
    if kind == "create":
      sessions[session_id] = await service.create_session(
          app_name=app, user_id=user, session_id=session_id, state=step[3])
      counts[session_id] = 0
      continue
    text, delta = step[3:]
    counts[session_id] += 1
    last = max(time.time(), last + 0.001)
    await service.append_event(sessions[session_id],
                               _event(session_id, counts[session_id], text, delta, last))


def _text(event: Event) -> str:
  parts = event.content.parts if event.content and event.content.parts else []
  return "".join(p.text or "" for p in parts)


async def read_user(service, app: str, user: str) -> dict[str, SessionView]:
  """Every session of one user, read back through the service."""
  views = {}
  listed = await service.list_sessions(app_name=app, user_id=user)
  for item in listed.sessions:
    session = await service.get_session(app_name=app, user_id=user, session_id=item.id)
    if session is None:
      continue
    own = {k: v for k, v in session.state.items() if not k.startswith(PREFIXES)}
    events = [(e.id, e.author, _text(e), dict(e.actions.state_delta or {}))
              for e in session.events]
    views[session.id] = SessionView(own, events)
  return views


def _source_rows(db_path: str) -> list[tuple]:
  rows: list[tuple] = []
  with closing(sqlite3.connect(db_path)) as connection:
    for table in ("app_states", "user_states", "sessions", "events"):
      try:
        rows += [(table, *r) for r in connection.execute(f"SELECT * FROM {table}")]
      except sqlite3.Error:
        rows.append((table, "missing"))
  return sorted(rows, key=repr)


async def run_trial(fn: Callable, workdir: Path, time_limit: Optional[float] = None
                    ) -> CopyTrial:
  from google.adk.sessions.database_session_service import DatabaseSessionService

  workdir = Path(workdir)
  source_path = str(workdir / "source.db")
  source = SqliteSessionService(source_path)
  dest = DatabaseSessionService(f"sqlite+aiosqlite:///{workdir / 'dest.db'}")
  try:
    await fill(source, APP, SOURCE_TIMELINE)
    await fill(dest, APP, DEST_TIMELINE)
    trial = CopyTrial(
        source_user=await read_user(source, APP, TARGET),
        source_user_state=await source.get_user_state(app_name=APP, user_id=TARGET),
        other_before=await read_user(dest, APP, "alan"),
        source_rows_before=_source_rows(source_path))
    await call_submission(trial, fn, source, dest, APP, TARGET, is_async=True,
                          time_limit=time_limit)
    trial.source_rows_after = _source_rows(source_path)
    trial.dest_user = await read_user(dest, APP, TARGET)
    trial.dest_user_state = await dest.get_user_state(app_name=APP, user_id=TARGET)
    trial.other_after = await read_user(dest, APP, "alan")
    everyone = await dest.list_sessions(app_name=APP)
    trial.dest_other_users = sorted({s.user_id for s in everyone.sessions} - {TARGET, "alan"})
    trial.acted = bool(trial.dest_user or trial.dest_user_state or trial.dest_other_users
                       or trial.other_after != trial.other_before
                       or trial.source_rows_after != trial.source_rows_before)
  finally:
    await dest.close()
  return trial


@check(2)
def sessions_copied(trial: CopyTrial) -> tuple[float, str]:
  """Every session of the user exists in ``dest`` with the same id, and no other."""
  wanted, got = set(trial.source_user), set(trial.dest_user)
  if wanted == got:
    return 1, f"all {len(wanted)} sessions copied with their ids"
  if wanted < got:
    extra = ", ".join(sorted(got - wanted))
    return 0.5, (f"all {len(wanted)} sessions copied, but dest also holds {extra} for this "
                 "user, which the source does not have: a copy adds no sessions of its own "
                 "(delete any session you create only to write state)")
  if len(got) == len(wanted):
    return 0.5, ("the right number of sessions, but with new ids: pass session_id= to "
                 "create_session so that links and --resume keep working")
  return 0, f"{len(wanted & got)} of {len(wanted)} sessions found in dest under their id"


def _event_difference(source: list[tuple], dest: list[tuple]) -> str:
  """Why one copied session's events differ from the source's, in a few words."""
  if dest[: len(source)] == source and len(dest) > len(source):
    return (f"{len(dest) - len(source)} event(s) more than the source: a copy adds no "
            "events of its own")
  if [e[0] for e in dest] == [e[0] for e in source]:
    return ("the same events, changed (text or state_delta): append each event as the "
            "source stores it")
  return f"{len(dest)} event(s) where the source has {len(source)}"


@check(3)
def events_copied(trial: CopyTrial) -> tuple[float, str]:
  """Each copied session holds the source's events, same ids and contents, in order."""
  matching = [sid for sid, view in trial.source_user.items()
              if sid in trial.dest_user and trial.dest_user[sid].events == view.events]
  total = len(trial.source_user)
  if len(matching) == total:
    count = sum(len(v.events) for v in trial.source_user.values())
    return 1, f"all {count} events copied, in order"
  copied = sum(len(v.events) for v in trial.dest_user.values())
  reasons = [f"{sid}: {_event_difference(view.events, trial.dest_user[sid].events)}"
             for sid, view in sorted(trial.source_user.items())
             if sid in trial.dest_user and trial.dest_user[sid].events != view.events
             and trial.dest_user[sid].events]
  if reasons:
    return len(matching) / total, (
        f"events match in {len(matching)} of {total} sessions; " + "; ".join(reasons))
  return len(matching) / total, (
      f"events match in {len(matching)} of {total} sessions ({copied} events in dest): "
      "list_sessions returns sessions without events; read each one with get_session and "
      "append its events in order")


@check(2)
def session_state_copied(trial: CopyTrial) -> tuple[float, str]:
  """Each copied session has the source session's own state (keys without a prefix)."""
  same = [sid for sid, view in trial.source_user.items()
          if sid in trial.dest_user and trial.dest_user[sid].own_state == view.own_state]
  total = len(trial.source_user)
  if len(same) == total:
    return 1, "each session's own state is the same as in the source"
  return len(same) / total, (
      f"session state matches in {len(same)} of {total} sessions: keys set when a session "
      "was created appear in no event, so pass the session's state to create_session")


@check(2)
def user_state_copied(trial: CopyTrial) -> tuple[float, str]:
  """``dest``'s user state has every key of the source's, with the same value for the keys
  written once (the keys written from several sessions are ``user_state_latest``'s)."""
  want, got = trial.source_user_state, trial.dest_user_state
  missing = sorted(k for k in want if k not in got)
  extra = sorted(k for k in got if k not in want)
  wrong = sorted(k for k in want if k in got and k not in CONTESTED and got[k] != want[k])
  if not (missing or extra or wrong):
    return 1, f"every user-state key copied ({', '.join(sorted(want))})"
  problems = []
  if missing:
    problems.append(f"missing {', '.join(missing)}")
  if wrong:
    problems.append(f"different values for {', '.join(wrong)}")
  if extra:
    problems.append(f"keys the source does not have: {', '.join(extra)}")
  return 0, (f"user state: {'; '.join(problems)}. Read it with source.get_user_state and write "
             "it with user:-prefixed keys (a key set at creation, like plan, is in no event)")


@check(2)
def user_state_latest(trial: CopyTrial) -> tuple[float, str]:
  """User keys written from several sessions keep their latest value, even though the
  session updated last holds an older write."""
  want, got = trial.source_user_state, trial.dest_user_state
  wrong = [k for k in CONTESTED if got.get(k) != want.get(k)]
  if not wrong:
    values = ", ".join(f"{k}={want.get(k)!r}" for k in CONTESTED)
    return 1, f"the latest values won ({values})"
  if all(k not in got for k in wrong):
    return 0, (f"{', '.join(wrong)} missing from dest's user state, so their latest values "
               "cannot be there (see user_state_copied)")
  found = ", ".join(f"{k} is {got[k]!r} instead of {want.get(k)!r}" if k in got
                    else f"{k} is missing (the source has {want.get(k)!r})" for k in wrong)
  return 0, (f"{found}: appending an event replays its state_delta, so an older session's "
             "user: write can overwrite a newer one, whatever order the sessions are copied "
             "in. Write the source's user state once more after the last event: "
             "create_session(state={'user:...': ...}) writes it without adding an event, "
             "and delete_session keeps user state")


@check(1, needs_action=True)
def only_that_user(trial: CopyTrial) -> tuple[float, str]:
  """No other user of the source was copied."""
  if not trial.dest_other_users:
    return 1, "only the requested user was copied"
  return 0, (f"other users were copied too ({', '.join(trial.dest_other_users)}): pass "
             "user_id= to list_sessions")


@check(1, needs_action=True)
def dest_others_untouched(trial: CopyTrial) -> tuple[float, str]:
  """What ``dest`` already held for other users is unchanged."""
  if trial.other_after == trial.other_before:
    return 1, "dest's existing users are unchanged"
  return 0, "an existing user of dest was changed or removed: only add the copied user's data"


@check(1, needs_action=True)
def source_untouched(trial: CopyTrial) -> tuple[float, str]:
  """The source file is unchanged: a copy, not a move."""
  if trial.source_rows_after == trial.source_rows_before:
    return 1, "the source is unchanged"
  return 0, "the source file changed: copy_user_to must only read from source"


EXERCISE = Exercise(
    name="copy_user_to",
    lesson="03_postgres",
    signature="async def copy_user_to(source, dest, app_name: str, user_id: str) -> None",
    is_async=True,
    **legacy_phases(run_trial, (sessions_copied, events_copied, session_state_copied, user_state_copied,
            user_state_latest, only_that_user, dest_others_untouched, source_untouched)),
)
