"""Fresh, varied input data for the exercises' checks, drawn from a seed per run.

A check that always sees the same user ``ada`` in the app ``tutor`` passes code written for
that data: a hard-coded app name, SQL that breaks on a quote, a ``LIKE`` that also matches
``adam``. Here every run gets new names, always with the awkward cases in them (quotes, ids
that share a prefix or differ only by case, several apps and sessions), and conversations with
function calls, function responses and nested state, like the events a real agent stores.
"""

from __future__ import annotations

import gc
import random
import secrets
import sqlite3
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Optional

from google.adk.events import Event, EventActions
from google.genai import types

FIRST_NAMES = ("ada", "grace", "alan", "katherine", "edsger", "barbara", "donald", "frances",
               "john", "radia", "tim", "margaret", "dennis", "hedy", "claude", "sophie")
APOSTROPHE_SURNAMES = ("o'brien", "d'arcy", "o'neil", "d'souza", "o'hara", "l'estrange",
                       "o'connor", "d'angelo")
NICKNAMES = ("ace", "bee", "kit", "max", "dot", "jo", "sky", "fox")
APP_STEMS = ("tutor", "coach", "quiz_master", "study_buddy", "mentor", "flashcards", "helper")
TOPICS = ("sessions", "events", "state", "prefixes", "sqlite", "postgres", "memory", "runners",
          "tools", "callbacks")
TOOL_NAMES = ("record_answer", "save_note", "grade_quiz", "log_progress")


def rng_for(seed: Optional[int]) -> tuple[int, random.Random]:
  """The seed of this run (a fresh one when None) and its generator."""
  if seed is None:
    seed = secrets.randbits(48)
  return seed, random.Random(seed)


def secret(rng: random.Random) -> str:
  """A marker nobody can guess or find by accident: 12 hex digits."""
  return f"{rng.getrandbits(48):012x}"


def app_name(rng: random.Random, taken: set[str]) -> str:
  """A fresh app name, never one in ``taken``."""
  while True:
    name = f"{rng.choice(APP_STEMS)}_{rng.randrange(10, 99)}"
    if name not in taken:
      taken.add(name)
      return name


def quoted_user_id(rng: random.Random) -> str:
  """A user id with both quote characters, as a display name can have: SQL built with
  f-strings breaks on it whichever quote it uses."""
  return f'{rng.choice(FIRST_NAMES)} "{rng.choice(NICKNAMES)}" {rng.choice(APOSTROPHE_SURNAMES)}'


@contextmanager
def sqlite_secure_delete_off() -> Iterator[None]:
  """Every ``sqlite3`` connection opened meanwhile (ADK's through aiosqlite, a submission's own)
  starts with ``PRAGMA secure_delete = OFF``.

  ``OFF`` is SQLite's compile-time default, but Debian's build turns it on, which would hide
  what the exercise is about: deleted rows stay readable in the file until ``VACUUM``. The
  setting belongs to each connection, not to the file, so it is set on each one here.
  """
  original = sqlite3.connect

  def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
    connection = original(*args, **kwargs)
    connection.execute("PRAGMA secure_delete = OFF").fetchall()
    return connection

  sqlite3.connect = connect  # type: ignore[assignment]
  try:
    yield
  finally:
    sqlite3.connect = original  # type: ignore[assignment]


class Clock:
  """Strictly increasing event times, starting in the past (a copy that stamps events with
  the time of copying gets them wrong)."""

  def __init__(self, rng: random.Random, days_ago: float = 30.0):
    import time

    self.now = time.time() - days_ago * 86400 + rng.random() * 3600

  def tick(self, rng: random.Random) -> float:
    self.now += 1.0 + rng.random() * 90.0
    return round(self.now, 6)


def conversation_turn(rng: random.Random, clock: Clock, *, agent: str, mark: Callable[[], str],
                      user_delta: Optional[dict[str, Any]] = None,
                      tool_delta: Optional[dict[str, Any]] = None,
                      metadata: bool = False) -> list[Event]:
  """One exchange as ADK stores it: the user's message, the model's function call, the tool's
  function response (carrying a nested state delta), and the model's answer.

  ``mark()`` supplies a fresh marker for every piece of text, argument and value, so that a
  check can find each of them (or find that it is gone). ``metadata`` adds ``custom_metadata``,
  an event field that a copy which rebuilds events from a few fields loses.
  """
  invocation = f"e-{secret(rng)}"
  topic = rng.choice(TOPICS)
  tool = rng.choice(TOOL_NAMES)
  call_id = f"adk-{secret(rng)}"
  question = types.Content(role="user", parts=[types.Part(
      text=f"Can you explain {topic}? ({mark()})")])
  call = types.Content(role="model", parts=[types.Part(function_call=types.FunctionCall(
      id=call_id, name=tool, args={"topic": topic, "detail": {"note": mark(),
                                                              "tags": [topic, mark()]}}))])
  response = types.Content(role="user", parts=[types.Part(
      function_response=types.FunctionResponse(
          id=call_id, name=tool, response={"result": {"saved": mark(), "count": rng.randrange(1, 9),
                                                      "ok": True}}))])
  answer = types.Content(role="model", parts=[types.Part(
      text=f"Here is how {topic} works: {mark()}")])
  events = [
      Event(invocation_id=invocation, author="user", content=question, timestamp=clock.tick(rng),
            actions=EventActions(state_delta=dict(user_delta or {}))),
      Event(invocation_id=invocation, author=agent, content=call, timestamp=clock.tick(rng)),
      Event(invocation_id=invocation, author=agent, content=response, timestamp=clock.tick(rng),
            actions=EventActions(state_delta=dict(tool_delta or {}))),
      Event(invocation_id=invocation, author=agent, content=answer, timestamp=clock.tick(rng),
            custom_metadata={"source": "tutor", "trace": {"id": mark()}} if metadata else None),
  ]
  return events


# -- ids that break careless code ---------------------------------------------------------------
#
# A world's user ids are drawn from these kinds, each a way a filter can match the wrong row:
# quotes (SQL built with f-strings), LIKE's wildcards ``_`` and ``%``, GLOB's ``*``, ``?`` and
# ``[``, letter case (NOCASE, lower()), Unicode that looks the same (NFC against NFD, a
# Cyrillic letter), whitespace, and a prefix shared with another id.

def lookalike_ids(rng: random.Random, base: str) -> list[str]:
  """Ids a sloppy filter confuses with ``base``: a longer id it is a prefix of, its case
  variants, and (when it has one) the same id with ``_`` replaced by another character."""
  found = [f"{base}{rng.choice(('x', '1', ' jr', '_2'))}", base.upper(), base.lower(),
           base.title()]
  if "_" in base:
    found.append(base.replace("_", "x", 1))
  if any(c in base for c in "*?["):
    found.append(base.replace("*", "ab").replace("?", "z").replace("[", "(", 1))
  return [f for f in dict.fromkeys(found) if f != base]


def awkward_user_id(rng: random.Random, kind: str) -> str:
  """A user id of one awkward ``kind``: quotes, like, glob, unicode, emoji, spaces, plain."""
  first, nick = rng.choice(FIRST_NAMES), rng.choice(NICKNAMES)
  if kind == "quotes":
    return quoted_user_id(rng).title()
  if kind == "like":  # _ and % are LIKE's wildcards
    return rng.choice((f"{first}_{rng.randrange(10, 99)}", f"{first}%{rng.randrange(10, 99)}"))
  if kind == "glob":
    return rng.choice((f"{first}*", f"{first}?{nick}", f"[{first[0]}]{first[1:]}"))
  if kind == "unicode":  # a decomposed accent: the same letters to a reader, other bytes
    return rng.choice((f"zoe\u0301_{nick}", f"Jose\u0301 {first}", f"ren\u00e9e_{nick}"))
  if kind == "emoji":
    return f"{first} \u2615 {nick}"
  if kind == "spaces":
    return f" {first}  {nick} "
  return f"{first}_{rng.randrange(100, 999)}"


ID_KINDS = ("quotes", "like", "glob", "unicode", "emoji", "spaces", "plain")
SHARED_SESSION_IDS = ("default", "main", "session-1", "chat")


# -- stores as scripts ----------------------------------------------------------------------------
#
# A store's content is a list of operations (JSON): {"op": "create", "app", "user", "id",
# "state"}, {"op": "append", "app", "user", "id", "event": Event as JSON} and {"op": "delete",
# "app", "user", "id"}. Writing the same
# script through any session service gives the same sessions, events and states; a world's spec
# holds the script, so a seed describes the whole world.

def event_json(event: Event) -> dict[str, Any]:
  return event.model_dump(mode="json", exclude_none=True)


async def play(service: Any, script: list[dict[str, Any]]) -> None:
  """Write ``script`` into ``service`` (create sessions, append events, in order)."""
  sessions: dict[tuple[str, str, str], Any] = {}
  for step in script:
    where = (step["app"], step["user"], step["id"])
    if step["op"] == "create":
      sessions[where] = await service.create_session(
          app_name=step["app"], user_id=step["user"], session_id=step["id"],
          state=step.get("state") or {})
    elif step["op"] == "append":
      await service.append_event(sessions[where], Event.model_validate(step["event"]))
    elif step["op"] == "delete":
      await service.delete_session(app_name=step["app"], user_id=step["user"],
                                   session_id=step["id"])
    else:
      raise ValueError(f"unknown step {step['op']!r}")


def turn_events(rng: random.Random, clock: Clock, *, agent: str, mark: Callable[[], str],
                user_delta: Optional[dict[str, Any]] = None,
                tool_delta: Optional[dict[str, Any]] = None,
                metadata: bool = False) -> list[dict[str, Any]]:
  """``conversation_turn`` as JSON events (for a script)."""
  return [event_json(e) for e in conversation_turn(rng, clock, agent=agent, mark=mark,
                                                   user_delta=user_delta,
                                                   tool_delta=tool_delta, metadata=metadata)]
