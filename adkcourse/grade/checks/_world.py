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
    # Connections that are only garbage now (SqliteSessionService's constructor leaves one)
    # close here, so that SQLite checkpoints and removes a -wal file before anyone reads it.
    gc.collect()


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
