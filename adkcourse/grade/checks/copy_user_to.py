"""Checks of the lesson-3 exercise ``copy_user_to`` (move a user between SQLite and PostgreSQL).

Contract: ``async def copy_user_to(source, dest, app_name, user_id) -> None`` copies one
user's sessions (same ids, own state), every event exactly as stored (ids, timestamps,
invocation ids, authors, parts, actions) and their user state as the source has it now, from
one session service into another. Nothing ``dest`` already holds is destroyed: other users, the
same id in other apps, and this user's own sessions and user-state keys that exist only in
``dest``. Data that PostgreSQL cannot hold (an id over 128 characters, the character U+0000)
is refused with ``ValueError`` before anything is written: no half copy. The app's state is
the app's, not the user's: whether replayed events change ``dest``'s is left open.

Each run copies five times on the real PostgreSQL (``Resources.postgres_url``: the course's
embedded server in the self-check), with names drawn from the run's seed:

1. SQLite -> PostgreSQL: a quoted user id, a session id of exactly 128 characters, text with
   an emoji and a literal ``\\u0000`` (six characters, which PostgreSQL holds);
2. PostgreSQL -> SQLite: a user id with a look-alike (same prefix) in both stores;
3. SQLite -> PostgreSQL, one session id of 200 characters: must be refused;
4. SQLite -> PostgreSQL, a U+0000 inside a nested user-state value set without an event:
   must be refused;
5. SQLite -> PostgreSQL, a U+0000 in the text of a message (in no state): must be refused.

In every source the user's sessions interleave: a later session writes newer ``user:``
values, then the user goes back to an earlier one, which becomes the session updated last
while holding the older writes. Replaying events (they carry ``state_delta``) in any session
order leaves an old value somewhere, so the user state must be written after the events. One
session has no events in scenario 1 (listed last: a copy must still create it); in scenario 2
every session has events, so the session listed last is the stale one. The
checks read both stores themselves (stdlib ``sqlite3``, ``asyncpg``) and compare
backend-independent views: events as ADK reads them back, compared field by field.
"""

from __future__ import annotations

import json
import random
import secrets
import sqlite3
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from google.adk.events import Event
from google.adk.sessions.sqlite_session_service import SqliteSessionService

from ..safe_sqlite import open_untrusted
from ...postgres import connect
from ._base import Exercise, Resources, TimeBudget, Trial, call_submission, check, untrusted_notes, \
  untrusted_raised
from ._world import (FIRST_NAMES, Clock, app_name, conversation_turn, quoted_user_id, rng_for,
                     secret)

AGENT = "tutor_agent"
PREFIXES = ("user:", "app:", "temp:")
LEVELS = ("beginner", "novice", "intermediate", "advanced", "expert", "mentor")


# --- the stores: build them, and read them back the same way whatever the backend -------------

def open_service(store: dict[str, Any]):
  """A session service on ``store`` ({"kind": "sqlite", "path"} or {"kind": "postgres", "url"})."""
  if store["kind"] == "sqlite":
    return SqliteSessionService(store["path"])
  from google.adk.sessions.database_session_service import DatabaseSessionService

  return DatabaseSessionService(store["url"])


async def close_service(service: Any) -> None:
  close = getattr(service, "close", None)
  if close is not None:
    try:
      await close()
    except Exception:  # noqa: BLE001 - a submission may have closed or broken it already
      pass


def canonical_event(data: Any, columns: Optional[dict[str, Any]] = None) -> dict[str, Any]:
  """An event as ADK reads it back, as JSON data: SQLite's ``event_data`` alone; PostgreSQL's
  ``event_data`` with ``id`` and ``invocation_id`` from their columns (as ``to_event`` does)."""
  if not isinstance(data, dict):
    return {"unreadable": repr(data)[:200]}
  merged = dict(data)
  if columns:
    merged.update(columns)
  try:
    return Event.model_validate(merged).model_dump(mode="json", exclude_none=True)
  except Exception as error:  # noqa: BLE001 - written by the submission, maybe broken
    return {"unreadable": f"{type(error).__name__}: {str(error)[:200]}"}


def _loads(text: Any) -> Any:
  if isinstance(text, (dict, list)):
    return text
  try:
    return json.loads(text)
  except (TypeError, ValueError):
    return {"unreadable": repr(text)[:200]}


def _view(sessions: list[tuple], events: list[tuple], user_states: list[tuple],
          app_states: list[tuple], apps: Optional[list[str]] = None) -> dict[str, Any]:
  """The backend-independent view: sessions with their own state and events, user states,
  app states; sorted, JSON-able. ``events`` rows are (app, user, session id, event dict).
  ``apps``: only rows of these apps (several scenarios share one PostgreSQL database)."""
  if apps is not None:
    sessions, events, user_states, app_states = (
        [r for r in rows if r[0] in apps] for rows in (sessions, events, user_states, app_states))
  by_session: dict[tuple, list] = {}
  for app, user, session_id, event in events:
    by_session.setdefault((app, user, session_id), []).append(event)
  view_sessions = [{"app": app, "user": user, "id": sid, "state": _loads(state),
                    "events": by_session.get((app, user, sid), [])}
                   for app, user, sid, state in sessions]
  orphans = sorted({key for key in by_session} - {(s["app"], s["user"], s["id"])
                                                  for s in view_sessions})
  view = {
      "sessions": sorted(view_sessions, key=lambda s: (s["app"], s["user"], s["id"])),
      "user_states": sorted(({"app": a, "user": u, "state": _loads(s)} for a, u, s in user_states),
                            key=lambda r: (r["app"], r["user"])),
      "app_states": sorted(({"app": a, "state": _loads(s)} for a, s in app_states),
                           key=lambda r: r["app"]),
      "orphan_events": [list(key) for key in orphans],
  }
  return json.loads(json.dumps(view))


def read_sqlite(path: str, apps: Optional[list[str]] = None, trusted: bool = False
                ) -> Optional[dict[str, Any]]:
  """A SqliteSessionService file's view, read with stdlib sqlite3 (None: unreadable, or not
  ADK's schema: a file the submission left is opened read-only with caps, ``safe_sqlite``)."""
  if not Path(path).is_file():
    return None
  try:
    with closing(sqlite3.connect(path) if trusted else open_untrusted(path)) as db:
      sessions = db.execute("SELECT app_name, user_id, id, state FROM sessions").fetchall()
      events = [(a, u, s, canonical_event(_loads(data))) for a, u, s, data in db.execute(
          "SELECT app_name, user_id, session_id, event_data FROM events "
          "ORDER BY timestamp, rowid")]
      users = db.execute("SELECT app_name, user_id, state FROM user_states").fetchall()
      app_rows = db.execute("SELECT app_name, state FROM app_states").fetchall()
  except sqlite3.Error:
    return None
  return _view(sessions, events, users, app_rows, apps)


async def read_postgres(url: str, apps: Optional[list[str]] = None) -> Optional[dict[str, Any]]:
  """A DatabaseSessionService database's view, read with a fresh asyncpg connection.

  ``search_path`` is pinned to ``pg_catalog`` and every table named with its schema: a
  submission may own objects in this database (a schema, a view, a function named like a
  table or a cast), and none of them must stand in for ADK's tables when the judge reads."""
  try:
    connection = await connect(url, search_path="pg_catalog")
  except Exception:  # noqa: BLE001
    return None
  try:
    sessions = [tuple(r) for r in await connection.fetch(
        "SELECT app_name, user_id, id, state::text FROM public.sessions")]
    events = [(r[0], r[1], r[2], canonical_event(_loads(r[3]), {
        "id": r[4], "invocation_id": r[5]})) for r in await connection.fetch(
        "SELECT app_name, user_id, session_id, event_data::text, id, invocation_id "
        "FROM public.events ORDER BY timestamp, id")]
    users = [tuple(r) for r in await connection.fetch(
        "SELECT app_name, user_id, state::text FROM public.user_states")]
    app_rows = [tuple(r) for r in await connection.fetch(
        "SELECT app_name, state::text FROM public.app_states")]
  except Exception:  # noqa: BLE001 - tables dropped or changed by the submission
    return None
  finally:
    await connection.close()
  return _view(sessions, events, users, app_rows, apps)


async def read_store(store: dict[str, Any], apps: list[str], trusted: bool = False
                     ) -> Optional[dict[str, Any]]:
  """The view of ``store`` restricted to ``apps`` (one scenario's); ``trusted``: the judge's
  own file, before the submission ran."""
  if store["kind"] == "sqlite":
    return read_sqlite(store["path"], apps, trusted)
  return await read_postgres(store["url"], apps)


# --- prepare -------------------------------------------------------------------------------------

class Writer:
  """Plays sessions and conversations into a service, marking nothing (the checks compare
  whole views, not markers)."""

  def __init__(self, service: Any, rng: random.Random, clock: Clock):
    self.service, self.rng, self.clock = service, rng, clock
    self.sessions: dict[str, Any] = {}

  async def create(self, app: str, user: str, session_id: str, state: dict[str, Any]) -> None:
    self.sessions[session_id] = await self.service.create_session(
        app_name=app, user_id=user, session_id=session_id, state=state)

  async def turn(self, session_id: str, user_delta: Optional[dict] = None,
                 tool_delta: Optional[dict] = None, metadata: bool = False,
                 text: Optional[str] = None) -> None:
    rng = self.rng
    events = conversation_turn(rng, self.clock, agent=AGENT, mark=lambda: secret(rng),
                               user_delta=user_delta, tool_delta=tool_delta, metadata=metadata)
    if text is not None:
      from google.genai import types

      events[-1].content = types.Content(role="model", parts=[types.Part(text=text)])
    for event in events:
      await self.service.append_event(self.sessions[session_id], event)


def _profile(rng: random.Random, level: str) -> dict[str, Any]:
  return {"level": level, "badges": rng.sample(["sql", "json", "state", "events", "async"], 2),
          "score": round(rng.random(), 3), "verified": rng.random() < 0.5, "mentor": None}


async def _fill_source(writer: Writer, rng: random.Random, *, app: str, user: str,
                       twin_app: str, neighbour: str, ids: dict[str, str],
                       bad: Optional[str] = None, text: Optional[str] = None,
                       idle_last: bool = True) -> None:
  """The source: the user's interleaved sessions, a look-alike user, and the same user in
  another app. ``bad`` is "nul" to put U+0000 in a nested user-state value that no event
  wrote (set by creating ``c``: a check of the events alone misses it), or "nul_text" to put
  it in the text of a message only (a check of the state alone misses it).

  Session ``c`` is created with a ``user:`` key. With ``idle_last`` it has no events, so both
  stores list it last (a session's update time is its creation's wall clock until an event
  moves it to the event's timestamp, 30 days back). Without, it gets a turn before the user
  goes back to ``a``, so ``a``, holding older ``user:`` writes, is listed last: a copy that
  writes the user state when creating each session and then replays events ends on old values.
  Either way ``c``'s creation (no event) sets the latest ``user:level``, so replaying the events
  in time order does not rebuild the user state either. Session ``a`` has an own key with a colon
  (``step:intro``): only ``user:``, ``app:`` and ``temp:`` are prefixes.
  """
  first, newer, newest, placed = rng.sample(LEVELS, 4)
  c_state = {"mood": "curious", "user:joined": "2024-09-01", "user:level": placed}
  if bad == "nul":
    c_state["user:notes"] = {"draft": f"line one\u0000line two {secret(rng)}"}
  if bad == "nul_text":
    text = f"Noted: line one\u0000line two {secret(rng)}"
  await writer.create(app, user, ids["a"], {"goal": {"text": "pass the exam", "weeks": 6},
                                            "step:intro": {"done": True},
                                            "user:plan": {"tier": "pro", "seats": 1}})
  await writer.turn(ids["a"], {"user:level": first},
                    {"progress": {"topic": "sessions", "scores": [rng.randrange(100)]},
                     "user:profile": _profile(rng, first), "app:catalog_version": 3},
                    metadata=True)
  await writer.create(app, neighbour, f"n-{secret(rng)}", {"goal": {"text": "neighbour"}})
  await writer.turn(next(reversed(writer.sessions)), {"user:level": rng.choice(LEVELS)})
  await writer.create(app, user, ids["b"], {"goal": {"text": "revise", "weeks": 2}})
  await writer.turn(ids["b"], {"user:level": newer},
                    {"user:profile": _profile(rng, newer), "topic": "state"}, text=text)
  await writer.turn(ids["b"], {"user:streak": 2, "user:level": newest})
  if not idle_last:
    await writer.create(app, user, ids["c"], c_state)
    await writer.turn(ids["c"], None, {"mood": {"now": "focused", "since": [9, 30]}})
  # Back to the first session: updated last now, yet its user: writes are older ones.
  late = {"user:streak": 3}
  await writer.turn(ids["a"], late, {"progress": {"topic": "events", "scores": [1, 2]}})
  await writer.turn(ids["a"])
  if idle_last:
    await writer.create(app, user, ids["c"], c_state)
  await writer.create(twin_app, user, f"t-{secret(rng)}", {"user:level": "other app"})


async def _fill_dest(writer: Writer, rng: random.Random, *, app: str, user: str, twin_app: str,
                     neighbour: str, bystander: str) -> None:
  """What dest holds already: this user's own session and keys (one key also in the source,
  with an older value), the look-alike user, another user, the same user in another app."""
  own = f"d-{secret(rng)}"
  await writer.create(app, user, own, {"goal": {"text": "from the new system"},
                                       "user:badge_pg": {"since": "2025", "colour": "teal"},
                                       "user:level": "placement-test"})
  await writer.turn(own, {"user:pg_only": rng.randrange(1000)}, {"app:catalog_version": 4})
  await writer.create(app, neighbour, f"n-{secret(rng)}", {"user:level": "kept"})
  await writer.create(app, bystander, f"b-{secret(rng)}", {})
  await writer.turn(next(reversed(writer.sessions)), {"user:level": "bystander"})
  await writer.create(twin_app, user, f"t-{secret(rng)}", {"user:level": "dest other app"})


SCENARIOS = (
    ("to_postgres", "sqlite", "postgres", "copy"),
    ("to_sqlite", "postgres", "sqlite", "copy"),
    ("long_id", "sqlite", "postgres", "refuse"),
    ("nul", "sqlite", "postgres", "refuse"),
    ("nul_text", "sqlite", "postgres", "refuse"),
)
LABELS = {
    "to_postgres": "SQLite -> PostgreSQL",
    "to_sqlite": "PostgreSQL -> SQLite",
    "long_id": "SQLite -> PostgreSQL with a 200-character session id",
    "nul": "SQLite -> PostgreSQL with U+0000 in a user-state value",
    "nul_text": "SQLite -> PostgreSQL with U+0000 in a message",
}


async def _create_database(admin_url: str, name: str) -> str:
  from adkcourse.postgres import PostgresServer

  admin = await connect(admin_url)
  try:
    await admin.execute(f'CREATE DATABASE "{name}"')
    # A trial's data need not survive a crash: commits without waiting for the disk.
    await admin.execute(f'ALTER DATABASE "{name}" SET synchronous_commit = off')
  finally:
    await admin.close()
  return PostgresServer(url=admin_url, embedded=False).database_url(name)


async def _build(workdir: Path, number: int, kind: str, source_kind: str, dest_kind: str,
                 expect: str, rng: random.Random, postgres_url: str,
                 taken: set[str]) -> dict[str, Any]:
  """One scenario: its two stores filled (its PostgreSQL store is the trial's one database,
  under app names of its own), and what they hold before the submission runs."""
  app = app_name(rng, taken)
  twin_app = f"{app}_v2"
  if kind == "to_postgres":
    user = quoted_user_id(rng)
  else:
    user = f"{rng.choice(FIRST_NAMES)}_{rng.randrange(10, 99)}"
  neighbour = f"{user}{rng.randrange(1, 9)}"
  bystander = rng.choice(FIRST_NAMES)
  ids = {"a": f"s-{secret(rng)}", "b": f"s-{secret(rng)}", "c": f"s-{secret(rng)}"}
  text = None
  if kind == "to_postgres":  # the longest id PostgreSQL holds, and text it holds too
    ids["b"] = ("s-" + secret(rng) * 11)[:128]
    text = "In JSON the NUL character is written \\u0000 \U0001F600; PostgreSQL refuses the real one"
  if kind == "long_id":
    ids["a"] = ("s-" + secret(rng) * 17)[:200]  # the session updated last
  stores = {}
  for role, backend in (("source", source_kind), ("dest", dest_kind)):
    if backend == "sqlite":
      stores[role] = {"kind": "sqlite", "path": str(workdir / f"copy_{number}_{role}.db")}
    else:
      stores[role] = {"kind": "postgres", "url": postgres_url}
  clock = Clock(rng)
  for role in ("source", "dest"):
    service = open_service(stores[role])
    try:
      writer = Writer(service, rng, clock)
      if role == "source":
        await _fill_source(writer, rng, app=app, user=user, twin_app=twin_app,
                           neighbour=neighbour, ids=ids, bad=kind if kind.startswith("nul") else None,
                           text=text, idle_last=kind != "to_sqlite")
      else:
        await _fill_dest(writer, rng, app=app, user=user, twin_app=twin_app,
                         neighbour=neighbour, bystander=bystander)
    finally:
      await close_service(service)
  apps = [app, twin_app]
  return {"kind": kind, "label": LABELS[kind], "expect": expect, "app": app, "user": user,
          "apps": apps, "source": stores["source"], "dest": stores["dest"],
          "source_before": await read_store(stores["source"], apps, trusted=True),
          "dest_before": await read_store(stores["dest"], apps, trusted=True)}


async def prepare(workdir: Path, resources: Resources) -> dict[str, Any]:
  if not resources.postgres_url:
    raise ValueError("copy_user_to needs a PostgreSQL server (Resources.postgres_url)")
  seed, rng = rng_for(resources.seed)
  workdir = Path(workdir)
  # One database for the trial (a name no other trial on the same server can have): creating
  # one costs a third of a second, so the scenarios share it, each under its own app names.
  name = f"adkcourse_copy_{secrets.token_hex(6)}"
  setup: dict[str, Any] = {"seed": seed, "databases": [name], "scenarios": []}
  taken: set[str] = set()
  try:
    url = await _create_database(resources.postgres_url, name)
    for number, (kind, source, dest, expect) in enumerate(SCENARIOS, start=1):
      setup["scenarios"].append(await _build(workdir, number, kind, source, dest, expect, rng,
                                             url, taken))
  except BaseException:
    await cleanup(setup, resources)
    raise
  return setup


async def cleanup(setup: dict[str, Any], resources: Resources) -> None:
  """Drop the databases ``prepare`` created (a per-trial server may just be thrown away)."""
  names = [n for n in setup.get("databases", []) if isinstance(n, str)
           and n.replace("_", "").isalnum()]
  if not names or not resources.postgres_url:
    return
  admin = await connect(resources.postgres_url)
  try:
    for name in names:
      await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
  finally:
    await admin.close()


# --- act -----------------------------------------------------------------------------------------

async def act(fn: Callable, workdir: Path, setup: dict[str, Any],  # noqa: ARG001
              time_limit: Optional[float] = None) -> dict[str, Any]:
  """Call ``fn(source, dest, app_name, user_id)`` once per scenario, on fresh service objects."""
  runs = []
  scenarios = setup["scenarios"]
  budget = TimeBudget(time_limit, len(scenarios))
  for scenario in scenarios:
    trial = Trial()
    source, dest = open_service(scenario["source"]), open_service(scenario["dest"])
    try:
      await call_submission(trial, fn, source, dest, scenario["app"], scenario["user"],
                            is_async=True, budget=budget)
    finally:
      await close_service(source)
      await close_service(dest)
    raised = trial.raised[-1] if trial.raised else None
    notes = trial.notes
    if scenario["expect"] == "refuse" and raised and raised["value_error"] and notes:
      notes = notes[:-1]  # the refusal asked for: its message goes into the check's feedback
    runs.append({"notes": notes, "raised": raised})
  return {"runs": runs}


# --- observe -------------------------------------------------------------------------------------

@dataclass
class CopyRun:
  """One scenario after the submission: both stores before and after, what it raised."""

  kind: str
  label: str
  expect: str
  app: str
  user: str
  source_before: Optional[dict[str, Any]]
  source_after: Optional[dict[str, Any]]
  dest_before: Optional[dict[str, Any]]
  dest_after: Optional[dict[str, Any]]
  raised: Optional[dict[str, Any]] = None


@dataclass
class CopyTrial(Trial):
  runs: list[CopyRun] = field(default_factory=list)

  def copies(self) -> list[CopyRun]:
    return [r for r in self.runs if r.expect == "copy"]

  def refusals(self) -> list[CopyRun]:
    return [r for r in self.runs if r.expect == "refuse"]


async def observe(workdir: Path, setup: dict[str, Any], acted: Any) -> CopyTrial:  # noqa: ARG001
  trial = CopyTrial()
  runs = acted.get("runs") if isinstance(acted, dict) else None
  if not (isinstance(runs, list) and len(runs) == len(setup["scenarios"])):
    trial.notes.append("the run's report was malformed; graded on the stores alone")
    runs = [{} for _ in setup["scenarios"]]
  for scenario, run in zip(setup["scenarios"], runs):
    run = run if isinstance(run, dict) else {}
    trial.notes += [f"{scenario['label']}: {note}" for note in (untrusted_notes(run) if run else [])]
    view = CopyRun(scenario["kind"], scenario["label"], scenario["expect"], scenario["app"],
                   scenario["user"], scenario["source_before"],
                   await read_store(scenario["source"], scenario["apps"]),
                   scenario["dest_before"], await read_store(scenario["dest"], scenario["apps"]),
                   untrusted_raised(run.get("raised")))
    for role in ("source", "dest"):
      if getattr(view, f"{role}_after") is None:
        trial.notes.append(f"{scenario['label']}: the {role} store could not be read back "
                           "(tables dropped or changed?)")
    trial.runs.append(view)
  trial.acted = any(r.dest_after != r.dest_before or r.source_after != r.source_before
                    for r in trial.runs)
  return trial


# --- comparing views -------------------------------------------------------------------------------

def same(a: Any, b: Any) -> bool:
  """Equal as JSON data, types included (``1 != 1.0 != True``; a ``str`` is a ``str``)."""
  if type(a) is not type(b):
    return False
  if isinstance(a, dict):
    return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
  if isinstance(a, list):
    return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
  return a == b


def _sessions(view: Optional[dict], app: str, user: str) -> dict[str, dict]:
  return {s["id"]: s for s in (view or {}).get("sessions", [])
          if s["app"] == app and s["user"] == user}


def _user_state(view: Optional[dict], app: str, user: str) -> dict[str, Any]:
  for row in (view or {}).get("user_states", []):
    if row["app"] == app and row["user"] == user and isinstance(row["state"], dict):
      return row["state"]
  return {}


def _own(state: Any) -> Any:
  """A session's own keys: what ``dest`` must reproduce (both stores keep only those per row)."""
  if not isinstance(state, dict):
    return state
  return {k: v for k, v in state.items() if not k.startswith(PREFIXES)}


def _others(view: Optional[dict], app: str, user: str) -> dict[str, Any]:
  """Everything in a view that belongs to someone else (app state left out: see module doc)."""
  view = view or {}
  return {
      "sessions": [s for s in view.get("sessions", [])
                   if (s["app"], s["user"]) != (app, user)],
      "user_states": [u for u in view.get("user_states", [])
                      if (u["app"], u["user"]) != (app, user) and u["state"]],
  }


def _per_run(runs: list[CopyRun], verdict: Callable[[CopyRun], Optional[str]],
             success: str) -> tuple[float, str]:
  if not runs:
    return 0, "no scenario to judge"
  problems = [f"{r.label}: {why}" for r in runs if (why := verdict(r)) is not None]
  if not problems:
    return 1, success
  return 1 - len(problems) / len(runs), "; ".join(problems)


def _failed(run: CopyRun) -> Optional[str]:
  """Why nothing can be judged in a run, if so."""
  if run.dest_after is None:
    return "dest cannot be read back"
  return None


def _short(text: str, size: int = 24) -> str:
  return text if len(text) <= size else text[:size] + f"... ({len(text)} characters)"


def _event_difference(want: list[dict], got: list[dict]) -> str:
  """Why a copied session's events differ from the source's, in a few words."""
  if len(got) != len(want):
    if got[: len(want)] == want:
      return f"{len(got) - len(want)} event(s) more than the source"
    return f"{len(got)} event(s) where the source has {len(want)}"
  for number, (w, g) in enumerate(zip(want, got), start=1):
    if not same(w, g):
      fields = sorted(k for k in set(w) | set(g) if not same(w.get(k), g.get(k)))
      return (f"event {number} differs in {', '.join(fields)}: append each event as the "
              "source stores it (same id, timestamp, invocation id, parts, actions)")
  return "the events differ"


# --- checks -----------------------------------------------------------------------------------------

@check(2)
def sessions_copied(trial: CopyTrial) -> tuple[float, str]:
  """Every session of the user is in ``dest`` under its id, and no session of the user that
  neither store had before."""
  def verdict(run: CopyRun) -> Optional[str]:
    if (why := _failed(run)) is not None:
      return why
    want = _sessions(run.source_before, run.app, run.user)
    had = _sessions(run.dest_before, run.app, run.user)
    got = _sessions(run.dest_after, run.app, run.user)
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want) - set(had))
    if missing:
      return (f"{len(missing)} of {len(want)} sessions are not in dest under their id "
              f"({', '.join(_short(m) for m in missing[:3])}): pass session_id= to create_session")
    if extra:
      return (f"dest also holds {', '.join(_short(e) for e in extra[:3])} for this user, which "
              "the source does not have: a copy adds no sessions of its own (delete any session "
              "you create only to write state)")
    return None

  return _per_run(trial.copies(), verdict, "every session is in dest under its id, none added")


@check(3)
def events_copied(trial: CopyTrial) -> tuple[float, str]:
  """Each copied session holds the source's events, in order, equal in every field: id,
  timestamp, invocation id, author, function calls and responses, actions, metadata."""
  def verdict(run: CopyRun) -> Optional[str]:
    if (why := _failed(run)) is not None:
      return why
    want = _sessions(run.source_before, run.app, run.user)
    got = _sessions(run.dest_after, run.app, run.user)
    wrong = [f"{_short(sid)}: {_event_difference(s['events'], got[sid]['events'])}"
             for sid, s in sorted(want.items())
             if sid in got and not same(s["events"], got[sid]["events"])]
    missing = [sid for sid in want if sid not in got]
    if missing and not wrong:
      return "sessions are missing, so their events are (see sessions_copied)"
    if wrong:
      return "; ".join(wrong[:2]) + ("" if len(wrong) <= 2 else f"; and {len(wrong) - 2} more")
    return None

  return _per_run(trial.copies(), verdict, "every event copied exactly, in order")


@check(2)
def session_state_copied(trial: CopyTrial) -> tuple[float, str]:
  """Each copied session has the source session's own state (keys without a prefix), exactly."""
  def verdict(run: CopyRun) -> Optional[str]:
    if (why := _failed(run)) is not None:
      return why
    want = _sessions(run.source_before, run.app, run.user)
    got = _sessions(run.dest_after, run.app, run.user)
    wrong = sorted(sid for sid, s in want.items()
                   if sid in got and not same(_own(s["state"]), _own(got[sid]["state"])))
    if wrong:
      return (f"{len(wrong)} of {len(want)} sessions have another own state: keys set when a "
              "session was created appear in no event, so give the session its state when "
              "you create it")
    if any(sid not in got for sid in want):
      return "sessions are missing (see sessions_copied)"
    return None

  return _per_run(trial.copies(), verdict, "each session's own state is the source's")


@check(3)
def user_state_latest(trial: CopyTrial) -> tuple[float, str]:
  """Every user-state key of the source has the source's current value in ``dest``, exactly,
  although replayed events write older values (the session updated last holds older writes)."""
  def verdict(run: CopyRun) -> Optional[str]:
    if (why := _failed(run)) is not None:
      return why
    want = _user_state(run.source_before, run.app, run.user)
    got = _user_state(run.dest_after, run.app, run.user)
    old = _user_state(run.dest_before, run.app, run.user)
    missing = sorted(k for k in want if k not in got)
    wrong = sorted(k for k in want if k in got and not same(want[k], got[k]))
    stale = [k for k in wrong if k in old and same(old[k], got[k])]
    wrong = [k for k in wrong if k not in stale]
    if not (missing or wrong or stale):
      return None
    problems = []
    if missing:
      problems.append(f"missing {', '.join(missing)} (a key set when a session was created is "
                      "in no event)")
    if stale:
      problems.append(f"{', '.join(stale)} still has the value dest had before: the source's "
                      "value was never written")
    if wrong:
      shown = ", ".join(f"{k} is {json.dumps(got[k])[:60]} instead of {json.dumps(want[k])[:60]}"
                        for k in wrong[:2])
      problems.append(f"{shown}: appending an event replays its state_delta with the values of "
                      "its time, whatever order the sessions are copied in; write the source's "
                      "user state once more after the last event")
    return "; ".join(problems)

  return _per_run(trial.copies(), verdict, "the user state in dest is the source's, latest values")


@check(2, needs_action=True)
def dest_user_data_kept(trial: CopyTrial) -> tuple[float, str]:
  """What ``dest`` held for this user and the source does not have is still there: their own
  sessions (with events and state) and user-state keys."""
  def verdict(run: CopyRun) -> Optional[str]:
    if (why := _failed(run)) is not None:
      return why
    source_ids = set(_sessions(run.source_before, run.app, run.user))
    had = {sid: s for sid, s in _sessions(run.dest_before, run.app, run.user).items()
           if sid not in source_ids}
    got = _sessions(run.dest_after, run.app, run.user)
    lost = sorted(sid for sid, s in had.items() if sid not in got or not same(s, got[sid]))
    source_keys = _user_state(run.source_before, run.app, run.user)
    old_keys = _user_state(run.dest_before, run.app, run.user)
    new_keys = _user_state(run.dest_after, run.app, run.user)
    lost_keys = sorted(k for k in old_keys if k not in source_keys
                       and (k not in new_keys or not same(old_keys[k], new_keys[k])))
    problems = []
    if lost:
      problems.append(f"the user's own session(s) {', '.join(_short(s) for s in lost)} in dest "
                      "were removed or changed")
    if lost_keys:
      problems.append(f"user-state keys only dest had are gone or changed "
                      f"({', '.join(lost_keys)})")
    if problems:
      return "; ".join(problems) + ": a copy adds to dest, it never clears it"
    return None

  return _per_run(trial.copies(), verdict,
                  "this user's sessions and keys that only dest had are intact")


@check(2, needs_action=True)
def dest_others_untouched(trial: CopyTrial) -> tuple[float, str]:
  """Other users of ``dest`` (ids sharing a prefix included) and the same user id in other
  apps are unchanged, and no other user was copied."""
  def verdict(run: CopyRun) -> Optional[str]:
    if (why := _failed(run)) is not None:
      return why
    before = _others(run.dest_before, run.app, run.user)
    after = _others(run.dest_after, run.app, run.user)
    if same(before, after):
      return None
    old = {(s["app"], s["user"]) for s in before["sessions"]}
    added = sorted({(s["app"], s["user"]) for s in after["sessions"]} - old)
    if added:
      return (f"other users were copied too ({', '.join(f'{u!r} in {a!r}' for a, u in added)}): "
              "copy exactly (app_name, user_id), nothing that merely starts like it")
    return ("data of other users or apps in dest changed: only add the copied user's data, "
            "in the app you are given")

  return _per_run(trial.copies() + trial.refusals(), verdict,
                  "other users and apps in dest are unchanged")


@check(1, needs_action=True)
def source_untouched(trial: CopyTrial) -> tuple[float, str]:
  """The source is unchanged: a copy, not a move."""
  def verdict(run: CopyRun) -> Optional[str]:
    if run.source_after is None or not same(run.source_after, run.source_before):
      return "the source changed: copy_user_to only reads from source"
    return None

  return _per_run(trial.runs, verdict, "every source is unchanged")


@check(1)
def refuses_what_postgres_cannot_hold(trial: CopyTrial) -> tuple[float, str]:
  """Data PostgreSQL cannot hold (a 200-character session id, U+0000 in a value) is refused
  with ``ValueError``, not left to fail in the driver."""
  def verdict(run: CopyRun) -> Optional[str]:
    raised = run.raised
    if raised is None:
      return "no ValueError was raised (did the copy succeed partly, or fail silently?)"
    if not raised["value_error"]:
      return (f"{raised['type']} was raised instead of ValueError: check what PostgreSQL "
              "cannot hold before writing, and say what does not fit")
    return None

  fraction, feedback = _per_run(trial.refusals(), verdict, "")
  if fraction == 1:
    messages = "; ".join(f"{r.label}: {r.raised['message'][:150]!r}" for r in trial.refusals()
                         if r.raised)
    return 1, f"refused with ValueError ({messages})"
  return fraction, feedback


@check(2, needs_action=True)
def no_half_copy(trial: CopyTrial) -> tuple[float, str]:
  """When the data cannot be copied whole, ``dest`` is left exactly as it was: no session,
  event or user-state key of the user written before the problem was found."""
  def verdict(run: CopyRun) -> Optional[str]:
    if (why := _failed(run)) is not None:
      return why
    before = {k: v for k, v in (run.dest_before or {}).items() if k != "app_states"}
    after = {k: v for k, v in (run.dest_after or {}).items() if k != "app_states"}
    # A user_states row with nothing in it is no data (DatabaseSessionService creates one).
    for view in (before, after):
      view["user_states"] = [u for u in view.get("user_states", []) if u["state"]]
    if same(before, after):
      return None
    copied = (len(_sessions(run.dest_after, run.app, run.user))
              - len(_sessions(run.dest_before, run.app, run.user)))
    return (f"dest changed before the copy failed ({copied} session(s) of the user added): "
            "read and check everything first, then write")

  return _per_run(trial.refusals(), verdict, "dest is untouched when the copy is refused")


EXERCISE = Exercise(
    name="copy_user_to",
    lesson="03_postgres",
    signature="async def copy_user_to(source, dest, app_name: str, user_id: str) -> None",
    is_async=True,
    checks=(sessions_copied, events_copied, session_state_copied, user_state_latest,
            dest_user_data_kept, dest_others_untouched, source_untouched,
            refuses_what_postgres_cannot_hold, no_half_copy),
    prepare=prepare,
    act=act,
    observe=observe,
    needs_postgres=True,
    cleanup=cleanup,
)
