"""Checks of the lesson-2 exercise ``forget_user`` (erase a student from a SQLite store).

Contract: ``async def forget_user(service, db_path, app_name, user_id) -> None`` removes every
trace of one user of one app from the ``SqliteSessionService`` file at ``db_path``: their
sessions, events and ``user_states`` row, and the bytes of all of it (deleted rows stay
readable in the file until ``VACUUM`` rewrites it), leaving everything else as it was.

Each run erases a user in two fresh files, with names drawn from the run's seed:

1. a user id with both quote characters (``grace "kit" o'brien``), next to a user whose id
   starts with it and one that differs only by case, and the app next to ``<app>_beta``;
   rollback journal (SQLite's default);
2. a user id with an underscore (``ada_42``), next to ``ada_421`` (same prefix), ``ADA_42``
   (case) and ``adax42`` (``_`` is ``LIKE``'s one-character wildcard), and the app next to the
   same name in capitals; WAL journal.

In both, the user also exists in two other apps, other users write app state, and
conversations hold function calls, function responses and nested state. Every value of the
user's data carries a random marker, so that the checks can look for it in the files' bytes.
``PRAGMA secure_delete`` is off on every connection (SQLite's compile-time default): the
result, not the machine's SQLite build, decides. The checks read the files themselves
(stdlib ``sqlite3`` and raw bytes), never the service the submission was handed.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import stat
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from google.adk.sessions.sqlite_session_service import SqliteSessionService

from ..safe_sqlite import UntrustedDatabase, open_untrusted
from ._base import (Exercise, Resources, TimeBudget, Trial, call_submission, check, untrusted_notes)
from ._world import (FIRST_NAMES, Clock, app_name, conversation_turn, quoted_user_id, rng_for,
                     secret, sqlite_secure_delete_off)

TABLES = ("app_states", "user_states", "sessions", "events")
_QUERIES = {
    "app_states": "SELECT app_name, state, update_time FROM app_states",
    "user_states": "SELECT app_name, user_id, state, update_time FROM user_states",
    "sessions": "SELECT app_name, user_id, id, state, create_time, update_time FROM sessions",
    "events": "SELECT app_name, user_id, session_id, id, invocation_id, timestamp, event_data "
              "FROM events",
}
AGENT = "tutor_agent"
DB_NAME = "tutor.db"
READ_CAP = 64 * 1024 * 1024  # bytes read per file when looking for markers

Rows = Optional[list[list[Any]]]  # a table's rows, sorted; None: the table is gone


# --- prepare: the data every submission starts from --------------------------------------------

def _lookalikes(kind: str, user: str, rng: random.Random) -> list[str]:
  """Other users of the same app whose ids a sloppy filter confuses with ``user``."""
  if kind == "quotes":  # the user's id has capitals: lower() or NOCASE erases someone else
    return [f"{user} jr", user.upper(), user.lower()]
  first, number = user.split("_")
  return [f"{user}{rng.randrange(1, 9)}", user.upper(), f"{first}x{number}"]


def _scenario_names(kind: str, rng: random.Random) -> dict[str, Any]:
  taken: set[str] = set()
  app = app_name(rng, taken)
  if kind == "quotes":
    user = quoted_user_id(rng).title()  # Ada "Kit" O'Brien
    twin_app = f"{app}_beta"
  else:
    user = f"{rng.choice(FIRST_NAMES)}_{rng.randrange(10, 99)}"
    twin_app = app.upper()
  other_app = app_name(rng, taken | {twin_app})
  bystander = rng.choice([n for n in FIRST_NAMES if not user.startswith(n)])
  return {"app": app, "user": user, "twin_app": twin_app, "other_app": other_app,
          "others": _lookalikes(kind, user, rng) + [bystander]}


async def _fill(service: SqliteSessionService, rng: random.Random, names: dict[str, Any],
                marks: list[str]) -> None:
  """The user to forget (three sessions, one without events; user: keys written again and
  again, so older versions of their row linger in the file), the look-alike users, and the
  same user id in two other apps. ``marks`` collects every marker of the user's data."""
  app, user = names["app"], names["user"]
  clock = Clock(rng)

  def mark() -> str:
    value = f"{secret(rng)}"
    marks.append(value)
    return value

  def other_mark() -> str:
    return secret(rng)

  async def session(app_: str, user_: str, turns: int, marker: Callable[[], str],
                    session_id: str, user_keys: bool = True) -> None:
    created = await service.create_session(
        app_name=app_, user_id=user_, session_id=session_id,
        state={"goal": {"text": marker(), "weeks": rng.randrange(2, 9)}})
    for number in range(turns):
      user_delta = {"user:profile": {"level": marker(), "streak": number}} if user_keys else {}
      tool_delta = {"progress": {"topic": marker(), "scores": [rng.randrange(100), number]},
                    "app:course_version": rng.randrange(1, 5)}
      if user_keys:
        tool_delta["user:last_note"] = marker()
      for event in conversation_turn(rng, clock, agent=AGENT, mark=marker, user_delta=user_delta,
                                     tool_delta=tool_delta, metadata=number == 0):
        await service.append_event(created, event)

  await session(app, user, 2, mark, f"s-{mark()}")
  for other in names["others"]:
    await session(app, other, 1, other_mark, f"s-{other_mark()}")
  await session(app, user, 1, mark, f"s-{mark()}")
  await session(app, user, 0, mark, f"s-{mark()}")  # a session without events
  await session(names["twin_app"], user, 1, other_mark, f"s-{other_mark()}")
  await session(names["other_app"], user, 1, other_mark, f"s-{other_mark()}")


def read_tables(db_path: Path, trusted: bool = False) -> dict[str, Rows]:
  """Every row of the four tables, sorted, as JSON-able lists (stdlib sqlite3: independent of
  ADK and of the service the submission held). A table that is missing, or is no longer a
  real table (a view can pretend to hold rows), reads as None. A file a submission left
  (not ``trusted``) is opened read-only with caps (``safe_sqlite``): one whose schema is not
  ADK's raises ``UntrustedDatabase``. (Read-only leaves a WAL file's -wal and -shm in place:
  only what the judge made itself is read the ordinary way.)"""
  rows: dict[str, Rows] = {table: None for table in TABLES}
  if not db_path.is_file():
    return rows
  try:
    opened = (sqlite3.connect(db_path) if trusted else
              open_untrusted(db_path, f"the file {db_path.name}"))
    with closing(opened) as connection:
      kinds = dict(connection.execute("SELECT name, type FROM sqlite_master"))
      for table in TABLES:
        if kinds.get(table) != "table":
          continue
        try:
          found = connection.execute(_QUERIES[table]).fetchall()
        except sqlite3.Error:
          continue
        rows[table] = json.loads(json.dumps(sorted(found, key=repr)))
  except UntrustedDatabase:
    raise
  except sqlite3.Error:
    pass
  return rows


async def _build(folder: Path, kind: str, rng: random.Random) -> dict[str, Any]:
  folder.mkdir(parents=True, exist_ok=True)
  db_path = folder / DB_NAME
  journal = "delete" if kind == "quotes" else "wal"
  names = _scenario_names(kind, rng)
  marks: list[str] = []
  with sqlite_secure_delete_off():
    with closing(sqlite3.connect(db_path)) as connection:
      connection.execute(f"PRAGMA journal_mode = {journal}").fetchall()
    await _fill(SqliteSessionService(str(db_path)), rng, names, marks)
  return {"kind": kind, "db_path": str(db_path), "folder": str(folder), "journal": journal,
          **names, "marks": marks, "before": read_tables(db_path, trusted=True)}


async def prepare(workdir: Path, resources: Resources) -> dict[str, Any]:
  seed, rng = rng_for(resources.seed)
  scenarios = [await _build(Path(workdir) / f"file_{n}", kind, rng)
               for n, kind in enumerate(("quotes", "lookalikes"), start=1)]
  return {"seed": seed, "scenarios": scenarios}


# --- act: the only phase that runs the submission ---------------------------------------------

async def act(fn: Callable, workdir: Path, setup: dict[str, Any],  # noqa: ARG001
              time_limit: Optional[float] = None) -> dict[str, Any]:
  """Call ``fn`` once per file, with a fresh ``SqliteSessionService`` on it; report notes."""
  runs = []
  scenarios = setup["scenarios"]
  budget = TimeBudget(time_limit, len(scenarios))
  for scenario in scenarios:
    trial = Trial()
    with sqlite_secure_delete_off():
      service = SqliteSessionService(scenario["db_path"])
      await call_submission(trial, fn, service, scenario["db_path"], scenario["app"],
                            scenario["user"], is_async=True, budget=budget)
      del service
    runs.append({"notes": trial.notes})
  return {"runs": runs}


# --- observe: what the files hold now ----------------------------------------------------------

@dataclass
class FileView:
  """One file after the submission: who was erased, the rows before and after, and which of
  the erased user's markers are still in the bytes of each file of its folder."""

  label: str
  app: str
  user: str
  before: dict[str, Rows]
  after: dict[str, Rows]
  traces: dict[str, int] = field(default_factory=dict)  # file name -> markers found
  files: list[str] = field(default_factory=list)  # every file in the folder after the run
  marks: int = 0
  refused: Optional[str] = None  # why the judge would not read the file (safe_sqlite)


@dataclass
class ForgetTrial(Trial):
  files: list[FileView] = field(default_factory=list)


def _label(scenario: dict[str, Any]) -> str:
  if scenario["kind"] == "quotes":
    return f"erasing {scenario['user']!r} (quotes in the id)"
  return (f"erasing {scenario['user']!r} next to "
          f"{', '.join(repr(o) for o in scenario['others'][:3])} ({scenario['journal']} journal)")


def scan_folder(folder: Path, marks: list[str]) -> tuple[dict[str, int], list[str]]:
  """How many of ``marks`` each regular file under ``folder`` still contains, as raw bytes
  (read before any connection is opened: opening a WAL database checkpoints it), and the
  names of all its files."""
  found: dict[str, int] = {}
  files: list[str] = []
  needles = [m.encode() for m in marks]
  for root, _dirs, names in os.walk(folder):
    for name in names:
      path = Path(root) / name
      files.append(path.relative_to(folder).as_posix())
      try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
          continue
        with open(path, "rb") as handle:
          data = handle.read(READ_CAP)
      except OSError:
        continue
      count = sum(1 for needle in needles if needle in data)
      if count:
        found[path.relative_to(folder).as_posix()] = count
  return found, sorted(files)


async def observe(workdir: Path, setup: dict[str, Any], acted: Any) -> ForgetTrial:  # noqa: ARG001
  trial = ForgetTrial()
  runs = acted.get("runs") if isinstance(acted, dict) else None
  if not (isinstance(runs, list) and len(runs) == len(setup["scenarios"])):
    trial.notes.append("the run's report was malformed; graded on the files alone")
    runs = [{} for _ in setup["scenarios"]]
  for scenario, run in zip(setup["scenarios"], runs):
    label = _label(scenario)
    notes = untrusted_notes(run) if run else []
    trial.notes += [f"{label}: {note}" for note in notes]
    traces, files = scan_folder(Path(scenario["folder"]), scenario["marks"])
    try:
      after = read_tables(Path(scenario["db_path"]))
      refused = None
    except UntrustedDatabase as error:
      after, refused = {table: None for table in TABLES}, str(error)
      trial.notes.append(f"{label}: {refused}")
    view = FileView(label, scenario["app"], scenario["user"], scenario["before"],
                    after, traces, files, len(scenario["marks"]), refused)
    gone = [t for t in TABLES if view.after[t] is None]
    if gone and not refused:
      trial.notes.append(f"{label}: the table(s) {', '.join(gone)} no longer exist: delete "
                         "rows, never tables")
    trial.files.append(view)
  trial.acted = any(v.after != v.before for v in trial.files)
  return trial


# --- checks --------------------------------------------------------------------------------------

def _user_rows(view: FileView, table: str, snapshot: dict[str, Rows]) -> Rows:
  rows = snapshot.get(table)
  if rows is None:
    return None
  return [r for r in rows if r[0] == view.app and r[1] == view.user]


def _per_file(trial: ForgetTrial, verdict: Callable[[FileView], Optional[str]],
              success: str) -> tuple[float, str]:
  """Apply ``verdict`` (None when the file is right, else why not) to every file: the
  fraction of files that are right, and the reasons of the others."""
  problems = [f"{v.label}: {why}" for v in trial.files
              if (why := (f"not judged: {v.refused}" if v.refused else verdict(v))) is not None]
  if not problems:
    return 1, success
  return 1 - len(problems) / len(trial.files), "; ".join(problems)


def _removed(table: str, what: str, hint: str) -> Callable[[FileView], Optional[str]]:
  def verdict(view: FileView) -> Optional[str]:
    left = _user_rows(view, table, view.after)
    if left is None:
      return f"the `{table}` table itself is gone: delete the user's rows, not the table"
    if left:
      had = len(_user_rows(view, table, view.before) or [])
      return f"{len(left)} of the user's {had} {what} still there: {hint}"
    return None

  return verdict


@check(2)
def sessions_removed(trial: ForgetTrial) -> tuple[float, str]:
  """No session of the user is left in the app."""
  return _per_file(trial, _removed(
      "sessions", "sessions are", "delete every session of (app_name, user_id), matched "
      "exactly (a quote in the id must not break your SQL: use ? parameters)"),
      "all of the user's sessions are gone")


@check(2)
def events_removed(trial: ForgetTrial) -> tuple[float, str]:
  """No event of the user is left."""
  return _per_file(trial, _removed(
      "events", "events are", "deleting sessions with SQL does not cascade to their events "
      "unless PRAGMA foreign_keys is on; delete_session removes them"),
      "none of the user's events is left")


@check(2)
def user_state_removed(trial: ForgetTrial) -> tuple[float, str]:
  """The user's ``user_states`` row is gone."""
  return _per_file(trial, _removed(
      "user_states", "user_states rows are", "delete_session never removes user state and no "
      "ADK API does: delete the row with SQL"),
      "the user's user_states row is gone")


def _trace_verdict(view: FileView) -> Optional[str]:
  if not view.traces:
    return None
  where = ", ".join(f"{name} ({count} of {view.marks} markers)"
                    for name, count in sorted(view.traces.items()))
  if any(_user_rows(view, t, view.after) for t in ("sessions", "events", "user_states")):
    return f"the user's data is still in {where}: their rows are not all deleted (see above)"
  hints = []
  companions = {f"{DB_NAME}-wal", f"{DB_NAME}-journal", f"{DB_NAME}-shm"}
  left_beside = sorted(name for name in view.files
                       if name in companions and not name.endswith("-shm"))
  if left_beside:
    hints.append(f"{', '.join(left_beside)} is still there: a connection was left open. Close "
                 "every connection you open: SQLite then folds the WAL into the file (only "
                 "then does what VACUUM rewrote reach it) and removes it")
  elif view.traces.get(DB_NAME):
    hints.append("the rows are deleted but their bytes are still in the file: SQLite only "
                 "marks deleted space as free (secure_delete is off), and older versions of "
                 "updated rows linger the same way. Run VACUUM after deleting (outside a "
                 "transaction): it rewrites the file without them")
  copies = sorted(name for name in view.traces if name != DB_NAME and name not in companions)
  if copies:
    hints.append(f"{', '.join(copies)} holds a copy of the data: an erasure removes copies too")
  return f"the user's data is still readable in {where}; " + "; ".join(hints)


@check(3)
def no_trace_left(trial: ForgetTrial) -> tuple[float, str]:
  """Not one byte of the user's data is left in the database's folder (the file, its
  -journal or -wal, or any copy)."""
  return _per_file(trial, _trace_verdict,
                   "no byte of the user's data is left in the folder (file, journal, WAL)")


def _changed(view: FileView, keep: Callable[[list], bool],
             tables: tuple[str, ...] = ("sessions", "events", "user_states")) -> list[str]:
  """The tables whose rows selected by ``keep`` differ before and after."""
  changed = []
  for table in tables:
    before, after = view.before.get(table), view.after.get(table)
    if after is None or [r for r in before or [] if keep(r)] != [r for r in after if keep(r)]:
      changed.append(table)
  return changed


@check(2, needs_action=True)
def other_users_untouched(trial: ForgetTrial) -> tuple[float, str]:
  """Other users of the same app keep their sessions, events and user state, byte for byte,
  including ids that share a prefix with the user's or differ only by case."""
  def verdict(view: FileView) -> Optional[str]:
    changed = _changed(view, lambda r: r[0] == view.app and r[1] != view.user)
    if changed:
      return (f"other users' rows changed in {', '.join(changed)}: match user_id exactly "
              "(= with a ? parameter; LIKE matches prefixes, ignores case and treats _ as a "
              "wildcard)")
    return None

  return _per_file(trial, verdict, "other users' sessions, events and state are unchanged")


@check(1, needs_action=True)
def other_apps_untouched(trial: ForgetTrial) -> tuple[float, str]:
  """The same user id in other apps is another user: left untouched."""
  def verdict(view: FileView) -> Optional[str]:
    changed = _changed(view, lambda r: r[0] != view.app)
    if changed:
      return (f"data of other apps changed in {', '.join(changed)}: a user is "
              "(app_name, user_id), so filter on both, with the app_name you are given")
    return None

  return _per_file(trial, verdict, "the same user id in other apps is unchanged")


@check(1, needs_action=True)
def app_state_untouched(trial: ForgetTrial) -> tuple[float, str]:
  """``app_states`` is shared by every user of an app: unchanged."""
  def verdict(view: FileView) -> Optional[str]:
    if _changed(view, lambda r: True, ("app_states",)):
      return "app_states changed: app state belongs to every user of the app, leave it alone"
    return None

  return _per_file(trial, verdict, "app_states is unchanged")


EXERCISE = Exercise(
    name="forget_user",
    lesson="02_sqlite_memory",
    signature="async def forget_user(service, db_path: str, app_name: str, user_id: str) -> None",
    is_async=True,
    checks=(sessions_removed, events_removed, user_state_removed, no_trace_left,
            other_users_untouched, other_apps_untouched, app_state_untouched),
    prepare=prepare,
    act=act,
    observe=observe,
)
