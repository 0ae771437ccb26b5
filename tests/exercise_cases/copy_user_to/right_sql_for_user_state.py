"""Sessions and events through the API, the final user state merged in with SQL on dest's own
database (sqlite3 for a SqliteSessionService, the SQLAlchemy engine for PostgreSQL)."""

import json
import sqlite3
import time
from contextlib import closing

from sqlalchemy import text

PREFIXES = ("user:", "app:", "temp:")


def nul_inside(value) -> bool:
  if isinstance(value, str):
    return "\u0000" in value
  if isinstance(value, dict):
    return any(nul_inside(k) or nul_inside(v) for k, v in value.items())
  if isinstance(value, list):
    return any(nul_inside(v) for v in value)
  return False


async def merge_user_state(dest, app_name, user_id, user_state):
  if hasattr(dest, "db_engine"):  # DatabaseSessionService: jsonb's || merges the top level
    async with dest.db_engine.begin() as connection:
      await connection.execute(
          text("UPDATE user_states SET state = state || CAST(:delta AS jsonb) "
               "WHERE app_name = :app AND user_id = :user"),
          {"delta": json.dumps(user_state), "app": app_name, "user": user_id})
  else:  # SqliteSessionService: read, update in Python, write back
    with closing(sqlite3.connect(dest._db_path)) as connection:
      row = connection.execute("SELECT state FROM user_states WHERE app_name=? AND user_id=?",
                               (app_name, user_id)).fetchone()
      state = json.loads(row[0]) if row else {}
      state.update(user_state)
      connection.execute("INSERT OR REPLACE INTO user_states VALUES (?, ?, ?, ?)",
                         (app_name, user_id, json.dumps(state), time.time()))
      connection.commit()


async def copy_user_to(source, dest, app_name, user_id):
  listed = await source.list_sessions(app_name=app_name, user_id=user_id)
  sessions = [await source.get_session(app_name=app_name, user_id=user_id, session_id=s.id)
              for s in listed.sessions]
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  if any(len(s.id) > 128 for s in sessions):
    raise ValueError("a session id is longer than PostgreSQL's 128 characters")
  if nul_inside(user_state) or any(nul_inside(s.model_dump(mode="json")) for s in sessions):
    raise ValueError("U+0000 cannot be stored in PostgreSQL's jsonb")
  for s in sessions:
    copy = await dest.create_session(app_name=app_name, user_id=user_id, session_id=s.id,
                                     state={k: v for k, v in s.state.items()
                                            if not k.startswith(PREFIXES)})
    for event in s.events:
      await dest.append_event(copy, event)
  if user_state:
    if not sessions:  # make sure the row exists
      empty = await dest.create_session(app_name=app_name, user_id=user_id)
      await dest.delete_session(app_name=app_name, user_id=user_id, session_id=empty.id)
    await merge_user_state(dest, app_name, user_id, user_state)
