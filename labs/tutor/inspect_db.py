"""Print what a ``SqliteSessionService`` file holds, for a person to read.

    python labs/tutor/inspect_db.py tutor.db            # states, sessions, events per session
    python labs/tutor/inspect_db.py tutor.db --events   # ... and one line per event

Reads the file read-only with the standard ``sqlite3`` module (no ADK needed), so it also
works on a copy taken from a server. Exits with status 2 and a clear message when the file is
missing or is not a ``SqliteSessionService`` file, a ``DatabaseSessionService`` file
(``sqlite+aiosqlite://``: the same table names, times declared ``DATETIME``) included.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from pathlib import Path
from typing import Any, Optional

# SqliteSessionService declares its times REAL (epoch seconds); DatabaseSessionService writes the
# same four table names with DATETIME columns, plus its adk_internal_metadata table.
TIME_COLUMNS = {"sessions": "update_time", "events": "timestamp"}

REQUIRED_COLUMNS = {
    "app_states": {"app_name", "state"},
    "user_states": {"app_name", "user_id", "state"},
    "sessions": {"app_name", "user_id", "id", "state", "update_time"},
    "events": {"app_name", "user_id", "session_id", "timestamp", "event_data"},
}


class NotASessionFile(Exception):
  """The file is missing, is not SQLite, or lacks the tables SqliteSessionService creates."""


def open_session_file(path: Path) -> sqlite3.Connection:
  """A read-only connection, after checking the four tables and their columns are there."""
  if not path.is_file():
    raise NotASessionFile(f"no such file: {path}")
  connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
  try:
    tables = {row[0] for row in connection.execute(
        "SELECT name FROM sqlite_master WHERE type='table'")}
    hint = (" (it looks like a DatabaseSessionService file: a different schema)"
            if "adk_internal_metadata" in tables else "")
    for table, columns in REQUIRED_COLUMNS.items():
      declared = {row[1]: row[2].upper() for row in connection.execute(
          f'PRAGMA table_info("{table}")')}
      if table not in tables or not columns <= set(declared):
        raise NotASessionFile(
            f"{path} is not an ADK SqliteSessionService file: table {table!r} with columns "
            f"{sorted(columns)} is missing{hint}")
      time_column = TIME_COLUMNS.get(table)
      if time_column and declared.get(time_column) != "REAL":
        raise NotASessionFile(
            f"{path} is not an ADK SqliteSessionService file: {table}.{time_column} is declared "
            f"{declared.get(time_column) or 'without a type'}, not REAL{hint}")
  except sqlite3.DatabaseError as error:
    connection.close()
    raise NotASessionFile(f"{path} is not an ADK SQLite session file ({error})") from error
  except NotASessionFile:
    connection.close()
    raise
  return connection


def _state(text: Any) -> Any:
  try:
    return json.loads(text)
  except (TypeError, ValueError):
    return text


def _pretty(value: Any, indent: str) -> str:
  text = json.dumps(value, indent=2, ensure_ascii=False, sort_keys=False)
  return "\n".join(indent + line for line in text.splitlines())


def _event_line(data: dict[str, Any]) -> str:
  """author: what the event carries (text, tool call, tool result), shortened."""
  pieces = []
  for part in (data.get("content") or {}).get("parts") or []:
    if part.get("text"):
      pieces.append(" ".join(part["text"].split()))
    if part.get("function_call"):
      call = part["function_call"]
      pieces.append(f"call {call.get('name')}({json.dumps(call.get('args') or {})})")
    if part.get("function_response"):
      response = part["function_response"]
      pieces.append(f"result of {response.get('name')}")
  delta = (data.get("actions") or {}).get("state_delta") or {}
  if delta:
    pieces.append(f"state_delta keys {sorted(delta)}")
  text = "; ".join(pieces) or "(no content)"
  text = text if len(text) <= 90 else text[:89] + "…"
  return f"{data.get('author', '?')}: {text}"


def report(connection: sqlite3.Connection, with_events: bool = False) -> str:
  """The whole printout as one string (what ``main`` prints)."""
  lines: list[str] = []
  app_rows = connection.execute(
      "SELECT app_name, state FROM app_states ORDER BY app_name").fetchall()
  lines.append(f"app_states: {len(app_rows)} row(s)")
  for app, state in app_rows:
    lines.append(f"  {app}")
    lines.append(_pretty(_state(state), "    "))

  user_rows = connection.execute(
      "SELECT app_name, user_id, state FROM user_states ORDER BY app_name, user_id").fetchall()
  lines.append(f"user_states: {len(user_rows)} row(s) (keys stored without the 'user:' prefix)")
  for app, user, state in user_rows:
    lines.append(f"  {app} / {user}")
    lines.append(_pretty(_state(state), "    "))

  session_rows = connection.execute(
      "SELECT s.app_name, s.user_id, s.id, s.state, COUNT(e.id) FROM sessions s "
      "LEFT JOIN events e ON e.app_name = s.app_name AND e.user_id = s.user_id "
      "AND e.session_id = s.id GROUP BY s.app_name, s.user_id, s.id "
      "ORDER BY s.app_name, s.user_id, s.update_time, s.id").fetchall()
  lines.append(f"sessions: {len(session_rows)} (per user, least recently updated first, "
               "the order of list_sessions)")
  for app, user, session_id, state, count in session_rows:
    lines.append(f"  {app} / {user} / {session_id}: {count} events")
    session_state = _state(state)
    if session_state:
      lines.append(f"    session state: {json.dumps(session_state, ensure_ascii=False)}")
    if with_events:
      events = connection.execute(
          "SELECT event_data FROM events WHERE app_name=? AND user_id=? AND session_id=? "
          "ORDER BY timestamp, rowid", (app, user, session_id)).fetchall()
      for number, (data,) in enumerate(events, start=1):
        lines.append(f"    {number:>3}. {_event_line(_state(data))}")
  total = connection.execute("SELECT COUNT(*) FROM events").fetchone()[0]
  lines.append(f"events: {total} in total")
  return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
  parser = argparse.ArgumentParser(description="Show what an ADK SQLite session file holds.")
  parser.add_argument("file", type=Path, help="the .db file written by SqliteSessionService")
  parser.add_argument("--events", action="store_true", help="also list every event")
  args = parser.parse_args(argv)
  try:
    connection = open_session_file(args.file)
  except NotASessionFile as error:
    print(f"error: {error}", file=sys.stderr)
    return 2
  if connection.execute("SELECT 1 FROM sqlite_master WHERE type='table' "
                        "AND name='adk_internal_metadata'").fetchone():
    print("warning: a DatabaseSessionService has opened this SqliteSessionService file (it added "
          "adk_internal_metadata); sessions it appended to may no longer load with "
          "SqliteSessionService", file=sys.stderr)
  with connection:
    print(f"ADK session file: {args.file}")
    print(report(connection, with_events=args.events))
  connection.close()
  return 0


if __name__ == "__main__":
  sys.exit(main())
