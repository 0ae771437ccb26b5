"""The judge of the lesson-3 exercise ``copy_user_to`` (move a user between SQLite and PostgreSQL).

Contract (``exercises/copy_user_to.py``): ``async def copy_user_to(source, dest, app_name,
user_id)`` copies one user's sessions (same ids, own state), their events exactly as stored
and their current user state from one session service into another, SQLite to PostgreSQL or
back; nothing ``dest`` held changes (its ``app:`` keys included), the source neither. A session
id this user already has in ``dest``, or data PostgreSQL cannot hold (ids over their
``varchar`` sizes, U+0000 anywhere), is refused with ``ValueError`` before anything is written.

Each world is two stores written from scripts (``_world.play``): a SQLite file and a
PostgreSQL database owned by a login role of the world's own (the function gets that role's
URL, never the admin's; copies are clones of a template database, see ``_copy_user_to_support``).
The function is called several times per world, in a random order, on the same two services:
for users whose copy must be refused (one defect each: an app name, user id, session id or
event id of 129 characters, an invocation id of 257, U+0000 in one of fifteen places, or a
session id the user already has in ``dest``), and for the users to copy. The user to copy has
interleaved sessions (the session updated last holds older ``user:`` writes, and the latest
value was set by creating a session, in no event), a session id shared with other users and
apps (``default``...), a session without events, function calls and responses, metadata, nested
state; in ``dest`` their own sessions and keys, look-alike users (a shared prefix, another
case), the same id in another app and newer ``app:`` values than the source's events write.
Ids are awkward (quotes, wildcards, decomposed accents, emoji) and, in some worlds, exactly at
the limits (128 characters with multi-byte ones, an invocation id of 256). Variants: SQLite ->
PostgreSQL (three worlds, with the refusals) and PostgreSQL -> SQLite, one user with no
session left (only user state), an app state holding U+0000 in the source (not copied: no
reason to refuse).

The observation is both stores whole, read by the judge itself: every row of every table for
all apps and users (JSON columns item by item, state rows without any key count as absent) and
the schema: SQLite's tables and format, PostgreSQL's catalogue (schemas, relations and their
ACLs, columns, constraints, indexes, functions, triggers, policies, rules, types, extensions,
the database's settings); plus how each call ended.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Callable, Optional

from google.adk.sessions.sqlite_session_service import SqliteSessionService

from ...postgres import to_asyncpg_url
from ._copy_user_to_support import (create_database, drop_database, owner_role, read_postgres,
                                    reading_url, rename_database, url_for,
                                    write_sqlite)
from ._engine import ABSENT, Check, Exercise, Open, Resources, View, copy_folder, same, show
from ._harness import ActWorld
from ._observe import describe_key, read_sqlite
from ._world import (APP_STEMS, FIRST_NAMES, SHARED_SESSION_IDS, Clock, awkward_user_id,
                     lookalike_ids, play, secret, turn_events)

AGENT = "tutor_agent"
STORE = "store.db"
LEVELS = ("beginner", "novice", "intermediate", "advanced", "expert", "mentor")
ADK_ROWS = ("sessions", "events", "user_states", "app_states")
LENGTHS = ("app_name", "user_id", "session_id", "event_id", "invocation_id")
NUL_A = ("user_id_nul", "own_key_nul", "user_value_nul", "text_nul", "response_nul",
         "event_id_nul", "delta_key_nul")
NUL_B = ("app_name_nul", "session_id_nul", "own_value_nul", "user_key_nul", "call_args_nul",
         "metadata_nul", "invocation_id_nul", "author_nul")
# (source, dest, the refusals of the world)
VARIANTS = (("sqlite", "postgres", LENGTHS + ("collision",)),
            ("postgres", "sqlite", ("collision",)),
            ("sqlite", "postgres", NUL_A),
            ("sqlite", "postgres", NUL_B))
WHY = {"app_name": "an app name of 129 characters", "user_id": "a user id of 129 characters",
       "session_id": "a session id of 129 characters", "event_id": "an event id of 129 characters",
       "invocation_id": "an invocation id of 257 characters",
       "collision": "a session id this user already has in dest",
       "user_id_nul": "U+0000 in the user id", "app_name_nul": "U+0000 in the app name",
       "session_id_nul": "U+0000 in a session id", "event_id_nul": "U+0000 in an event id",
       "invocation_id_nul": "U+0000 in an invocation id", "author_nul": "U+0000 in an author",
       "own_key_nul": "U+0000 in a key of a session's state",
       "own_value_nul": "U+0000 in a list in a session's state",
       "user_key_nul": "U+0000 in a user-state key set by creating a session",
       "user_value_nul": "U+0000 in a nested user-state value set by creating a session",
       "text_nul": "U+0000 in a message's text", "call_args_nul": "U+0000 in a function call's "
       "arguments", "response_nul": "U+0000 in a function response",
       "metadata_nul": "U+0000 in an event's custom_metadata",
       "delta_key_nul": "U+0000 in a key of an event's state_delta"}


# --- the world ---------------------------------------------------------------------------------

def exactly(text: str, size: int, rng: random.Random) -> str:
  """``text`` cut or padded (with hex digits) to exactly ``size`` characters."""
  while len(text) < size:
    text += secret(rng)
  return text[:size]


class Script:
  """A store's content as ``play`` steps (events with ids and times drawn from the seed)."""

  def __init__(self, rng: random.Random, days_ago: float):
    self.rng, self.clock, self.steps = rng, Clock(rng, days_ago), []

  def create(self, app: str, user: str, sid: str, state: Optional[dict] = None) -> None:
    self.steps.append({"op": "create", "app": app, "user": user, "id": sid, "state": state or {}})

  def delete(self, app: str, user: str, sid: str) -> None:
    self.steps.append({"op": "delete", "app": app, "user": user, "id": sid})

  def _append(self, app: str, user: str, sid: str, events: list[dict]) -> list[dict]:
    for event in events:
      event["id"] = f"ev-{secret(self.rng)}"
      self.steps.append({"op": "append", "app": app, "user": user, "id": sid, "event": event})
    return events

  def turn(self, app: str, user: str, sid: str, user_delta: Optional[dict] = None,
           tool_delta: Optional[dict] = None, metadata: bool = False) -> list[dict]:
    """A question, a function call, its response (with ``tool_delta``), an answer."""
    rng = self.rng
    return self._append(app, user, sid, turn_events(
        rng, self.clock, agent=AGENT, mark=lambda: secret(rng), user_delta=user_delta,
        tool_delta=tool_delta, metadata=metadata))

  def say(self, app: str, user: str, sid: str, text: str, delta: Optional[dict] = None
          ) -> list[dict]:
    """A message and a reply (the reply carries ``delta``)."""
    invocation = f"e-{secret(self.rng)}"
    return self._append(app, user, sid, [
        {"invocation_id": invocation, "author": "user", "timestamp": self.clock.tick(self.rng),
         "content": {"role": "user", "parts": [{"text": text}]}},
        {"invocation_id": invocation, "author": AGENT, "timestamp": self.clock.tick(self.rng),
         "content": {"role": "model", "parts": [{"text": f"Noted: {secret(self.rng)}"}]},
         "actions": {"state_delta": dict(delta or {})}}])


def _profile(rng: random.Random, level: str) -> dict[str, Any]:
  return {"level": level, "badges": rng.sample(["sql", "json", "state", "events", "async"], 2),
          "score": round(rng.random(), 3), "verified": rng.random() < 0.5, "mentor": None}


def main_user(source: Script, dest: Script, app: str, user: str, ids: dict[str, str], *,
              idle_last: bool, text: str, at_limits: bool) -> None:
  """The user to copy. Source: extra sessions, then ``a`` (a shared id), ``b`` and ``c``
  interleaved: ``b`` writes newer ``user:`` values, then the user goes back to ``a``, updated
  last while holding older writes; creating ``c`` (no event) sets the latest ``user:level``.
  With ``idle_last``, ``c`` has no events. Dest: the user's own session and keys (one also in
  the source, older), newer ``app:`` values."""
  rng = source.rng
  first, newer, newest, placed = rng.sample(LEVELS, 4)
  for _ in range(rng.randrange(0, 3)):
    extra = f"s-{secret(rng)}"
    source.create(app, user, extra, {"goal": {"text": secret(rng)}})
    for _ in range(rng.randrange(0, 3)):
      source.say(app, user, extra, f"Warm-up {secret(rng)}", {"warmup": rng.randrange(9)})
  c_state = {"mood": "curious", "user:joined": "2024-09-01", "user:level": placed}
  source.create(app, user, ids["a"], {"goal": {"text": "pass the exam", "weeks": 6},
                                      "step:intro": {"done": True},
                                      "user:plan": {"tier": "pro", "seats": 1}})
  events = source.turn(app, user, ids["a"], {"user:level": first},
                       {"progress": {"topic": "sessions", "scores": [rng.randrange(100)]},
                        "user:profile": _profile(rng, first), "app:catalog_version": 3},
                       metadata=True)
  if at_limits:  # the longest ids PostgreSQL holds
    events[0]["id"] = exactly(f"ev-\u00e9\u2615-{secret(rng)}", 128, rng)
    events[1]["invocation_id"] = exactly(f"e-\u00e9\u2615-{secret(rng)}", 256, rng)
  source.create(app, user, ids["b"], {"goal": {"text": "revise", "weeks": 2}})
  source.turn(app, user, ids["b"], {"user:level": newer},
              {"user:profile": _profile(rng, newer), "topic": "state",
               "app:announcement": {"text": secret(rng)}})
  source.say(app, user, ids["b"], text, {"user:streak": 2, "user:level": newest})
  if not idle_last:
    source.create(app, user, ids["c"], c_state)
    source.turn(app, user, ids["c"], None, {"mood": {"now": "focused", "since": [9, 30]}})
  source.turn(app, user, ids["a"], {"user:streak": 3},
              {"progress": {"topic": "events", "scores": [1, 2]}})
  if idle_last:
    source.create(app, user, ids["c"], c_state)
  own = f"d-{secret(rng)}"
  dest.create(app, user, own, {"goal": {"text": "from the new system"},
                               "user:badge_pg": {"since": "2025", "colour": "teal"},
                               "user:level": "placement-test"})
  dest.turn(app, user, own, {"user:pg_only": rng.randrange(1000)}, {"app:catalog_version": 4})


def sessionless_user(source: Script, dest: Script, app: str, user: str) -> None:
  """A user whose sessions were all deleted: only their user state is left to copy."""
  rng = source.rng
  gone = f"s-{secret(rng)}"
  source.create(app, user, gone, {"user:plan": {"tier": "free"}, "note": secret(rng)})
  source.say(app, user, gone, f"Bye {secret(rng)}", {"user:level": rng.choice(LEVELS)})
  source.delete(app, user, gone)
  kept = f"d-{secret(rng)}"
  dest.create(app, user, kept, {"user:dest_only": {"since": secret(rng)}})
  dest.say(app, user, kept, f"Hi {secret(rng)}", {"user:level": "placement-test"})


def refused_user(source: Script, dest: Script, app: str, user: str, defect: str) -> None:
  """A user with one thing that cannot be copied, in the session listed last (a check made
  session by session finds it after writing the others). No state is written after the
  defect: SQLite's service merges a state's top-level keys and string values through
  ``json_each``, which cuts them at a U+0000."""
  rng = source.rng
  clean = f"s-{secret(rng)}"
  source.create(app, user, clean, {"goal": {"text": "warm up"}})
  source.say(app, user, clean, f"Hello {secret(rng)}", {"progress": 1, "app:catalog_version": 5})
  bad = {"session_id": exactly("s-", 129, rng), "session_id_nul": f"s-{secret(rng)}\x00"
         }.get(defect, f"s-{secret(rng)}")
  state: dict[str, Any] = {"goal": {"text": "the hard part", "weeks": rng.randrange(2, 9)},
                           "user:level": "novice"}
  state.update({"own_key_nul": {f"note\x00{secret(rng)}": True},
                "own_value_nul": {"drafts": ["fine", f"line\x00{secret(rng)}"]},
                "user_key_nul": {"user:alias\x00": secret(rng)},
                "user_value_nul": {"user:profile": {"bio": f"a\x00{secret(rng)}"}}
                }.get(defect, {}))
  if defect == "collision":
    dest.create(app, user, bad, {"goal": {"text": "already here"}})
    dest.say(app, user, bad, f"Started here {secret(rng)}", {"user:level": "kept"})
  source.create(app, user, bad, state)
  if defect in ("call_args_nul", "response_nul", "metadata_nul"):
    _, call, response, answer = source.turn(app, user, bad, metadata=True)
    if defect == "call_args_nul":
      call["content"]["parts"][0]["function_call"]["args"]["detail"]["note"] += "\x00"
    elif defect == "response_nul":
      response["content"]["parts"][0]["function_response"]["response"]["result"]["saved"] += \
          "\x00"
    else:
      answer["custom_metadata"]["trace"]["id"] += "\x00"
    return
  question, answer = source.say(app, user, bad, f"Why? {secret(rng)}")
  if defect == "text_nul":
    question["content"]["parts"][0]["text"] += "\x00"
  elif defect == "delta_key_nul":
    answer["actions"]["state_delta"]["step\x00two"] = 1
  elif defect == "author_nul":
    answer["author"] = f"{AGENT}\x00"
  elif defect in ("event_id", "event_id_nul"):
    answer["id"] = exactly("ev-", 129, rng) if defect == "event_id" else answer["id"] + "\x00"
  elif defect in ("invocation_id", "invocation_id_nul"):
    answer["invocation_id"] = (exactly("e-", 257, rng) if defect == "invocation_id"
                               else answer["invocation_id"] + "\x00")


def generate(rng: random.Random, variant: int) -> dict[str, Any]:
  source_kind, dest_kind, defects = VARIANTS[variant]
  stem = rng.choice(APP_STEMS)
  app = f"{stem}_{rng.randrange(10, 99)}"
  if variant == 2:  # the longest app name PostgreSQL holds
    app = exactly(f"{app}_\u00e9\u2615_", 128, rng)
  twin_app = f"{app[:-3]}_v2" if len(app) > 120 else f"{app}_v2"
  kind = {0: "quotes", 1: "like", 2: "unicode"}.get(variant) or rng.choice(("emoji", "spaces",
                                                                            "glob"))
  user = awkward_user_id(rng, kind)
  if variant in (0, 1):  # a user id, and a session id, of exactly 128 characters
    user = exactly(f"{user} \u2615 jose\u0301 ", 128, rng)
  others = [o for o in lookalike_ids(rng, user) if len(o) <= 128]
  neighbour = user[:-1] if len(user) >= 128 else f"{user}1"
  others = list(dict.fromkeys([neighbour] + others))[:3]
  bystander = rng.choice([n for n in FIRST_NAMES if n not in user.lower()])
  shared = rng.choice(SHARED_SESSION_IDS)
  ids = {"a": shared, "b": exactly("s-\u00e9\u2615", 128, rng) if variant in (0, 1)
         else f"s-{secret(rng)}", "c": f"s-{secret(rng)}"}
  text = ("In JSON the NUL character is written \\u0000 \U0001F600; cafe\u0301 "
          f"\u2615 ({secret(rng)})")
  source, dest = Script(rng, 30), Script(rng, 10)
  calls: list[dict[str, Any]] = [{"app": app, "user": user, "expect": "copy",
                                  "why": "copies a user"}]
  main_user(source, dest, app, user, ids, idle_last=rng.random() < 0.5 if variant else True,
            text=text, at_limits=variant in (0, 1))
  for number, other in enumerate(others):  # look-alikes: a session id shared with the user
    sid = shared if number == 0 else f"n-{secret(rng)}"
    source.create(app, other, sid, {"goal": {"text": secret(rng)}})
    source.say(app, other, sid, f"Me too {secret(rng)}", {"user:level": "look-alike"})
    dest.create(app, other, shared if number == 0 else f"m-{secret(rng)}", {"user:level": "kept"})
  source.create(twin_app, user, shared, {"user:level": "other app"})
  dest.create(twin_app, user, shared, {"user:level": "dest other app"})  # no collision
  visit = f"b-{secret(rng)}"
  dest.create(app, bystander, visit, {"app:theme": "dark"})
  dest.say(app, bystander, visit, f"Hi {secret(rng)}", {"user:level": "bystander"})
  if variant == 3:  # not copied, so no reason to refuse: the app's state, another user's data
    source.create(app, bystander, f"b-{secret(rng)}", {
        "app:banner": {"text": f"hi\x00{secret(rng)}"}, "draft": f"a\x00{secret(rng)}"})
    sessionless = f"{rng.choice(FIRST_NAMES)}_{rng.randrange(100, 999)}"
    sessionless_user(source, dest, app, sessionless)
    calls.append({"app": app, "user": sessionless, "expect": "copy",
                  "why": "copies a user with only user state"})
  for defect in defects:
    target_app = {"app_name": exactly(f"{stem}_", 129, rng),
                  "app_name_nul": f"{app[:20]}\x00"}.get(defect, app)
    target = {"user_id": exactly(f"{rng.choice(FIRST_NAMES)}_", 129, rng),
              "user_id_nul": f"{rng.choice(FIRST_NAMES)}\x00{rng.randrange(10, 99)}"
              }.get(defect, f"{rng.choice(FIRST_NAMES)}_{secret(rng)[:6]}")
    refused_user(source, dest, target_app, target, defect)
    calls.append({"app": target_app, "user": target, "expect": "refuse", "why": WHY[defect]})
  rng.shuffle(calls)
  for call in calls:
    call.update(_facts(source.steps, dest.steps, call["app"], call["user"]))
  return {"variant": variant, "source_kind": source_kind, "dest_kind": dest_kind,
          "source": source.steps, "dest": dest.steps, "calls": calls}


def _facts(source: list[dict], dest: list[dict], app: str, user: str) -> dict[str, list[str]]:
  """What each store holds of one user, as the judge needs it to classify a difference."""
  def holdings(steps: list[dict]) -> tuple[dict[str, set], set]:
    sessions: dict[str, set] = {}
    user_keys: set = set()
    for step in steps:
      if (step["app"], step["user"]) != (app, user):
        continue
      if step["op"] == "delete":
        sessions.pop(step["id"], None)
        continue
      delta = (step["state"] if step["op"] == "create"
               else step["event"].get("actions", {}).get("state_delta", {}))
      user_keys |= {k[5:] for k in delta if k.startswith("user:")}
      written = sessions.setdefault(step["id"], set())
      if step["op"] == "append":
        written |= {k[4:] for k in delta if k.startswith("app:")}
    return sessions, user_keys

  source_sessions, source_keys = holdings(source)
  dest_sessions, dest_keys = holdings(dest)
  return {"source_sessions": sorted(source_sessions), "dest_sessions": sorted(dest_sessions),
          "source_user_keys": sorted(source_keys), "dest_user_keys": sorted(dest_keys),
          "event_app_keys": sorted(set().union(*source_sessions.values()))}


async def build(spec: dict[str, Any], folder: Path, resources: Resources) -> dict[str, Any]:
  """The SQLite store in ``folder``, the PostgreSQL one in a database owned by a new role."""
  admin = resources.postgres_url
  if not admin:
    raise ValueError("copy_user_to needs a PostgreSQL server (Resources.postgres_url)")
  role, password = await owner_role(admin)
  database = await create_database(admin, role)
  inputs = {"database": database, "owner": role, "role": role if password else None,
            "calls": [[c["app"], c["user"]] for c in spec["calls"]]}
  url = to_asyncpg_url(url_for(admin, database, role, password) if password
                       else url_for(admin, database))
  try:
    from google.adk.sessions.database_session_service import DatabaseSessionService

    for side in ("source", "dest"):
      if spec[f"{side}_kind"] == "sqlite":
        inputs[side] = {"kind": "sqlite", "path": STORE}
        await write_sqlite(str(folder / STORE), spec[side])
      else:
        inputs[side] = {"kind": "postgres", "url": url}
        service = DatabaseSessionService(url)
        try:
          await play(service, spec[side])
        finally:
          await service.close()
  except BaseException:
    await teardown(spec, inputs, resources)
    raise
  return inputs


async def duplicate(spec: dict[str, Any], template: Path, inputs: dict[str, Any], folder: Path,
                    resources: Resources, copy: int) -> dict[str, Any]:
  """The SQLite file copied; the database cloned for the reference's copy (0), and for the
  submission's (1, the last one the engine makes) the template itself, renamed (same owner,
  so the same login works)."""
  await copy_folder(spec, template, inputs, folder, resources, copy)
  admin = resources.postgres_url
  assert admin
  database = (await rename_database(admin, inputs["database"]) if copy == 1
              else await create_database(admin, inputs["owner"], inputs["database"]))
  copied = dict(inputs, database=database)
  for side in ("source", "dest"):
    if inputs[side]["kind"] == "postgres":
      copied[side] = {"kind": "postgres", "url": url_for(inputs[side]["url"], database)}
  return copied


async def teardown(spec: dict[str, Any], inputs: dict[str, Any], resources: Resources) -> None:  # noqa: ARG001
  if resources.postgres_url and inputs.get("database"):
    await drop_database(resources.postgres_url, inputs["database"], inputs.get("role"))


# --- act -----------------------------------------------------------------------------------------

def _short(text: str) -> str:
  return repr(text if len(text) <= 24 else text[:23] + "\u2026")


async def act(fn: Callable, world: ActWorld) -> None:
  """Call ``fn(source, dest, app_name, user_id)`` for each of the world's users in turn, on the
  same two services; the snapshot when the last call has returned."""
  from google.adk.sessions.database_session_service import DatabaseSessionService

  def service(store: dict[str, Any]) -> Any:
    if store["kind"] == "sqlite":
      return SqliteSessionService(world.path(store["path"]))
    return DatabaseSessionService(store["url"])

  source, dest = service(world.inputs["source"]), service(world.inputs["dest"])
  try:
    for number, (app, user) in enumerate(world.inputs["calls"]):
      await world.call(fn, source, dest, app, user, is_async="contract" if number == 0 else None,
                       label=f"copy_user_to(app {_short(app)}, user {_short(user)})")
    world.snapshot()
  finally:
    for opened in (source, dest):
      try:
        await opened.close()
      except Exception:  # noqa: BLE001 - the function may have closed or broken it
        pass


# --- observe -------------------------------------------------------------------------------------

async def observe(spec: dict[str, Any], folder: Path, inputs: dict[str, Any], view: View
                  ) -> dict:
  found: dict = {}
  for side in ("source", "dest"):
    store = inputs[side]
    if store["kind"] == "sqlite":
      found.update(read_sqlite((view.snapshot or folder) / store["path"], (side,),
                               trusted=view.kind == "pristine"))
    else:
      found.update(await read_postgres(reading_url(inputs["database"], store["url"]), (side,)))
  return _without_empty_states(found)


def _without_empty_states(found: dict) -> dict:
  """A user_states or app_states row holding no key is no data (PostgreSQL's service creates
  them empty with each session, SQLite's does not): such a row is observed as absent."""
  size = {"user_states": 5, "app_states": 4}  # the length of a row's key

  def row(key: tuple) -> Optional[tuple]:
    if len(key) > 2 and key[1] == "table" and key[2] in size and len(key) >= size[key[2]]:
      return key[:size[key[2]]]
    return None

  empty = {row(key) for key, value in found.items()
           if row(key) and len(key) == len(row(key)) + 1 and key[-1] == "state" and value == {}}
  return {key: value for key, value in found.items() if row(key) not in empty} if empty else found


def _target(spec: dict[str, Any], app: Any, user: Any = None) -> Optional[dict[str, Any]]:
  for call in spec["calls"]:
    if call["app"] == app and (user is None or call["user"] == user):
      return call
  return None


def _copied(spec: dict[str, Any], app: Any, user: Any = None) -> bool:
  return any(c["expect"] == "copy" and c["app"] == app and (user is None or c["user"] == user)
             for c in spec["calls"])


def classify(spec: dict[str, Any], key: tuple) -> Any:
  if key[0] == "source":
    return "source_untouched"
  if len(key) < 2 or key[1] in ("missing", "unreadable"):
    return tuple(c.name for c in CHECKS)  # no store to judge: nothing is met
  if key[1] != "table" or len(key) < 4 or key[2] not in ADK_ROWS:
    return "dest_others_untouched"  # schema, format, catalogue, tables of one's own
  if key[2] == "app_states":  # the app's, everyone's
    refused_only = {c["expect"] for c in spec["calls"] if c["app"] == key[3]} == {"refuse"}
    return "no_half_copy" if refused_only else "dest_others_untouched"
  target = _target(spec, key[3], key[4]) if len(key) > 4 else None
  if target is None:
    return "dest_others_untouched"
  if target["expect"] == "refuse":
    return "no_half_copy"
  if key[2] == "user_states":
    item = key[6] if len(key) > 6 and key[5] == "state" else None
    if item in target["dest_user_keys"] and item not in target["source_user_keys"]:
      return "dest_user_data_kept"
    return "user_state_latest"
  session = key[5] if len(key) > 5 else None
  if session in target["source_sessions"]:
    if key[2] == "events":
      return "events_copied"
    return "sessions_copied" if len(key) == 6 else "session_state_copied"
  if session in target["dest_sessions"]:
    return "dest_user_data_kept"
  return "sessions_copied"  # a session of the user neither store had


def _had_app_key(pristine: dict, app: str, item: str) -> bool:
  prefix = ("dest", "table", "app_states", app, "state", item)
  return any(key[:6] == prefix for key in pristine)


LEAVES_OPEN = (
    Open(("dest", "table", "sessions", "*", "*", "*", "*_time"),
         "the creation and update times of the sessions a copy creates (rule: left open)",
         when=lambda key, spec, pristine: key[:6] not in pristine),
    Open(("dest", "table", "user_states", "*", "*", "update_time"),
         "when the copied user's state row was last written (left open)",
         when=lambda key, spec, pristine: _copied(spec, key[3], key[4])),
    Open(("dest", "table", "app_states", "*", "update_time"),
         "when the app's state row was last written (left open)",
         when=lambda key, spec, pristine: _copied(spec, key[3])),
    Open(("dest", "table", "app_states", "*"),
         "the app's state row may appear, with keys only the source's events wrote",
         when=lambda key, spec, pristine: _copied(spec, key[3]) and key not in pristine),
    Open(("dest", "table", "app_states", "*", "state", "*", "**"),
         "an app: key that only the copied events wrote may appear, with any value",
         when=lambda key, spec, pristine: any(
             key[5] in c["event_app_keys"] for c in spec["calls"]
             if c["expect"] == "copy" and c["app"] == key[3])
         and not _had_app_key(pristine, key[3], key[5])),
)


def properties(spec: dict[str, Any], observed: dict, pristine: dict) -> list[tuple[str, str]]:
  """What the contract says of every outcome, the reference's included: the source unchanged;
  what dest held kept (less the user-state keys the copy updates); every copied user's
  sessions, own state, events and user state in dest as the source has them; nothing of a
  refused user written; no session of a copied user that neither store had."""
  found: dict[str, str] = {}

  def problem(check: Any, key: tuple, what: str) -> None:
    for name in (check,) if isinstance(check, str) else check:
      found.setdefault(name, f"{describe(spec, key)}: {what}")

  def differs(key: tuple, expected: Any) -> bool:
    return not same(observed.get(key, ABSENT), expected)

  for key in set(pristine) | set(observed):
    if key[0] == "source" and differs(key, pristine.get(key, ABSENT)):
      problem("source_untouched", key, "changed")
  for key, value in pristine.items():
    if key[0] != "dest" or not differs(key, value) or EXERCISE.is_open(key, spec, pristine):
      continue
    target = (_target(spec, key[3], key[4])
              if len(key) > 6 and key[1] == "table" and key[2] == "user_states" else None)
    if target and target["expect"] == "copy" and key[6] in target["source_user_keys"]:
      continue  # takes the source's value
    problem(classify(spec, key), key, f"was {show(value)}, now {show(observed.get(key, ABSENT))}")
  for call in spec["calls"]:
    mine = (call["app"], call["user"])
    for key, value in pristine.items():
      if key[0] != "source" or key[1] != "table" or key[3:5] != mine:
        continue
      wanted = {"sessions": 6, "events": 7, "user_states": 5}.get(key[2])
      if call["expect"] == "copy" and wanted and (
          len(key) == wanted or key[wanted] in ("state", "event_data")):
        copied = ("dest",) + key[1:]
        if differs(copied, value):
          problem(classify(spec, copied), copied, f"expected {show(value)} (the source's), "
                  f"found {show(observed.get(copied, ABSENT))}")
  for key in observed:
    if key[0] != "dest" or key in pristine or len(key) < 6 or key[1] != "table" \
        or key[2] not in ("sessions", "events", "user_states"):
      continue
    target = _target(spec, key[3], key[4])
    if target and target["expect"] == "refuse":
      problem("no_half_copy", key, "written, though this user's copy is refused")
    elif target and key[2] != "user_states" and key[5] not in target["source_sessions"] \
        and key[5] not in target["dest_sessions"]:
      problem("sessions_copied", key, "a session of the user that neither store had")
  return sorted(found.items())


def describe(spec: dict[str, Any], key: tuple) -> str:  # noqa: ARG001
  if len(key) > 2 and key[1] == "pg":
    return f"{key[0]}'s {key[2]} {'.'.join(str(p) for p in key[3:])!r} (PostgreSQL catalogue)"
  return f"{key[0]}: {describe_key(key)}"


def label(spec: dict[str, Any]) -> str:
  """The direction, then each call: what the user to copy has, or why it must be refused."""
  names = {"sqlite": "SQLite", "postgres": "PostgreSQL"}
  calls = ", ".join(f"{n} {c['why']}" if c["expect"] == "copy" else f"{n} refused: {c['why']}"
                    for n, c in enumerate(spec["calls"], start=1))
  return f"{names[spec['source_kind']]} -> {names[spec['dest_kind']]}; calls {calls}"


CHECKS = (
    Check("sessions_copied", 2,
          "Every session of the user is in dest under its id, and no session of the user that "
          "neither store had is left there.",
          hint="Pass session_id= to create_session; a session created only to carry state must "
               "be deleted afterwards",
          success="every session is in dest under its id, none added"),
    Check("events_copied", 3,
          "Each copied session holds the source's events, each exactly as the source stores "
          "it: id, timestamp, invocation id, author, content, actions, metadata.",
          hint="Append the source's own Event objects (get_session has them; list_sessions "
               "leaves them out): an event rebuilt from a few fields loses the others",
          success="every event copied exactly"),
    Check("session_state_copied", 2,
          "Each copied session has the source session's own state (keys without a prefix).",
          hint="Keys set when a session was created appear in no event: give the copy its own "
               "state when you create it (without the user:, app: and temp: keys)",
          success="each session's own state is the source's"),
    Check("user_state_latest", 3,
          "dest's user state holds every user: key of the source with the value the source "
          "has now.",
          hint="Appending an event replays its state_delta with the values of its time, in "
               "whatever order you copy; and a value set by creating a session is in no event. "
               "Write the source's current user state once more after the last event",
          success="the user state in dest is the source's, latest values"),
    Check("dest_user_data_kept", 2,
          "What dest held for this user and the source does not have is unchanged: their own "
          "sessions (events and state) and user-state keys.",
          hint="A copy adds to dest; it never clears, replaces or mirrors what is there",
          success="this user's sessions and keys that only dest had are intact",
          needs_action=True),
    Check("dest_others_untouched", 2,
          "Other users of dest (ids sharing a prefix or differing by case included), the same "
          "user id in other apps, dest's tables and every app: key dest already had are "
          "unchanged, and no other user is copied.",
          hint="Copy exactly (app_name, user_id). Replaying an event also replays its app: "
               "writes, older than dest's: put back the app: values dest had",
          success="other users, apps and dest's app state are unchanged", needs_action=True),
    Check("source_untouched", 1, "The source is unchanged: a copy, not a move.",
          hint="copy_user_to only reads from source",
          success="every source is unchanged", needs_action=True),
    Check("refuses_what_postgres_cannot_hold", 1,
          "Each call ends as the contract says: ValueError for data PostgreSQL cannot hold "
          "(an id over its varchar size, U+0000 anywhere) or a session id this user already "
          "has in dest; a normal return otherwise.",
          hint="Check every id (app name, user id, session and event ids: 128 characters, "
               "invocation ids 256) and every key and value of the state and the events, before "
               "the first write; the same session id under another user or app is no collision",
          success="every call ended as the contract says"),
    Check("no_half_copy", 2,
          "When a copy is refused, dest is left exactly as it was.",
          hint="Read and check everything first, then write: a failure half-way leaves "
               "sessions, events and user: or app: values behind",
          success="dest is untouched when the copy is refused", needs_action=True),
)

EXERCISE = Exercise(
    name="copy_user_to",
    lesson="03_postgres",
    signature="async def copy_user_to(source, dest, app_name: str, user_id: str) -> None",
    is_async=True,
    checks=CHECKS,
    generate=generate,
    build=build,
    duplicate=duplicate,
    act=act,
    observe=observe,
    classify=classify,
    leaves_open=LEAVES_OPEN,
    properties=properties,
    worlds=len(VARIANTS),
    calls=lambda spec: len(spec["calls"]),
    needs_postgres=True,
    teardown=teardown,
    describe_key=describe,
    label=label,
    outcome_check="refuses_what_postgres_cannot_hold",
)
