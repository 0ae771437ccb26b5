"""The judge of the lesson-2 exercise ``forget_user`` (erase a student from a SQLite store).

Contract (``exercises/forget_user.py``): ``async def forget_user(service, db_path, app_name,
user_id) -> None`` removes every session, event and the user state of one user of one app
from the ``SqliteSessionService`` file at ``db_path``, and every byte of them from the file's
folder, while the tutor keeps a connection of its own open; everything else stays exactly as
it was.

Each world is a tutor file written from a script (``_world.play``): the user to forget has
several sessions (one of them under an id other users and apps share, like ``default``; one
without events; in some worlds none left at all, only their user state), conversations with
function calls and nested state, and ``user:`` keys written again and again (older versions of
the row linger in the file's free space). Next to them: users whose ids a sloppy filter
confuses with theirs (quotes, ``LIKE`` and ``GLOB`` wildcards, case, decomposed accents,
spaces, a shared prefix), the same user id in apps whose names look alike, and app state. Every
value of the user's data carries a random marker, looked for in the bytes of every file
(UTF-8 and UTF-16, any letter case). Variants: rollback journal or WAL, and sizes.

The observation is the whole folder at return time, taken while the tutor's connection (and
the one ADK's service leaves open) is still open: every row of every table, the schema, the
file's format, which files exist, and which markers any file holds; plus any file the run left
elsewhere in the work folder. Markers in plain bytes prove a copy, their absence does not (a
compressed one holds none), so what a name alone would excuse is judged too
(``_forget_user_support``): SQLite's own files next to the database only as SQLite leaves them
(an empty -journal or -wal, a -shm that is exactly the WAL index of that empty log), no byte of
the main file that SQLite does not read (past its pages, in its free list), the extended
attributes of every entry, the empty folders a copy of bytes loses, and what the call wrote or
tagged outside the folders it was given (``OutsideWrites``, in the process that ran it).
"""

from __future__ import annotations

import gc
import random
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any, Callable

from google.adk.sessions.sqlite_session_service import SqliteSessionService

from ._engine import Check, Exercise, Open, Resources, View
from ._harness import ActWorld
from ._outside_writes import OutsideWrites
from ._forget_user_support import (GROWTH, as_observation, census, header_needles,
                                   read_record, record, sidecar_problems)
from ._observe import folder_files, read_sqlite, stray_files, quote
from ._world import (APP_STEMS, FIRST_NAMES, ID_KINDS, NICKNAMES, SHARED_SESSION_IDS, Clock,
                     awkward_user_id, lookalike_ids, play, secret, sqlite_secure_delete_off,
                     turn_events)

AGENT = "tutor_agent"
DB_NAME = "tutor.db"
REMOVAL = {"sessions": "sessions_removed", "events": "events_removed",
           "user_states": "user_state_removed"}

# (journal mode, the kind of id to erase, the GLOB wildcard in the app name, its Unicode form,
# size, whether the user's user_states row holds an empty state, the world's own shape)
# Shapes: "padded", one of the user's sessions under a padded id (a file migrated from
# DatabaseSessionService: ADK keeps such ids verbatim); "last", every other user's sessions in
# the app deleted before (the user is its last with sessions: the app's state stays); "many",
# the user with 101 to 240 sessions and one conversation of 100 events or more (a batch, a page
# or a LIMIT stops short).
VARIANTS = (
    ("delete", "quotes", "*", "NFC", 2, True, "padded"),
    ("wal", "like", "?", "NFD", 3, False, "last"),
    ("wal", "glob", "[", "NFC", 4, False, "many"),
    ("delete", None, "*", "NFD", 3, False, ""),  # spaces, a decomposed accent and an emoji; no session left
)
ACCENTED = ("Café", "Élan", "Niño", "Señal", "Öko")


# --- the world ---------------------------------------------------------------------------------

def generate(rng: random.Random, variant: int) -> dict[str, Any]:
  journal, kind, wildcard, form, size, empty_user_state, shape = VARIANTS[variant]
  kind = kind or "spaces"
  stem = rng.choice(APP_STEMS)
  app, glob_twin = awkward_app(rng, stem, wildcard, form)
  twin_apps = app_twins(app, glob_twin)
  twin_app = twin_apps[0]
  other_app = f"{rng.choice([s for s in APP_STEMS if s != stem])}_{rng.randrange(10, 99)}"
  user = awkward_user_id(rng, kind)
  if variant == 3:  # spaces around, a decomposed accent, an emoji: what trimming or
    # normalising the id would change (with no session left: only the user state remains)
    user = f" {rng.choice(('zoe', 'rene', 'noe'))}\u0301 \u2615 {rng.choice(NICKNAMES)} "
  others = lookalike_ids(rng, user) + twins(user) + [awkward_user_id(rng, rng.choice(ID_KINDS))]
  others = [o for o in dict.fromkeys(others) if o != user]
  bystander = rng.choice([n for n in FIRST_NAMES if n not in user.lower()])
  if bystander not in others:
    others.append(bystander)
  shared = rng.choice(SHARED_SESSION_IDS)
  marks: list[str] = []
  clock = Clock(rng)
  script: list[dict[str, Any]] = []

  def mark() -> str:
    value = secret(rng)
    marks.append(value)
    return value

  def other_mark() -> str:
    return secret(rng)

  def session(app_: str, user_: str, session_id: str, turns: int, marker: Callable[[], str],
              user_keys: bool = True, delete: bool = False) -> None:
    script.append({"op": "create", "app": app_, "user": user_, "id": session_id,
                   "state": {"goal": {"text": marker(), "weeks": rng.randrange(2, 9)}}})
    for number in range(turns):
      user_delta = {"user:profile": {"level": marker(), "streak": number}} if user_keys else {}
      tool_delta = {"progress": {"topic": marker(), "scores": [rng.randrange(100), number]},
                    "app:course_version": rng.randrange(1, 5)}
      if user_keys:
        tool_delta["user:last_note"] = marker()
      for event in turn_events(rng, clock, agent=AGENT, mark=marker, user_delta=user_delta,
                               tool_delta=tool_delta, metadata=number == 0):
        script.append({"op": "append", "app": app_, "user": user_, "id": session_id,
                       "event": event})
    if delete:
      script.append({"op": "delete", "app": app_, "user": user_, "id": session_id})

  no_session_left = variant == 3
  own = max(1, size - 1)
  session(app, user, shared, rng.randrange(1, size + 1), mark, delete=no_session_left)
  for other in others:
    session(app, other, rng.choice((shared, f"s-{other_mark()}")), rng.randrange(1, 3),
            other_mark, delete=shape == "last")
  for number in range(own):
    session(app, user, f"s-{mark()}", rng.randrange(0, size + 1) if number else 0, mark,
            delete=no_session_left)
  padded = ""
  if shape == "padded":  # renamed in build: a row ADK's own create_session would strip
    padded = f"s-{mark()}"
    session(app, user, padded, rng.randrange(1, size + 1), mark)
  if shape == "many":  # one long conversation, then sessions with no events (cheap to build)
    session(app, user, f"s-{mark()}", rng.randrange(26, 40), mark, user_keys=False)
    for number in range(rng.randrange(101, 241) - own - 2):  # rows only: no marker needed
      script.append({"op": "create", "app": app, "user": user, "id": f"s-bulk-{number}",
                     "state": {}})
  for twin in twin_apps:  # the same user in apps a sloppy match of the name would catch
    session(twin, user, shared, rng.randrange(1, 3), other_mark)
  session(other_app, user, f"s-{other_mark()}", 1, other_mark)
  if no_session_left:  # the user's state survives their deleted sessions (lesson 2)
    session(app, user, f"s-{mark()}", 1, mark, delete=True)
  return {"variant": variant, "journal": journal, "kind": kind, "app": app, "user": user,
          "others": others, "twin_app": twin_app, "twin_apps": twin_apps,
          "other_app": other_app, "shared": shared, "no_session_left": no_session_left,
          "empty_user_state": empty_user_state, "shape": shape, "padded": padded,
          "script": script, "marks": marks}


def awkward_app(rng: random.Random, stem: str, wildcard: str, form: str) -> tuple[str, str]:
  """An app name on which every sloppy match differs from ``=``: a ``_`` (LIKE's any char),
  a GLOB wildcard, capitals, a non-ASCII letter in NFC or NFD; and a name its GLOB matches."""
  import unicodedata

  base = f"{'_'.join(w.capitalize() for w in stem.split('_'))}_{rng.randrange(10, 99)}"
  accented = rng.choice(ACCENTED)
  tail = {"*": ("v2*", "v2-rc"), "?": ("v?", "v3"), "[": ("[v2]", "2")}[wildcard]
  app, glob_twin = (unicodedata.normalize(form, f"{base}.{accented}.{t}") for t in tail)
  return app, glob_twin


def app_twins(app: str, glob_twin: str) -> list[str]:
  """Apps whose names equal ``app`` for LIKE (``_`` and case), GLOB, ``lower()``/``upper()``,
  trimming, ``COLLATE RTRIM``/``NOCASE`` or Unicode normalisation: each another app."""
  import unicodedata

  ascii_lower = "".join(c.lower() if c.isascii() else c for c in app)
  found = [f"{app}_beta", app.replace("_", "-"), app.lower(), app.upper(), ascii_lower,
           f"{app} ", f" {app}", unicodedata.normalize("NFC", app),
           unicodedata.normalize("NFD", app), glob_twin]
  return [twin for twin in dict.fromkeys(found) if twin != app]


def twins(user: str) -> list[str]:
  """Ids that equal ``user`` once trimmed, padded, or written in another Unicode form: another
  user each, whom ``trim()``, ``COLLATE RTRIM`` or normalising would erase too."""
  import unicodedata

  found = [user.strip(), f" {user}", f"{user} ", unicodedata.normalize("NFC", user),
           unicodedata.normalize("NFD", user)]
  return [twin for twin in dict.fromkeys(found) if twin != user]


async def build(spec: dict[str, Any], folder: Path, resources: Resources) -> dict[str, Any]:  # noqa: ARG001
  db_path = folder / DB_NAME
  with sqlite_secure_delete_off():
    with closing(sqlite3.connect(db_path)) as connection:
      connection.execute(f"PRAGMA journal_mode = {spec['journal']}").fetchall()
    await play(SqliteSessionService(str(db_path)), spec["script"])
  with sqlite_secure_delete_off(), closing(sqlite3.connect(db_path)) as connection:
    if spec.get("empty_user_state"):  # a row whose state is {}: still the user's, to delete
      connection.execute("UPDATE user_states SET state = '{}' WHERE app_name = ? AND user_id = ?",
                         (spec["app"], spec["user"]))
      connection.commit()
    if spec.get("padded"):  # as a migrated file holds it: ' s-… ' (ADK strips a new one)
      connection.execute("PRAGMA foreign_keys = OFF")
      for table, column in (("sessions", "id"), ("events", "session_id")):
        connection.execute(f"UPDATE {table} SET {column} = ? WHERE app_name = ? AND user_id = ? "
                           f"AND {column} = ?", (f" {spec['padded']} ", spec["app"],
                                                 spec["user"], spec["padded"]))
      connection.commit()
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
  return {"db": DB_NAME, "app": spec["app"], "user": spec["user"],
          "pages": file_pages(db_path)}


# --- act -----------------------------------------------------------------------------------------

async def act(fn: Callable, world: ActWorld) -> None:
  """Call ``fn(service, db_path, app_name, user_id)`` while the tutor still holds its own
  connection to the file; take the snapshot when it returns, before anything is closed.

  Beside the snapshot (the files' bytes), what a copy of bytes loses is recorded at return
  time, in the process that ran the call (``_support.record``): every entry of the world's
  folder and of the call's temporary and home folders with its extended attributes, and what
  the call wrote outside them (``OutsideWrites``: a backup under a hard-coded ``/tmp`` path is
  seen in the students' own process too, where no sandbox keeps its /tmp). The same census
  of the world as the run leaves it is taken by ``seal``, where the submission cannot forge
  it."""
  db_path = world.path(world.inputs["db"])
  elsewhere = world.elsewhere_folder
  with sqlite_secure_delete_off():
    service = SqliteSessionService(db_path)
    tutor = sqlite3.connect(db_path)  # the running tutor's connection
    try:
      tutor.execute("SELECT count(*) FROM sessions").fetchall()
      with OutsideWrites([world.folder, elsewhere], lambda: header_needles(db_path)) as writes:
        await world.call(fn, service, db_path, world.inputs["app"], world.inputs["user"])
      world.snapshot()
      record(world.folder, "at_return", {"world": census(world.folder),
                                         "elsewhere": census(elsewhere),
                                         "strays": writes.strays(),
                                         "pages": world.inputs["pages"]})
    finally:
      tutor.close()
      # A sqlite3 connection is in a reference cycle with its own statement cache: the one
      # ADK's constructor leaves open closes only when the garbage collector runs. Run it now,
      # so that the world is left the same way after every run (the last connection to close
      # folds a -wal file back and removes it).
      del service
      gc.collect()


def seal(folder: Path, elsewhere: Path, inputs: dict[str, Any]) -> None:
  """The census of the world and of the calls' temporary and home folders as the run left
  them (trusted: see ``Exercise.seal``)."""
  record(folder, "final", {"world": census(folder), "elsewhere": census(elsewhere),
                           "pages": int(inputs["pages"])})


def file_pages(path: Path) -> int:
  """The database's size in pages (its header's count, or its length)."""
  try:
    with open(path, "rb") as stream:
      header = stream.read(100)
    page_size = int.from_bytes(header[16:18], "big") or 4096
    return max(int.from_bytes(header[28:32], "big"), path.stat().st_size // page_size)
  except (OSError, ValueError):
    return 0


# --- observe -------------------------------------------------------------------------------------

async def observe(spec: dict[str, Any], folder: Path, inputs: dict[str, Any], view: View
                  ) -> dict:
  """The world whole: the database's rows and format, every entry of its folder with the
  markers its bytes hold and its extended attributes, what of SQLite's own files SQLite would
  not leave there (``sidecar_problems``), and what the call left elsewhere."""
  where = view.snapshot or folder
  observed = read_sqlite(where / DB_NAME, ("db",), trusted=view.kind == "pristine")
  observed.update(folder_files(where, ("folder",), spec["marks"]))
  if view.kind == "pristine":
    observed.update(as_observation(census(folder), ("folder",)))
    observed.update(sidecar_problems(where, DB_NAME, ("folder",), max_page(file_pages(
        folder / DB_NAME))))
    return observed
  held = read_record(folder) or {}
  stage = held.get("at_return" if view.snapshot is not None else "final")
  if not isinstance(stage, dict):
    stage = {}
    observed[("folder", "census missing")] = True
  observed.update(as_observation(stage.get("world", {}), ("folder",)))
  observed.update({key: value for key, value in as_observation(
      stage.get("elsewhere", {}), ("elsewhere", "census")).items()
      if value == "folder" and key[-1] not in HARNESS_FOLDERS or key[2] == "xattr"
      or value == "unreadable"})
  if view.snapshot is None:  # the folder itself (in the students' own process: as it is)
    observed.update(as_observation(census(folder), ("folder",)))
  for stray in stage.get("strays", []) if isinstance(stage.get("strays"), list) else []:
    if isinstance(stray, list) and len(stray) == 3:
      observed[("stray", str(stray[1]))] = str(stray[2])
  pages = stage.get("pages") if type(stage.get("pages")) is int else file_pages(folder / DB_NAME)
  observed.update(sidecar_problems(where, DB_NAME, ("folder",), max_page(pages)))
  observed.update(stray_files(folder.parent, ("elsewhere",), spec["marks"]))
  return observed


HARNESS_FOLDERS = ("tmp", "home")  # what ``_harness.elsewhere`` makes for every call


def max_page(pages: int) -> int:
  """The largest page number a call's frames may name: the file's pages before it, twice
  over (what a right answer adds while it works is freed again by VACUUM)."""
  return 2 * pages + GROWTH


def classify(spec: dict[str, Any], key: tuple) -> Any:
  if key[0] == "db":
    if key[1] in ("missing", "unreadable"):
      return tuple(c.name for c in CHECKS)  # no database to judge: nothing is met
    if key[1] == "table" and key[2] in REMOVAL and len(key) >= 5:
      app, user = key[3], key[4]
      if app == spec["app"] and user == spec["user"]:
        return REMOVAL[key[2]]
      return "other_users_untouched" if app == spec["app"] else "other_apps_untouched"
    if key[1] == "table" and key[2] == "app_states" and len(key) >= 4:
      # an app's state is every user's of it: the app's, the others'; another app's, that app's
      return "other_users_untouched" if key[3] == spec["app"] else "other_apps_untouched"
    return "file_stays_adks"
  return "no_trace_left"  # files of the folder, their bytes, files left elsewhere


def describe(spec: dict[str, Any], key: tuple) -> str:
  from ._observe import describe_key

  places = {"folder": "the database's folder", "elsewhere": "the work folder"}
  if len(key) >= 4 and key[1] == "xattr":
    return (f"the extended attribute {quote(key[3])} of {quote(key[2])} in "
            f"{places.get(key[0], key[0])}")
  if len(key) >= 3 and key[1] == "unexplained":
    return f"what SQLite does not read in {quote(key[2])} of the database's folder"
  if len(key) >= 4 and key[:2] == ("elsewhere", "census"):
    return f"the {key[2]} {quote(key[3])} in the call's temporary or home folder"
  if len(key) >= 2 and key[0] == "stray":
    return f"{quote(key[1])}, outside the folders the call was given"
  if key == ("folder", "census missing"):
    return "the record of the world's entries (the run removed it)"
  return describe_key(key, places)


def label(spec: dict[str, Any]) -> str:
  return (f"erasing {quote(spec['user'])} from a {spec['journal']}-journal file"
          + (", with no session left, only user state" if spec["no_session_left"] else ""))


def calls(spec: dict[str, Any]) -> int:  # noqa: ARG001
  return 1


def properties(spec: dict[str, Any], observed: dict, pristine: dict) -> list[tuple[str, str]]:  # noqa: ARG001
  """What the contract says of every outcome, the reference's included: none of the user's
  rows and none of their markers is left."""
  problems = []
  for key, value in observed.items():
    if (key[0] == "db" and key[1] == "table" and key[2] in REMOVAL and value == "row"
        and key[3] == spec["app"] and key[4] == spec["user"]):
      problems.append((REMOVAL[key[2]], f"a {key[2]} row of the user is left"))
    if key[0] in ("folder", "elsewhere") and key[1] == "bytes":
      problems.append(("no_trace_left", f"{key[2]} holds {len(value)} of the user's markers"))
    if key[0] == "folder" and key[1] == "unexplained":
      problems.append(("no_trace_left", f"{key[2]}: {value}"))
    if key[0] == "stray" or (len(key) > 2 and "xattr" in key[1:3] and key not in pristine):
      problems.append(("no_trace_left", f"the call left {describe(spec, key)}"))
  return problems


CHECKS = (
    Check("sessions_removed", 2, "No session of the user is left in the app.",
          hint="Delete every session of (app_name, user_id), matched exactly: a quote in the id "
               "must not break your SQL, and LIKE, GLOB or a case-blind match also catch others",
          success="none of the user's sessions is left"),
    Check("events_removed", 2, "No event of the user is left.",
          hint="Deleting sessions with SQL does not cascade to their events unless "
               "PRAGMA foreign_keys is on; delete_session removes them",
          success="none of the user's events is left"),
    Check("user_state_removed", 2, "The user's user_states row is gone.",
          hint="delete_session never removes user state, and no ADK API does",
          success="the user's user state is gone"),
    Check("no_trace_left", 3,
          "Not one byte of the user's data can be read from the database's folder at return "
          "time (the file, its -journal, -wal or -shm, any copy, an extended attribute), while "
          "the tutor's own connection is still open; no copy is left anywhere else either.",
          hint="Deleted rows, and older versions of updated ones, stay in the file until VACUUM "
               "rewrites it (secure_delete is off); in WAL mode, what VACUUM wrote stays in the "
               "-wal file, and the main file keeps the old pages, until a checkpoint: with "
               "another connection open, closing yours does not trigger it",
          success="no byte of the user's data is left in the folder at return time"),
    Check("other_users_untouched", 2,
          "Other users of the same app keep their sessions, events and user state exactly, "
          "including ids that share a prefix, differ only by case or look the same, and sessions "
          "whose id the user also has.",
          hint="A user is (app_name, user_id), matched exactly (= with a ? parameter); a session "
               "id alone is shared by many users",
          success="other users' sessions, events and state are unchanged", needs_action=True),
    Check("other_apps_untouched", 1,
          "The same user id in other apps is another user: left untouched.",
          hint="Filter on app_name too, with the exact name you are given",
          success="the same user id in other apps is unchanged", needs_action=True),
    Check("file_stays_adks", 1,
          "The file stays ADK's database, as it was: its tables with their keys and indexes, "
          "its format (encoding, page size, journal mode) and the app's state.",
          hint="Delete rows, never tables; app_states belongs to every user of the app",
          success="the schema, the format and the app's state are unchanged", needs_action=True),
)

EXERCISE = Exercise(
    name="forget_user",
    lesson="02_sqlite_memory",
    signature="async def forget_user(service, db_path: str, app_name: str, user_id: str) -> None",
    is_async=True,
    checks=CHECKS,
    generate=generate,
    build=build,
    act=act,
    observe=observe,
    classify=classify,
    leaves_open=(
        Open(("folder", "file", f"{DB_NAME}-shm"), "the -shm file holds only the WAL's index: "
             "whether it exists depends on who has the file open, not on the erasure (what it "
             "holds is judged: sidecar_problems)"),
        Open(("folder", "file", f"{DB_NAME}-journal"), "a rollback journal left empty "
             "(journal_mode TRUNCATE on the function's own connection) holds no data; one with "
             "any byte in it is judged a leftover (sidecar_problems)"),
    ),
    properties=properties,
    worlds=len(VARIANTS),
    calls=calls,
    null_run=True,  # the tutor's open connection alone makes a -wal and a -shm file
    describe_key=describe,
    label=label,
    seal=seal,
)
