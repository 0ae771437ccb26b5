"""Sessions and events through the API; dest's app state saved and the final user state merged
in with SQL on dest's own database (sqlite3 for a SqliteSessionService, the SQLAlchemy engine
for PostgreSQL)."""

import json
import math
import re
import sqlite3
import time
from contextlib import closing

from sqlalchemy import text

PREFIXES = ("user:", "app:", "temp:")


def nul_inside(value) -> bool:
  if isinstance(value, str):
    return "\u0000" in value or re.search("[\ud800-\udfff]", value) is not None
  if isinstance(value, float):
    return math.isnan(value) or math.isinf(value)
  if isinstance(value, dict):
    return any(nul_inside(k) or nul_inside(v) for k, v in value.items())
  if isinstance(value, list):
    return any(nul_inside(v) for v in value)
  return False


async def read_app_state(dest, app_name):
  if hasattr(dest, "db_engine"):
    async with dest.db_engine.connect() as connection:
      row = (await connection.execute(text("SELECT state FROM app_states WHERE app_name = :a"),
                                      {"a": app_name})).first()
    return dict(row[0]) if row else {}
  with closing(sqlite3.connect(dest._db_path)) as connection:
    row = connection.execute("SELECT state FROM app_states WHERE app_name=?",
                             (app_name,)).fetchone()
  return json.loads(row[0]) if row else {}


async def merge(dest, table, names, values, delta):
  """Merge ``delta`` into the state of the row of ``table`` whose ``names`` have ``values``."""
  if hasattr(dest, "db_engine"):  # DatabaseSessionService: jsonb's || merges the top level
    where = " AND ".join(f"{n} = :{n}" for n in names)
    async with dest.db_engine.begin() as connection:
      await connection.execute(
          text(f"UPDATE {table} SET state = state || CAST(:delta AS jsonb) WHERE {where}"),
          {"delta": json.dumps(delta), **dict(zip(names, values))})
    return
  where = " AND ".join(f"{n} = ?" for n in names)
  with closing(sqlite3.connect(dest._db_path)) as connection:  # read, update, write back
    row = connection.execute(f"SELECT state FROM {table} WHERE {where}", values).fetchone()
    state = json.loads(row[0]) if row else {}
    state.update(delta)
    marks = ", ".join("?" for _ in range(len(names) + 2))
    connection.execute(f"INSERT OR REPLACE INTO {table} VALUES ({marks})",
                       (*values, json.dumps(state), time.time()))
    connection.commit()


async def copy_user_to(source, dest, app_name, user_id):
  listed = await source.list_sessions(app_name=app_name, user_id=user_id)
  sessions = [await source.get_session(app_name=app_name, user_id=user_id, session_id=s.id)
              for s in listed.sessions]
  user_state = await source.get_user_state(app_name=app_name, user_id=user_id)
  ids = [app_name, user_id] + [s.id for s in sessions] + [e.id for s in sessions
                                                          for e in s.events]
  if any(len(i) > 128 for i in ids) or any(len(e.invocation_id or "") > 256
                                           for s in sessions for e in s.events):
    raise ValueError("an id is longer than PostgreSQL's columns")
  own = {s.id: {k: v for k, v in s.state.items() if not k.startswith(PREFIXES)}
         for s in sessions}
  if nul_inside([ids, user_state, own]) or any(
      nul_inside(e.model_dump()) for s in sessions for e in s.events):
    raise ValueError("U+0000 cannot be stored in PostgreSQL")
  mine = await dest.list_sessions(app_name=app_name, user_id=user_id)
  if any(s.id in own for s in mine.sessions):
    raise ValueError("this user already has one of these sessions in dest")
  app_before = await read_app_state(dest, app_name)
  replayed = set()
  for s in sessions:
    copy = await dest.create_session(app_name=app_name, user_id=user_id, session_id=s.id,
                                     state=own[s.id])
    for event in s.events:
      await dest.append_event(copy, event)
      replayed |= {k[4:] for k in event.actions.state_delta if k.startswith("app:")}
  restore = {k: v for k, v in app_before.items() if k in replayed}
  if restore:
    await merge(dest, "app_states", ("app_name",), (app_name,), restore)
  if user_state:
    if not sessions and hasattr(dest, "db_engine"):  # make sure the row exists
      empty = await dest.create_session(app_name=app_name, user_id=user_id)
      await dest.delete_session(app_name=app_name, user_id=user_id, session_id=empty.id)
    await merge(dest, "user_states", ("app_name", "user_id"), (app_name, user_id), user_state)
