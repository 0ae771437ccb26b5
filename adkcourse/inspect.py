"""Look at what a session service really stored: tables as DataFrames, events as a summary.

Plumbing for the lessons: reading rows and parsing JSON is not what is being taught, the rows
are. ``read_tables`` takes a SQLite file path (``SqliteSessionService``) or an async SQLAlchemy
URL (``DatabaseSessionService``: ``sqlite+aiosqlite://``, ``postgresql+asyncpg://``).
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from typing import Any, Iterable, Union

import pandas as pd
from google.adk.events import Event

JSON_COLUMNS = ("state", "event_data")
EVENT_KINDS = ("text", "tool call", "tool result", "state update", "control")


def _parse_json(value: Any) -> Any:
  if isinstance(value, (bytes, bytearray)):
    value = value.decode()
  if isinstance(value, str) and value[:1] in "{[":
    try:
      return json.loads(value)
    except ValueError:
      return value
  return value


def _frame(columns: list[str], rows: Iterable[Iterable[Any]]) -> pd.DataFrame:
  frame = pd.DataFrame([list(r) for r in rows], columns=columns)
  for column in JSON_COLUMNS:
    if column in frame.columns:
      frame[column] = frame[column].map(_parse_json)
  return frame


def _is_url(source: str) -> bool:
  return "://" in source


def sqlite_tables(path: Union[str, Path]) -> dict[str, pd.DataFrame]:
  """Every table of a SQLite file, in creation order (read-only; the file must exist)."""
  path = Path(path)
  if not path.exists():
    raise FileNotFoundError(f"no SQLite file at {path}: has the service written anything yet?")
  # A lesson's own file: read-only, nothing more (the grader reads a submission's files through
  # adkcourse.grade.safe_sqlite instead, which refuses triggers; ADK's memory store has some).
  with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as connection:
    names = [r[0] for r in connection.execute(
        "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%' "
        "ORDER BY rowid")]
    tables = {}
    for name in names:
      cursor = connection.execute(f'SELECT * FROM "{name}"')
      tables[name] = _frame([d[0] for d in cursor.description], cursor.fetchall())
  return tables


async def database_tables(url: str) -> dict[str, pd.DataFrame]:
  """Every table of the database behind an async SQLAlchemy URL, sorted by name."""
  from sqlalchemy import inspect as sa_inspect
  from sqlalchemy import text
  from sqlalchemy.ext.asyncio import create_async_engine

  engine = create_async_engine(url)
  try:
    async with engine.connect() as connection:
      names = await connection.run_sync(lambda c: sorted(sa_inspect(c).get_table_names()))
      tables = {}
      for name in names:
        result = await connection.execute(text(f'SELECT * FROM "{name}"'))
        tables[name] = _frame(list(result.keys()), result.fetchall())
  finally:
    await engine.dispose()
  return tables


async def read_tables(source: Union[str, Path]) -> dict[str, pd.DataFrame]:
  """All tables of a SQLite file or of a database URL, JSON columns parsed into Python."""
  source_text = str(source)
  if _is_url(source_text):
    return await database_tables(source_text)
  return sqlite_tables(source_text)


def classify_event(event: Event) -> str:
  """One of ``EVENT_KINDS``: what an event mainly carries."""
  if event.get_function_calls():
    return "tool call"
  if event.get_function_responses():
    return "tool result"
  if event.content and any(p.text for p in event.content.parts or []):
    return "text"
  if event.actions and (event.actions.state_delta or event.actions.artifact_delta):
    return "state update"
  return "control"


def _short(value: Any, width: int = 70) -> str:
  text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False,
                                                         default=str)
  text = " ".join(text.split())
  return text if len(text) <= width else text[: width - 1] + "…"


def summarize_event(event: Event, width: int = 70) -> str:
  """A one-line human summary: the text, the call with its arguments, or the result."""
  kind = classify_event(event)
  if kind == "tool call":
    return _short("; ".join(f"{c.name}({_short(c.args or {}, 40)})"
                            for c in event.get_function_calls()), width)
  if kind == "tool result":
    return _short("; ".join(f"{r.name} -> {_short(r.response or {}, 50)}"
                            for r in event.get_function_responses()), width)
  if kind == "text":
    return _short(" ".join(p.text for p in event.content.parts if p.text), width)
  if kind == "state update":
    return _short(f"state update {sorted(event.actions.state_delta)}", width)
  return _short(event.error_message or "(no content)", width)


def _as_event(item: Union[Event, dict, str]) -> Event:
  if isinstance(item, Event):
    return item
  data = _parse_json(item) if isinstance(item, str) else item
  return Event.model_validate(data)


def event_table(events: Iterable[Union[Event, dict, str]], width: int = 70) -> pd.DataFrame:
  """Events as a compact DataFrame: invocation_id, author, kind, summary, state_delta.

  Accepts ``session.events`` or the ``event_data`` column of a stored events table. The
  invocation id comes first because it groups the events of one user turn (the user's message,
  each model call, each tool result and the final reply all carry the turn's id).
  """
  rows = []
  for item in events:
    event = _as_event(item)
    delta = dict(event.actions.state_delta) if event.actions else {}
    rows.append({"invocation_id": event.invocation_id, "author": event.author, "kind": classify_event(event),
                 "summary": summarize_event(event, width), "state_delta": delta or ""})
  return pd.DataFrame(rows, columns=["invocation_id", "author", "kind", "summary", "state_delta"])


def timeline(*args: Any, **kwargs: Any) -> Any:
  """The session as a picture, beside its tables: ``adkcourse.timeline.timeline`` (see
  docs/timeline.md), here so that a lesson that inspects tables imports both from one place.
  Imported on first use: the picture needs matplotlib, the tables do not."""
  from adkcourse.timeline import timeline as draw

  return draw(*args, **kwargs)
