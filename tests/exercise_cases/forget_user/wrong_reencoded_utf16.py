"""Deletes the rows, then rewrites the file as UTF-16 without VACUUMing the old one first: the format changes."""

import os
import sqlite3
from contextlib import closing


async def forget_user(service, db_path, app_name, user_id):
  with closing(sqlite3.connect(db_path)) as connection:
    connection.execute("PRAGMA foreign_keys = ON")
    connection.execute("DELETE FROM sessions WHERE app_name = ? AND user_id = ?", (app_name, user_id))
    connection.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?", (app_name, user_id))
    connection.commit()
  fresh = db_path + ".utf16"
  with closing(sqlite3.connect(fresh)) as target:
    target.execute("PRAGMA encoding = 'UTF-16le'")
    target.execute("ATTACH DATABASE ? AS old", (db_path,))
    for (sql,) in target.execute("SELECT sql FROM old.sqlite_master WHERE sql IS NOT NULL AND type = 'table'").fetchall():
      target.execute(sql)
    for (name,) in target.execute("SELECT name FROM old.sqlite_master WHERE type = 'table'").fetchall():
      target.execute(f"INSERT INTO main.{name} SELECT * FROM old.{name}")
    target.commit()
    target.execute("DETACH DATABASE old")
  os.replace(fresh, db_path)
