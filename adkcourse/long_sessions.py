"""Plumbing for lesson 6 and ``benchmarks/long_sessions.py``: long sessions, built fast, and timed
(medians of repeated runs with their spread: one run on a shared machine says little).

Appending 2,000 events one by one through a SQL session service takes seconds (one transaction
each). ``fill_session`` stores the same events in one go, in the form each service writes them:
``InMemorySessionService`` through ``append_event`` (already fast), ``SqliteSessionService`` with
the same ``INSERT`` its ``append_event`` runs, ``DatabaseSessionService`` with ADK's own
``StorageEvent.from_event`` rows. Reading them back is left to the lesson (``get_session``).
"""

from __future__ import annotations

import sqlite3
import statistics
import time
from contextlib import closing
from typing import Awaitable, Callable

from google.adk.events import Event
from google.adk.sessions import InMemorySessionService, Session
from google.adk.sessions.sqlite_session_service import SqliteSessionService
from google.genai import types

AUTHOR = "barista"


def chat_events(count: int, start: float, invocation_prefix: str = "turn") -> list[Event]:
  """``count`` events of a plain chat: a user message, then the agent's reply, one invocation
  per pair, timestamps one second apart from ``start``."""
  events = []
  for i in range(count):
    turn = i // 2
    user = i % 2 == 0
    text = (f"Message {turn}: could I get a small oat milk latte, please?" if user
            else f"[offline model] Reply {turn}: one small oat milk latte, coming up.")
    events.append(Event(author="user" if user else AUTHOR,
                        invocation_id=f"{invocation_prefix}-{turn}",
                        timestamp=start + i,
                        content=types.Content(role="user" if user else "model",
                                              parts=[types.Part(text=text)])))
  return events


async def fill_session(service, session: Session, count: int, start: float = 1_700_000_000.0) -> None:
  """Store ``count`` chat events in ``session`` (plumbing: the bulk form of ``append_event``)."""
  events = chat_events(count, start)
  if isinstance(service, InMemorySessionService):
    for event in events:
      await service.append_event(session, event)
    return
  if isinstance(service, SqliteSessionService):
    with closing(sqlite3.connect(service._db_path)) as connection:  # noqa: SLF001
      connection.executemany(
          "INSERT INTO events (id, app_name, user_id, session_id, invocation_id, timestamp,"
          " event_data) VALUES (?, ?, ?, ?, ?, ?, ?)",
          [(e.id, session.app_name, session.user_id, session.id, e.invocation_id, e.timestamp,
            e.model_dump_json(exclude_none=True)) for e in events])
      connection.commit()
    return
  from google.adk.sessions.schemas.v1 import StorageEvent

  async with service.database_session_factory() as db:
    db.add_all([StorageEvent.from_event(session, e) for e in events])
    await db.commit()


def raw_sqlite_read(path: str, session: Session) -> list[str]:
  """The floor: the same rows, in the same order, with stdlib ``sqlite3`` and nothing else
  (no JSON parsing, no ``Event`` objects)."""
  with closing(sqlite3.connect(path)) as connection:
    return [row[0] for row in connection.execute(
        "SELECT event_data FROM events WHERE app_name=? AND user_id=? AND session_id=?"
        " ORDER BY timestamp, rowid", (session.app_name, session.user_id, session.id))]


async def repeat_seconds(read: Callable[[], Awaitable[object] | object], repeats: int = 7) -> list[float]:
  """The wall time of each of ``repeats`` calls of ``read`` (awaited when it is a coroutine)."""
  times = []
  for _ in range(repeats):
    started = time.perf_counter()
    result = read()
    if hasattr(result, "__await__"):
      await result
    times.append(time.perf_counter() - started)
  return times


def median_and_spread(times: list[float]) -> tuple[float, float, float]:
  """The median of repeated timings, and their spread as (fastest, slowest)."""
  return statistics.median(times), min(times), max(times)


def timing_cell(times: list[float]) -> str:
  """One table cell: the median in milliseconds, then the fastest and slowest run."""
  median, low, high = median_and_spread(times)
  return f"{median * 1000:.1f} ({low * 1000:.1f}-{high * 1000:.1f})"


async def chat(runner, session_id: str, text: str, run_config=None, user_id: str = "ana") -> list:
  """One user message through ``runner.run_async`` (with ``run_config``); the events it yielded."""
  message = types.Content(role="user", parts=[types.Part(text=text)])
  return [event async for event in runner.run_async(user_id=user_id, session_id=session_id,
                                                    new_message=message, run_config=run_config)]
