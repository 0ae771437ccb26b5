"""VACUUM on a connection kept open in a module global: with a WAL journal, the old pages stay
in the file (and the -wal) until the connection closes."""

import sqlite3

_connections = {}

LOSES = ('no_trace_left',)


async def forget_user(service, db_path, app_name, user_id):
  connection = _connections.setdefault(db_path, sqlite3.connect(db_path))
  connection.execute("PRAGMA foreign_keys = ON")
  connection.execute("DELETE FROM sessions WHERE app_name = ? AND user_id = ?",
                     (app_name, user_id))
  connection.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?",
                     (app_name, user_id))
  connection.commit()
  connection.execute("VACUUM")
