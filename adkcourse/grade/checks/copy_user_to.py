"""The judge of the lesson-3 exercise ``copy_user_to`` (move a user between SQLite and PostgreSQL).

Contract (``exercises/copy_user_to.py``): ``async def copy_user_to(source, dest, app_name,
user_id)`` copies one user's sessions (same ids, own state), all their events exactly as stored
and their current user state from one session service into another, SQLite to PostgreSQL or
back; nothing ``dest`` held changes (the ``app:`` keys it holds when the call begins included),
the source neither. A session id this user already has in ``dest``, or data PostgreSQL cannot
hold (ids over their ``varchar`` sizes in code points; U+0000, a lone surrogate or a number
that is not finite anywhere), is refused with ``ValueError`` before anything is written.

Each world is two stores written from scripts (``_world.play``): a SQLite file and a
PostgreSQL database owned by a login role of the world's own (the function gets that role's
URL, never the admin's; copies are clones of a template database, see ``_copy_user_to_support``).
The function is called several times per world, on the same two services: first for a second
user to copy (then the judge writes a newer ``app:`` value into dest, as another writer
would), then in a random order for the user to copy, for a user the source has nothing of
(dest has), for a user whose only session is empty, and for users whose copy must be
refused, one defect each. In every world the user to copy has interleaved sessions (the
session updated last holds older ``user:`` writes, the latest value was set by creating a
session, in no event), a session id shared with other users and apps (``default``...), one of
128 code points, a session with no event and no state, an event with every field set
(``rich_event``), falsy values in both states, escapes written out (``\\u0000``, ``\\x00``,
``NaN``), an event id of 128 and an invocation id of 256 code points, an author and a branch
of 300; dest holds their own sessions and keys (ids differing from the source's only by case
or normalisation, ids a copy might give its helper sessions), look-alike users holding the
same session ids (prefix, case, normalisation), the same user in a lower-case twin app and a
``_v2`` app, newer ``app:`` values than the source's events write. Ids at the limits hold a
decomposed accent and an astral emoji (so bytes, UTF-16 units and NFC all count otherwise):
the app name is 128 in worlds 0 and 2, one copied user id 128 in each. Variants: SQLite ->
PostgreSQL with the length refusals (129 code points whose NFC form is 128, an invocation id
of 257, a user id with and without data) and a collision; PostgreSQL -> SQLite with a session
of more than a hundred events and a collision; two more SQLite -> PostgreSQL worlds, with
U+0000 in a user id, a session id and an app name. The three SQLite -> PostgreSQL worlds share
out the unfit data (see "every place unfit data can be" below): one refused user per class of
place of an event (every typed field; keys, texts and numbers at the top of and nested in each
free-form dict) and of a state (own, user, a user with no session left), the spot, the
character (U+0000, a lone surrogate, NaN, Infinity, -Infinity) and its position drawn from the
seed, written into the SQLite file directly.

The observation is both stores whole, read by the judge itself: every row of every table for
all apps and users (JSON columns item by item, state rows without any key count as absent) and
the schema: SQLite's tables and format, PostgreSQL's catalogue (schemas, relations and their
ACLs, columns, constraints, indexes, functions, triggers, policies, rules, types, extensions,
the database's settings); plus how each call ended.
"""

from __future__ import annotations

import functools
import json
import random
import unicodedata
import warnings
from copy import deepcopy
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import pydantic
from google.adk.events.event import Event
from google.adk.sessions.sqlite_session_service import SqliteSessionService

from ...postgres import to_asyncpg_url
from ._copy_user_to_support import (create_database, drop_database, owner_role, read_postgres,
                                    reading_url, rename_database, url_for,
                                    write_sqlite)
from ._engine import (ABSENT, SUBMISSION_COPY, Check, Exercise, Open, Resources, View, copy_folder,
                      same, show)
from ._harness import ActWorld
from ._observe import describe_key, read_sqlite, quote
from ._world import (APP_STEMS, FIRST_NAMES, SHARED_SESSION_IDS, Clock, awkward_user_id,
                     lookalike_ids, play, secret, turn_events)

AGENT = "tutor_agent"
STORE = "store.db"
LEVELS = ("beginner", "novice", "intermediate", "advanced", "expert", "mentor")
ADK_ROWS = ("sessions", "events", "user_states", "app_states")
# In an id at a limit: a decomposed accent (NFC is one shorter), an astral emoji (two UTF-16
# units), a three-byte cup: 128 code points fit whatever their bytes, UTF-16 units or NFC say.
FLAVOUR = "jose\u0301\U0001F600\u2615-"
# Ids a copy might give the sessions it creates only to read or carry state (dest has them).
HELPER_IDS = ("probe", "_probe", "__probe__", "carrier", "_carrier", "__carrier__", "tmp",
              "_tmp", "temp", "scratch", "state", "_state", "user_state", "app_state", "carry",
              "holder", "copy", "_copy", "helper", "staging")
LENGTHS = ("app_name", "user_id", "user_id_no_data", "session_id", "event_id", "invocation_id",
           "collision")
# (source, dest, the refusals of the world besides the unfit places it holds, see UNFIT_WORLDS)
VARIANTS = (("sqlite", "postgres", LENGTHS),
            ("postgres", "sqlite", ("collision",)),
            ("sqlite", "postgres", ("user_id_nul", "session_id_nul")),
            ("sqlite", "postgres", ("app_name_nul",)))
UNFIT_WORLDS = (0, 2, 3)  # the SQLite -> PostgreSQL variants, which share the places out
TOOL = "save_note"
WHY = {"app_name": "an app name of 129 characters",
       "app_name_nul": "U+0000 in an app name the source has no data of",
       "user_id": "a user id of 129 characters",
       "user_id_no_data": "a user id of 129 characters the source has no data of",
       "user_id_nul": "U+0000 in a user id the source has no data of",
       "session_id": "a session id of 129 characters",
       "session_id_nul": "U+0000 in a session id",
       "event_id": "an event id of 129 characters",
       "invocation_id": "an invocation id of 257 characters",
       "collision": "a session id this user already has in dest"}


# --- every place unfit data can be -------------------------------------------------------------
#
# PostgreSQL refuses U+0000, a lone surrogate and a number that is not finite anywhere in what
# a copy writes, so checking a list of fields is wrong by design, and so would be a judge that
# hid them in a list. The places are found by trial, not listed: every key, text and number of
# an event with every field set (``rich_event``) that ADK stores and reads back holding it. They
# fall into classes: each typed field of an event; for each free-form dict in it (metadata,
# arguments, responses, outputs, payloads, the state_delta per prefix), its keys, texts and
# numbers, at its top and nested; the same six for a session's own state and for the user
# state. A run's worlds hold, between them, one refused user per class (a fixed field list
# misses a class, so it loses on every seed), the exact spot in the class, the character and
# where it goes in the text drawn from the world's seed. The spoiled data is written into the
# SQLite file itself, as a store written by other means holds it: through ADK's services a
# number that is not finite in an event becomes null, a lone surrogate cannot be written at
# all, and a state_delta would spread the character into the states too. (An event cannot hold
# a lone surrogate: SQLite's service cannot read one back.)

SpotPath = tuple  # a spot: keys and list indices from the top of an event's (or a state's) JSON


def _bag(mark: Callable[[], str]) -> dict[str, Any]:
  """Free-form data with a key, a text and a number at its top and nested (in a dict, in a
  list)."""
  return {"note": mark(), "rate": 0.5, "detail": {"text": mark(), "tags": [mark(), 1.5]}}


def rich_event(mark: Callable[[], str], timestamp: float) -> dict[str, Any]:
  """An event with every field ADK's services store and give back set (no id: ``Script`` gives
  it one), each free-form dict a ``_bag``; the state_delta has keys of each prefix, whose
  values are a text, a number and a ``_bag`` each."""
  m = mark
  delta = {}
  for prefix in ("", "user:", "app:"):
    delta.update({f"{prefix}motto": m(), f"{prefix}pace": 0.25, f"{prefix}draft": _bag(m)})
  return {
      "invocation_id": f"e-{m()}", "author": AGENT, "timestamp": timestamp,
      "branch": f"root.{AGENT}.{m()}", "isolation_scope": f"scope-{m()}",
      "model_version": f"gemini-{m()}", "error_code": f"E_{m()}",
      "error_message": f"failed {m()}", "live_session_id": f"live-{m()}",
      "interaction_id": f"ix-{m()}", "environment_id": f"env-{m()}",
      "long_running_tool_ids": [f"lr-{m()}"], "custom_metadata": _bag(m), "output": _bag(m),
      "node_info": {"path": f"{AGENT}/{m()}", "output_for": [f"node-{m()}"]},
      "avg_logprobs": -0.125,
      "content": {"role": "model", "parts": [
          {"text": f"Here {m()}"},
          {"function_call": {"id": f"adk-{m()}", "name": TOOL, "args": _bag(m)}},
          {"function_response": {"id": f"adk-{m()}", "name": TOOL, "response": _bag(m)}},
          {"executable_code": {"code": f"print({m()!r})", "language": "PYTHON"}},
          {"code_execution_result": {"outcome": "OUTCOME_OK", "output": f"out {m()}"}},
          {"file_data": {"file_uri": f"gs://notes/{m()}", "mime_type": "text/plain",
                         "display_name": f"notes-{m()}"}},
          {"text": f"thinking {m()}", "thought": True}]},
      "grounding_metadata": {
          "web_search_queries": [f"q {m()}"], "retrieval_queries": [f"r {m()}"],
          "grounding_chunks": [{"web": {"uri": f"https://x.org/{m()}", "title": f"t {m()}",
                                        "domain": f"d{m()}.org"}}],
          "grounding_supports": [{"segment": {"text": f"s {m()}", "start_index": 0,
                                              "end_index": 5},
                                  "grounding_chunk_indices": [0], "confidence_scores": [0.875]}],
          "search_entry_point": {"rendered_content": f"<b>{m()}</b>"}},
      "citation_metadata": {"citations": [{"uri": f"https://c.org/{m()}", "title": f"c {m()}",
                                           "license": f"lic {m()}", "start_index": 1,
                                           "end_index": 4}]},
      "input_transcription": {"text": f"heard {m()}", "language_code": "en-GB"},
      "output_transcription": {"text": f"said {m()}"},
      "logprobs_result": {"chosen_candidates": [{"token": f"t{m()}", "log_probability": -0.5,
                                                 "token_id": 7}],
                          "log_probability_sum": -1.5},
      "cache_metadata": {"cache_name": f"projects/p/cachedContents/{m()}", "fingerprint": m(),
                         "contents_count": 2, "invocations_used": 3,
                         "expire_time": timestamp + 3600, "created_at": timestamp - 60},
      "actions": {
          "state_delta": delta, "artifact_delta": {"notes.txt": 1},
          "transfer_to_agent": f"agent_{m()}", "transfer_reason": f"because {m()}",
          "requested_tool_confirmations": {"adk-confirm": {"hint": f"ok? {m()}",
                                                    "confirmed": False,
                                                    "payload": _bag(m)}},
          "agent_state": _bag(m), "rewind_before_invocation_id": f"e-{m()}",
          "route": f"route-{m()}", "set_model_response": _bag(m),
          "render_ui_widgets": [{"id": f"w-{m()}", "provider": f"p-{m()}", "payload": _bag(m)}],
          "compaction": {"start_timestamp": timestamp - 100, "end_timestamp": timestamp - 50,
                         "compacted_content": {"role": "model",
                                               "parts": [{"text": f"summary {m()}"}]}}},
  }


def stored_event(event: dict[str, Any]) -> dict[str, Any]:
  """``event`` (JSON, with its id) as ADK's services store it: ``model_dump_json``."""
  return json.loads(Event.model_validate(event).model_dump_json(exclude_none=True))


def _plain(value: Any) -> Any:
  """A ``model_dump`` as JSON-like data: sets as sorted lists (to look spots up in)."""
  if isinstance(value, dict):
    return {k: _plain(v) for k, v in value.items()}
  if isinstance(value, (list, tuple)):
    return [_plain(v) for v in value]
  if isinstance(value, (set, frozenset)):
    return sorted(_plain(v) for v in value)
  return value


def _at(value: Any, path: SpotPath) -> Any:
  for step in path:
    value = value[step]
  return value


REQUIRED = ("id", "invocation_id", "author", "timestamp")


def event_slice(event: dict[str, Any], path: SpotPath) -> tuple[dict[str, Any], SpotPath]:
  """The part of stored ``event`` a spot at ``path`` needs, and the spot's path in it: the
  required fields and the top-level field on the path (of ``actions``, its own field on it),
  of each list on the way only the item on it (a spot is judged alone: a small row)."""
  field = path[:2] if len(path) > 1 and path[0] == "actions" else path[:1]
  value = deepcopy(_at(event, field))
  data = {k: event[k] for k in REQUIRED}
  if len(field) == 2:
    data["actions"] = {field[1]: value}
  else:
    data[field[0]] = value
  kept, holder = list(field), value
  for step in path[len(field):]:
    if isinstance(holder, list):
      holder[:] = [holder[step]]
      step = 0
    kept.append(step)
    holder = holder[step]
  return data, tuple(kept)


def _holds(data: dict[str, Any], path: SpotPath, kind: str, spoiled: Any) -> bool:
  """Whether ``data`` (an event's JSON), read back as ADK reads a stored event, holds
  ``spoiled`` at ``path`` (a key there, for ``kind`` "key")."""
  try:
    with warnings.catch_warnings():
      warnings.simplefilter("ignore")  # genai warns of enum values it does not know
      read = _plain(Event.model_validate_json(json.dumps(data)).model_dump())
    if kind == "key":
      return spoiled in _at(read, path[:-1])
    found = _at(read, path)
  except (pydantic.ValidationError, KeyError, IndexError, TypeError):
    return False
  if kind == "text":  # an enum's value (genai keeps one it does not know) is a str too
    return isinstance(found, str) and found == spoiled
  return same(found, spoiled)


def _try_spot(event: dict[str, Any], kind: str, path: SpotPath) -> bool:
  """Whether an event can hold an unfit character (a NaN for a number) at this spot."""
  data, path = event_slice(event, path)
  holder, last = _at(data, path[:-1]), path[-1]
  if kind == "key":
    spoiled = f"{last}\x00"
    holder[spoiled] = holder.pop(last)
  else:
    spoiled = f"{holder[last]}\x00" if kind == "text" else float("nan")
    holder[last] = spoiled
  return _holds(data, path, kind, spoiled)


def _spots(value: Any, path: SpotPath = ()) -> Iterator[tuple[str, SpotPath]]:
  """Every key, text and number of JSON ``value``: (kind, path)."""
  if isinstance(value, dict):
    for key, item in value.items():
      yield "key", path + (key,)
      yield from _spots(item, path + (key,))
  elif isinstance(value, list):
    for index, item in enumerate(value):
      yield from _spots(item, path + (index,))
  elif isinstance(value, str):
    yield "text", path
  elif isinstance(value, (int, float)) and not isinstance(value, bool):
    yield "number", path


def _typed(path: SpotPath, indices: bool = False) -> str:
  """``path`` in words: ``content.parts[].text`` (``parts[0]`` with ``indices``)."""
  return "".join((f"[{p}]" if indices else "[]") if isinstance(p, int) else f".{p}"
                 for p in path).lstrip(".")


def _where(name: str, path: SpotPath) -> str:
  """A spot of class ``name`` in words: the class, and the path when the class has more."""
  return name if name == _typed(path) or "(a number)" in name else \
      f"{name} ({_typed(path, indices=True)})"


PREFIX_NAMES = {"": "own", "user:": "user:", "app:": "app:"}
KIND_WORDS = {"key": "a key", "text": "a text", "number": "a number"}


def _prefix(key: str) -> str:
  return next((p for p in ("user:", "app:") if key.startswith(p)), "")


def classify_spots(spots: list[tuple[str, SpotPath]]) -> dict[str, list[tuple[str, SpotPath]]]:
  """Spots by class: a typed field (its path without list indices); in a free-form dict (one
  whose keys are spots), the dict's path, the kind and whether at its top or nested. The
  state_delta's keys of each prefix are a dict of their own."""
  free = {path[:-1] for kind, path in spots if kind == "key"}
  classes: dict[str, list[tuple[str, SpotPath]]] = {}
  for kind, path in spots:
    top = next((n for n in range(len(path)) if path[:n] in free), None)
    if top is None:
      name = f"{_typed(path)} (a {kind})" if kind == "number" else _typed(path)
    else:
      depth = len(path) - top - 1
      where = _typed(path[:top])
      if path[:top] == ("actions", "state_delta"):
        where += f" ({PREFIX_NAMES[_prefix(path[top])]} keys)"
      words = f"{KIND_WORDS[kind]} {'at its top' if depth == 0 else 'nested'}"
      name = f"{where}: {words}" if where else words
    classes.setdefault(name, []).append((kind, path))
  return classes


@functools.lru_cache(maxsize=1)
def event_classes() -> dict[str, tuple[tuple[str, SpotPath], ...]]:
  """Every class of spot in an event where ADK keeps an unfit character (or a NaN) as it is,
  found by trying each spot of ``rich_event`` (in slices: under a tenth of a second)."""
  counter = iter(range(10**6))
  event = stored_event({**rich_event(lambda: f"m{next(counter)}", 1.7e9), "id": "ev-1"})
  spots = [(kind, path) for kind, path in _spots(event) if _try_spot(event, kind, path)]
  return {name: tuple(found) for name, found in classify_spots(spots).items()}


# A session's own state and a user state (without the prefix) to spoil, in the same classes
STATE_TEMPLATE = {"goal": {"text": "pass the exam", "steps": ["intro", 2.5]}, "note": "kept",
                  "pace": 0.5}
TEXTS = ("U+0000", "a lone surrogate")
NUMBERS = ("NaN", "Infinity", "-Infinity")


def _state_classes() -> dict[str, tuple[Optional[str], tuple[tuple[str, SpotPath], ...]]]:
  """class -> (the character, None for a number: the world deals those out; its spots). A
  state's keys and texts are a class per character: a lone surrogate is its own mistake."""
  classes = {}
  for scope in ("a session's own state", "the user state"):
    for name, spots in classify_spots(list(_spots(STATE_TEMPLATE))).items():
      if spots[0][0] == "number":
        classes[f"{scope}: {name}"] = (None, tuple(spots))
      else:
        classes.update({f"{scope}: {name}, {word}": (word, tuple(spots)) for word in TEXTS})
  return classes


STATE_CLASSES = _state_classes()
# Its keys and texts get U+0000: with no session to write first, a lone surrogate in a key
# makes ADK raise UnicodeEncodeError, a ValueError, before anything is written.
USER_ONLY = "the user state of a user with no session left"
ENUM_WARNING = r"(?s).* is not a valid (Language|Outcome)$"


def _spoil(data: Any, kind: str, path: SpotPath, word: str, rng: random.Random) -> None:
  """Put ``word`` (a character of ``TEXTS``, a number of ``NUMBERS``) at the spot, in place,
  a character anywhere in the text (a key keeps its prefix)."""
  holder, last = _at(data, path[:-1]), path[-1]
  if kind == "number":
    holder[last] = float(word.lower().replace("infinity", "inf"))
    return
  char = "\x00" if word == "U+0000" else chr(rng.randrange(0xD800, 0xE000))
  text = last if kind == "key" else holder[last]
  start = len(_prefix(text)) if kind == "key" else 0
  cut = rng.randrange(start, len(text) + 1)
  spoiled = text[:cut] + char + text[cut:]
  if kind == "key":
    holder[spoiled] = holder.pop(last)
  else:
    holder[last] = spoiled


def unfit_classes(variant: int) -> list[str]:
  """The classes of place whose refused users world ``variant`` holds (each class in one of
  the ``UNFIT_WORLDS``)."""
  if variant not in UNFIT_WORLDS:
    return []
  names = sorted(event_classes()) + sorted(STATE_CLASSES) + [USER_ONLY]
  return names[UNFIT_WORLDS.index(variant)::len(UNFIT_WORLDS)]


# --- the world ---------------------------------------------------------------------------------

def exactly(text: str, size: int, rng: random.Random) -> str:
  """``text`` cut or padded (with hex digits) to exactly ``size`` characters."""
  while len(text) < size:
    text += secret(rng)
  return text[:size]


def at_limit(prefix: str, size: int, rng: random.Random) -> str:
  """An id of exactly ``size`` code points, with ``FLAVOUR`` in it."""
  return exactly(prefix + FLAVOUR, size, rng)


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
           tool_delta: Optional[dict] = None, metadata: bool = True) -> list[dict]:
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

  def rich(self, app: str, user: str, sid: str) -> dict:
    """A ``rich_event``: every field set."""
    rng = self.rng
    return self._append(app, user, sid, [rich_event(lambda: secret(rng), self.clock.tick(rng))])[0]

  def rich_slice(self, app: str, user: str, sid: str, spot: SpotPath) -> tuple[dict, SpotPath]:
    """Only the part of a ``rich_event`` a spot needs (``event_slice``), and its path there."""
    rng = self.rng
    event, path = event_slice({**rich_event(lambda: secret(rng), self.clock.tick(rng)),
                               "id": ""}, spot)
    return self._append(app, user, sid, [event])[0], path

  def chatter(self, app: str, user: str, sid: str, count: int) -> None:
    """``count`` short events (a long session: more than a page of recent events)."""
    for number in range(count):
      self._append(app, user, sid, [
          {"invocation_id": f"e-{number}", "author": "user" if number % 2 else AGENT,
           "timestamp": self.clock.tick(self.rng),
           "content": {"role": "user", "parts": [{"text": f"#{number}"}]}}])


def _profile(rng: random.Random, level: str) -> dict[str, Any]:
  return {"level": level, "badges": rng.sample(["sql", "json", "state", "events", "async"], 2),
          "score": round(rng.random(), 3), "verified": rng.random() < 0.5, "mentor": None}


# Written out, these are only text: a copy keeps them (keys and values alike).
ESCAPES = {"json": "\\u0000", "python": "\\x00", "number": "NaN", "half": "\\ud800",
           "note\\x00": "Infinity"}
FALSY = {"count": 0, "done": False, "note": "", "pick": None, "tags": [], "extra": {}}


def main_user(source: Script, dest: Script, app: str, user: str, ids: dict[str, str], *,
              idle_last: bool, text: str, long_session: bool, helpers: list[str]) -> None:
  """The user to copy. Source: an extra session, then ``a`` (a shared id), ``b`` (128 code
  points) and ``c`` interleaved: ``b`` writes newer ``user:`` values, then the
  user goes back to ``a``, updated last while holding older writes; creating ``c`` (no event)
  sets the latest ``user:level`` and falsy ``user:`` values dest holds truthy; ``a`` also holds
  a ``rich_event`` (every field of an event set), and the user has a session with no event and
  no state, created early or last. With
  ``idle_last``, ``c`` has no events; with ``long_session``, one session has more than a hundred
  events. Ids and fields at and past other stores' limits (event id 128, invocation id 256,
  author and branch of 300, a key of 300). Dest: the user's own sessions (one per id that
  differs from a source id only by case or normalisation, ``helpers``) and keys. (No id
  with spaces around it: SQLite's service strips a session id it creates.)"""
  rng = source.rng
  first, newer, newest, placed = rng.sample(LEVELS, 4)
  if rng.random() < 0.5:
    extra = f"s-{secret(rng)}"
    source.create(app, user, extra, {"goal": {"text": secret(rng)}})
    source.say(app, user, extra, f"Warm-up {secret(rng)}", {"warmup": rng.randrange(9)})
  long_key = exactly("k-", 300, rng)
  c_state = {"mood": "curious", "user:joined": "2024-09-01", "user:level": placed,
             **{f"user:{k}": v for k, v in FALSY.items()}, f"user:{long_key}": ESCAPES}
  source.create(app, user, ids["a"], {"goal": {"text": "pass the exam", "weeks": 6},
                                      "step:intro": {"done": True}, **FALSY,
                                      "escapes": ESCAPES, long_key: {"ok": True},
                                      "user:plan": {"tier": "pro", "seats": 1}})
  events = source.turn(app, user, ids["a"], {"user:level": first},
                       {"progress": {"topic": "sessions", "scores": [rng.randrange(100)]},
                        "user:profile": _profile(rng, first), "app:catalog_version": 3})
  events[0]["id"] = at_limit("ev-", 128, rng)
  events[1]["invocation_id"] = at_limit("e-", 256, rng)
  events[2]["author"] = exactly(f"{AGENT}-", 300, rng)
  events[3].update(branch=exactly(f"root.{AGENT}.", 300, rng), error_code="",
                   error_message=f"{text} {exactly('m', 400, rng)}")
  source.rich(app, user, ids["a"])
  empty = f"s-{secret(rng)}"  # no event, no state: a session all the same
  if rng.random() < 0.5:
    source.create(app, user, empty)
  source.create(app, user, ids["b"], {"goal": {"text": "revise", "weeks": 2}})
  source.turn(app, user, ids["b"], {"user:level": newer},
              {"user:profile": _profile(rng, newer), "topic": "state",
               "app:announcement": {"text": secret(rng)}})
  source.say(app, user, ids["b"], text, {"user:streak": 2, "user:level": newest})
  if long_session:
    source.chatter(app, user, ids["b"], rng.randrange(100, 104))
  if not idle_last:
    source.create(app, user, ids["c"], c_state)
    source.turn(app, user, ids["c"], None, {"mood": {"now": "focused", "since": [9, 30]}})
  source.turn(app, user, ids["a"], {"user:streak": 3},
              {"progress": {"topic": "events", "scores": [1, 2]}})
  if idle_last:
    source.create(app, user, ids["c"], c_state)
  if not any(step.get("id") == empty for step in source.steps):
    source.create(app, user, empty)
  own = f"d-{secret(rng)}"
  dest.create(app, user, own, {"goal": {"text": "from the new system"},
                               "user:badge_pg": {"since": "2025", "colour": "teal"},
                               "user:level": "placement-test", "user:count": 7,
                               "user:done": True, "user:note": "set", "user:pick": "b",
                               "user:tags": ["x"], "user:extra": {"y": 1}})
  dest.turn(app, user, own, {"user:pg_only": rng.randrange(1000)}, {"app:catalog_version": 4})
  twins = {ids["a"].swapcase(), ids["a"].title(), unicodedata.normalize("NFC", ids["b"])}
  for sid in sorted(twins - set(ids.values())) + helpers:  # no collision: other ids
    dest.create(app, user, sid, {"mine": sid})


def companion_user(source: Script, dest: Script, app: str, user: str) -> None:
  """A second user to copy, before the main one: one session whose events write an app: key
  that dest has (the judge then writes a newer value into dest, before the next copy)."""
  rng = source.rng
  sid = f"s-{secret(rng)}"
  source.create(app, user, sid, {"goal": {"text": secret(rng)}})
  source.say(app, user, sid, f"Hello {secret(rng)}",
             {"app:catalog_version": 6, "user:level": rng.choice(LEVELS)})
  dest.create(app, user, f"d-{secret(rng)}", {"user:level": "placement-test"})


def sessionless_user(source: Script, dest: Script, app: str, user: str) -> None:
  """A user whose sessions were all deleted: only their user state is left to copy."""
  rng = source.rng
  gone = f"s-{secret(rng)}"
  source.create(app, user, gone, {"user:plan": {"tier": "free"}, "note": secret(rng)})
  source.say(app, user, gone, f"Bye {secret(rng)}", {"user:level": rng.choice(LEVELS)})
  source.delete(app, user, gone)
  dest.create(app, user, f"d-{secret(rng)}", {"user:dest_only": {"since": secret(rng)},
                                               "user:level": "placement-test"})


def refused_user(source: Script, dest: Script, app: str, user: str, defect: str) -> None:
  """A user with one thing that cannot be copied (an id's length, a collision, U+0000 in a
  session id), in the session listed last (a check made session by session finds it after
  writing the others); nothing at all for an id refused whatever the source holds."""
  rng = source.rng
  if defect in ("user_id_no_data", "user_id_nul", "app_name_nul"):
    return
  clean = f"s-{secret(rng)}"
  source.create(app, user, clean, {"goal": {"text": "warm up"}})
  source.say(app, user, clean, f"Hello {secret(rng)}", {"progress": 1, "app:catalog_version": 5})
  bad = {"session_id": at_limit("s-", 129, rng), "session_id_nul": f"s-{secret(rng)}\x00"
         }.get(defect, f"s-{secret(rng)}")
  if defect == "collision":
    dest.create(app, user, bad, {"goal": {"text": "already here"}})
    dest.say(app, user, bad, f"Started here {secret(rng)}", {"user:level": "kept"})
  source.create(app, user, bad, {"goal": {"text": "the hard part"}, "user:level": "novice"})
  turn = source.turn(app, user, bad)
  if defect == "event_id":
    turn[3]["id"] = at_limit("ev-", 129, rng)
  elif defect == "invocation_id":
    turn[3]["invocation_id"] = at_limit("e-", 257, rng)


def _row(app: str, user: str, **more: str) -> dict[str, str]:
  """The columns that pick one row of a user's."""
  return {"app_name": app, "user_id": user, **more}


def unfit_user(source: Script, app: str, user: str, name: str, clean: bool,
               numbers: Iterator[str]) -> tuple[str, dict[str, Any]]:
  """A user whose data holds something PostgreSQL refuses at one spot of class ``name`` (the
  spot and where the character goes drawn from the seed; a number the next of ``numbers``),
  in the session listed last (after a ``clean`` one, if asked, and always for a state: a
  check made session by session finds it after writing that one); (why, in words; the patch
  that writes it into the SQLite file)."""
  rng = source.rng
  state = deepcopy(STATE_TEMPLATE)  # spoiled, then patched in (the script keeps it clean)
  user_state = {f"user:{key}": value for key, value in deepcopy(STATE_TEMPLATE).items()}
  if name == USER_ONLY:  # sessions all deleted: only the user state is left
    gone = f"s-{secret(rng)}"
    source.create(app, user, gone, user_state)
    source.delete(app, user, gone)
    kind, path = rng.choice(list(dict.fromkeys(spot for _, spots in STATE_CLASSES.values()
                                               for spot in spots)))
    word = next(numbers) if kind == "number" else "U+0000"
    _spoil(state, kind, path, word, rng)
    return (f"{word} in {_where(name, path)}",
            {"table": "user_states", "where": _row(app, user),
             "set": {"state": json.dumps(state)}})
  if clean or name in STATE_CLASSES:
    source.create(app, user, f"s-{secret(rng)}", {"goal": {"text": "warm up"}})
  bad = f"s-{secret(rng)}"
  if name in STATE_CLASSES:
    word, spots = STATE_CLASSES[name]
    kind, path = rng.choice(spots)
    word = word or next(numbers)
    own = name.startswith("a session's")
    source.create(app, user, bad, deepcopy(STATE_TEMPLATE) if own
                  else {"goal": {"text": "hard"}, **user_state})
    _spoil(state, kind, path, word, rng)
    where = (_row(app, user, id=bad) if own else _row(app, user))
    return (f"{word} in {_where(name.removesuffix(f', {word}'), path)}",
            {"table": "sessions" if own else "user_states", "where": where,
             "set": {"state": json.dumps(state)}})
  kind, spot = rng.choice(event_classes()[name])
  source.create(app, user, bad, {"goal": {"text": "the hard part"}})
  event, path = source.rich_slice(app, user, bad, spot)
  stored = stored_event(event)
  word = next(numbers) if kind == "number" else "U+0000"  # an event cannot hold a surrogate
  _spoil(stored, kind, path, word, rng)
  return (f"{word} in an event's {_where(name, path)}",
          {"table": "events", "where": _row(app, user, session_id=bad, id=event["id"]),
           "set": {"event_data": json.dumps(stored, ensure_ascii=False), "id": stored["id"],
                   "invocation_id": stored["invocation_id"]}})


def generate(rng: random.Random, variant: int) -> dict[str, Any]:
  source_kind, dest_kind, defects = VARIANTS[variant]
  stem = rng.choice(APP_STEMS).title()
  app = f"{stem}_{rng.randrange(10, 99)}"
  if variant in (0, 2):  # the longest app name PostgreSQL holds
    app = at_limit(f"{app}_", 128, rng)
  twin_apps = (app.lower(), f"{app[:-3]}_v2" if len(app) > 120 else f"{app}_v2")
  kind = ("quotes", "like", "unicode", "glob")[variant]
  user = awkward_user_id(rng, kind)
  if variant in (0, 1):  # a user id of exactly 128 characters
    user = at_limit(f"{user} ", 128, rng)
  partner = (awkward_user_id(rng, ("spaces", "unicode")[variant]) if variant < 2
             else at_limit(f" {rng.choice(FIRST_NAMES)} ", 128, rng))
  others = [o for o in lookalike_ids(rng, user) if len(o) <= 128]
  neighbour = user[:-1] if len(user) >= 128 else f"{user}1"
  nfd_twin = unicodedata.normalize("NFD" if user == unicodedata.normalize("NFC", user)
                                   else "NFC", user)
  others = list(dict.fromkeys([neighbour, user.swapcase()] + others + [nfd_twin]))
  others = [o for o in others if o != user][:4]
  taken = user.lower() + partner.lower()
  bystander, newcomer = rng.sample([n for n in FIRST_NAMES if n not in taken], 2)
  newcomer = f"{newcomer}_{rng.randrange(100, 999)}"
  shared = rng.choice(SHARED_SESSION_IDS)
  ids = {"a": shared, "b": at_limit("s-\u00e9", 128, rng), "c": f"s-{secret(rng)}"}
  text = ("In JSON the NUL character is written \\u0000, in Python \\x00 \U0001F600; cafe\u0301 "
          f"\u2615 NaN ({secret(rng)})")
  source, dest = Script(rng, 30), Script(rng, 10)
  calls: list[dict[str, Any]] = [
      {"app": app, "user": user, "expect": "copy", "why": "copies a user"},
      {"app": app, "user": newcomer, "expect": "copy",
       "why": "copies a user the source has nothing of"}]
  helpers = list(HELPER_IDS[variant::len(VARIANTS)])
  main_user(source, dest, app, user, ids, idle_last=rng.random() < 0.5 if variant else True,
            text=text, long_session=variant == 1, helpers=helpers)
  companion_user(source, dest, app, partner)
  dest.create(app, newcomer, f"n-{secret(rng)}", {"user:level": "new here"})
  for number, other in enumerate(others):  # look-alikes: they hold the user's session ids
    sid = shared if number % 2 == 0 else f"n-{secret(rng)}"
    source.create(app, other, sid, {"goal": {"text": secret(rng)}})
    if number == 0:
      source.say(app, other, sid, f"Me too {secret(rng)}", {"user:level": "look-alike"})
    dest.create(app, other, shared if number % 2 else ids["b"], {"user:level": "kept"})
  for twin in twin_apps:  # the same user and session ids in other apps: no collision
    source.create(twin, user, shared, {"user:level": "other app"})
    dest.create(twin, user, ids["b"] if twin == app.lower() else shared,
                {"user:level": "dest other app"})
  visit = f"b-{secret(rng)}"
  dest.create(app, bystander, visit, {"app:theme": "dark"})
  dest.say(app, bystander, visit, f"Hi {secret(rng)}", {"user:level": "bystander"})
  if variant == 3:  # not copied, so no reason to refuse: the app's state, another user's data
    source.create(app, bystander, f"b-{secret(rng)}", {
        "app:banner": {"text": f"hi\x00{secret(rng)}"}, "draft": f"a\x00{secret(rng)}"})
  if source_kind == "sqlite":
    sessionless = f"{rng.choice(FIRST_NAMES)}_{rng.randrange(100, 999)}"
    sessionless_user(source, dest, app, sessionless)
    calls.append({"app": app, "user": sessionless, "expect": "copy",
                  "why": "copies a user with only user state"})
  hollow = f"{rng.choice(FIRST_NAMES)}-{secret(rng)[:6]}"
  source.create(app, hollow, f"h-{secret(rng)}")  # no event, no state: a session all the same
  calls.append({"app": app, "user": hollow, "expect": "copy",
                "why": "copies a user whose only session is empty"})
  refused = (f"{rng.choice(FIRST_NAMES)}_{number:03d}{secret(rng)[:4]}" for number in range(999))
  for defect in defects:
    target_app = {"app_name": at_limit(f"{stem}_", 129, rng),
                  "app_name_nul": f"{app[:20]}\x00"}.get(defect, app)
    target = {"user_id": at_limit(f"{rng.choice(FIRST_NAMES)}_", 129, rng),
              "user_id_no_data": at_limit(f"{rng.choice(FIRST_NAMES)}_", 129, rng),
              "user_id_nul": f"{rng.choice(FIRST_NAMES)}\x00{rng.randrange(10, 99)}"
              }.get(defect) or next(refused)
    refused_user(source, dest, target_app, target, defect)
    calls.append({"app": target_app, "user": target, "expect": "refuse", "why": WHY[defect]})
  patches = []
  # NaN, Infinity and -Infinity in turn, from a random one: a world holds all three
  start = rng.randrange(len(NUMBERS))
  numbers = (NUMBERS[(start + n) % len(NUMBERS)] for n in range(10**6))
  for number, name in enumerate(unfit_classes(variant)):
    target = next(refused)
    why, patch = unfit_user(source, app, target, name, clean=number < 3, numbers=numbers)
    patches.append(patch)
    calls.append({"app": app, "user": target, "expect": "refuse", "why": why})
  rng.shuffle(calls)
  # The partner's copy comes first; the judge then writes a newer app: value into dest, which
  # the main user's copy (its events write that key too) must keep.
  calls.insert(0, {"app": app, "user": partner, "expect": "copy", "why": "copies a second user"})
  main = next(n for n, c in enumerate(calls) if c["user"] == user and c["app"] == app)
  between = {"before": main, "app": app, "user": f"judge-{secret(rng)}",
             "state": {"app:catalog_version": rng.randrange(100, 999)}}
  for call in calls:
    call.update(_facts(source.steps, dest.steps, call["app"], call["user"]))
  return {"variant": variant, "source_kind": source_kind, "dest_kind": dest_kind,
          "source": source.steps, "dest": dest.steps, "calls": calls, "patches": patches,
          "between": between}


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


def _patch_sqlite(path: Path, patches: list[dict[str, Any]]) -> None:
  """Write what ``unfit_user`` spoiled into the file itself: each patch sets columns of the
  one row its ``where`` picks."""
  import sqlite3

  if not patches:
    return
  connection = sqlite3.connect(path)
  try:
    for patch in patches:
      columns, where = list(patch["set"]), list(patch["where"])
      changed = connection.execute(
          f"UPDATE {patch['table']} SET {', '.join(f'{c} = ?' for c in columns)} "
          f"WHERE {' AND '.join(f'{c} = ?' for c in where)}",
          [patch["set"][c] for c in columns] + [patch["where"][c] for c in where])
      assert changed.rowcount == 1, patch
    connection.commit()
  finally:
    connection.close()


async def build(spec: dict[str, Any], folder: Path, resources: Resources) -> dict[str, Any]:
  """The SQLite store in ``folder``, the PostgreSQL one in a database owned by a new role."""
  admin = resources.postgres_url
  if not admin:
    raise ValueError("copy_user_to needs a PostgreSQL server (Resources.postgres_url)")
  role, password = await owner_role(admin)
  database = await create_database(admin, role)
  inputs = {"database": database, "owner": role, "role": role if password else None,
            "calls": [[c["app"], c["user"]] for c in spec["calls"]], "between": spec["between"]}
  url = to_asyncpg_url(url_for(admin, database, role, password) if password
                       else url_for(admin, database))
  try:
    from google.adk.sessions.database_session_service import DatabaseSessionService

    for side in ("source", "dest"):
      if spec[f"{side}_kind"] == "sqlite":
        inputs[side] = {"kind": "sqlite", "path": STORE}
        await write_sqlite(str(folder / STORE), spec[side])
        _patch_sqlite(folder / STORE, spec["patches"] if side == "source" else [])
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
  """The SQLite file copied; the database cloned, except for the submission's copy of a
  template nobody needs after it (``SUBMISSION_COPY``, the last one the engine makes): the
  template itself, renamed (same owner, so the same login works)."""
  await copy_folder(spec, template, inputs, folder, resources, copy)
  admin = resources.postgres_url
  assert admin
  database = (await rename_database(admin, inputs["database"]) if copy == SUBMISSION_COPY
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


async def _calls(fn: Callable, world: ActWorld, source: Any, dest: Any) -> None:
  """The world's calls in order, the other writer's ``app:`` value before the main user's."""
  between = world.inputs["between"]
  for number, (app, user) in enumerate(world.inputs["calls"]):
    if number == between["before"]:  # another writer of the app's state, between two calls
      made = await dest.create_session(app_name=between["app"], user_id=between["user"],
                                       session_id="judge", state=between["state"])
      await dest.delete_session(app_name=between["app"], user_id=between["user"],
                                session_id=made.id)
    await world.call(fn, source, dest, app, user, is_async="contract" if number == 0 else None,
                     label=f"copy_user_to(app {_short(app)}, user {_short(user)})")


async def act(fn: Callable, world: ActWorld) -> None:
  """Call ``fn(source, dest, app_name, user_id)`` for each of the world's users in turn, on the
  same two services, writing a newer ``app:`` value into dest before one of the calls (the
  same for the reference and the submission); the snapshot when the last call has returned."""
  from google.adk.sessions.database_session_service import DatabaseSessionService

  def service(store: dict[str, Any]) -> Any:
    if store["kind"] == "sqlite":
      return SqliteSessionService(world.path(store["path"]))
    return DatabaseSessionService(store["url"])

  source, dest = service(world.inputs["source"]), service(world.inputs["dest"])
  try:
    with warnings.catch_warnings():
      # genai warns of each enum value it does not know, as the spoiled ones of unfit_user
      warnings.filterwarnings("ignore", message=ENUM_WARNING, category=UserWarning)
      await _calls(fn, world, source, dest)
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


_INDEXES: dict[int, tuple[list, dict]] = {}  # id(spec["calls"]) -> (the calls, their index)


def _index(spec: dict[str, Any]) -> dict[Any, Any]:
  """The calls by (app, user), by app, and the apps copied to (a world has a hundred calls
  and its observation thousands of keys: a scan of the calls per key is quadratic)."""
  calls = spec["calls"]
  cached = _INDEXES.get(id(calls))
  if cached is None or cached[0] is not calls:
    index: dict[Any, Any] = {"copied apps": set()}
    for call in calls:
      index.setdefault((call["app"], call["user"]), call)
      index.setdefault(("app", call["app"]), call)
      if call["expect"] == "copy":
        index["copied apps"].add(call["app"])
    while len(_INDEXES) >= 8:  # the worlds of a run or two
      _INDEXES.pop(next(iter(_INDEXES)))
    cached = _INDEXES[id(calls)] = (calls, index)
  return cached[1]


def _target(spec: dict[str, Any], app: Any, user: Any = None) -> Optional[dict[str, Any]]:
  """The call about (app, user); with no user, the first about the app."""
  return _index(spec).get(("app", app) if user is None else (app, user))


def _copied(spec: dict[str, Any], app: Any, user: Any = None) -> bool:
  if user is None:
    return app in _index(spec)["copied apps"]
  call = _target(spec, app, user)
  return call is not None and call["expect"] == "copy"


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
    Open(("returned", "*"), "what the function returns (the contract leaves it open)"),
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
  between = spec["between"]
  written = ("dest", "table", "app_states", between["app"], "state")
  expected = dict(pristine)
  expected.update({written + (k[4:],): v for k, v in between["state"].items()})
  for key, value in expected.items():
    if key[0] != "dest" or not differs(key, value) or EXERCISE.is_open(key, spec, pristine):
      continue
    target = (_target(spec, key[3], key[4])
              if len(key) > 6 and key[1] == "table" and key[2] == "user_states" else None)
    if target and target["expect"] == "copy" and key[6] in target["source_user_keys"]:
      continue  # takes the source's value
    problem(classify(spec, key), key, f"was {show(value)}, now {show(observed.get(key, ABSENT))}")
  for key, value in pristine.items():
    if key[0] != "source" or key[1] != "table" or len(key) < 5:
      continue
    call = _target(spec, key[3], key[4])
    wanted = {"sessions": 6, "events": 7, "user_states": 5}.get(key[2])
    if call and call["expect"] == "copy" and wanted and (
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


def describe(spec: dict[str, Any], key: tuple) -> str:
  """The key in words; for a row of a user some call is about, what that call is."""
  if len(key) > 2 and key[1] == "pg":
    return f"{key[0]}'s {key[2]} {quote('.'.join(str(p) for p in key[3:]))} (PostgreSQL catalogue)"
  call = (_target(spec, key[3], key[4])
          if len(key) > 4 and key[1] == "table" and key[2] in ADK_ROWS else None)
  about = "" if call is None else (f" (refused: {call['why']})" if call["expect"] == "refuse"
                                   else f" (call: {call['why']})")
  return f"{key[0]}: {describe_key(key)}{about}"


def label(spec: dict[str, Any]) -> str:
  """The direction and the calls: how many users to copy and to refuse (``describe`` says
  which a difference is about)."""
  names = {"sqlite": "SQLite", "postgres": "PostgreSQL"}
  copies = sum(c["expect"] == "copy" for c in spec["calls"])
  return (f"{names[spec['source_kind']]} -> {names[spec['dest_kind']]}; {copies} users to "
          f"copy, {len(spec['calls']) - copies} to refuse")


CHECKS = (
    Check("sessions_copied", 2,
          "Every session of the user is in dest under its id, and no session of the user that "
          "neither store had is left there.",
          hint="Pass session_id= to create_session; a session created only to carry state must "
               "be deleted afterwards, and get an id ADK chooses (dest may hold any id)",
          success="every session is in dest under its id, none added"),
    Check("events_copied", 3,
          "Each copied session holds all the source's events, however many, each exactly as "
          "the source stores it: every field (id, timestamp, invocation id, author, branch, "
          "content, actions, metadata...).",
          hint="Append the source's own Event objects (get_session without a config has them "
               "all; list_sessions leaves them out): an event rebuilt from a few fields loses "
               "the others",
          success="every event copied exactly"),
    Check("session_state_copied", 2,
          "Each copied session has the source session's own state (keys without a prefix).",
          hint="Keys set when a session was created appear in no event: give the copy its own "
               "state when you create it (without the user:, app: and temp: keys)",
          success="each session's own state is the source's"),
    Check("user_state_latest", 3,
          "dest's user state holds every user: key of the source with the value the source "
          "has now (None, 0, False and empty values included).",
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
          hint="Copy exactly (app_name, user_id), as given: no case or space changes. "
               "Replaying an event also replays its app: writes, older than dest's: put back "
               "the app: values dest had when this call began (read them in each call)",
          success="other users, apps and dest's app state are unchanged", needs_action=True),
    Check("source_untouched", 1, "The source is unchanged: a copy, not a move.",
          hint="copy_user_to only reads from source",
          success="every source is unchanged", needs_action=True),
    Check("refuses_what_postgres_cannot_hold", 1,
          "Each call ends as the contract says: ValueError for data PostgreSQL cannot hold "
          "(an id over its varchar size; U+0000, a lone surrogate or a number that is not "
          "finite anywhere) or a session id this user already has in dest; a normal return "
          "otherwise, for a user the source has nothing of too.",
          hint="Check every id (app name, user id, session and event ids: 128 code points as "
               "len counts them, invocation ids 256) and every key and value, nested or not, of "
               "both states and of every field of every event, before the first write; ids are "
               "compared exactly (case, accents, spaces), and the same session id under another "
               "user or app is no collision",
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
