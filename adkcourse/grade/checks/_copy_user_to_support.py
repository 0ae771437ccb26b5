"""PostgreSQL worlds for the differential judge: a database per copy of a world, owned by a
login role of its own, cloned from a template, and observed whole.

Nothing here is specific to ``copy_user_to``; it is what any exercise on PostgreSQL needs:

- ``owner_role``: a login role for one world (the function under test gets its URL, never the
  admin's). The admin is granted membership in it, so that it can create databases owned by
  it, clone them, read them and drop them. A course server whose role may only create
  databases (``CREATEDB``, docs/postgres.md) cannot create roles: then the world's database is
  the admin's own (only in the self-check, where the code runs in the student's process anyway);
- ``create_database``: a database owned by that role, empty or cloned from a template
  (``CREATE DATABASE ... TEMPLATE`` copies files, and needs no connection to the template), that
  PUBLIC cannot connect to;
- ``read_postgres``: every row of every table of every schema, as JSON (``to_jsonb``), and the
  catalogue a function could change: schemas, relations with their ACLs and row security,
  columns, constraints, indexes, functions, triggers, policies, rules, types, extensions and the
  database's settings. It reads with ``search_path`` pinned to ``pg_catalog`` and row security
  off (a policy that would hide rows makes the read fail instead), so that nothing the function
  created can stand in for what is read.
"""

from __future__ import annotations

import json
import secrets
from typing import Any, Optional

from sqlalchemy.engine import make_url

from ...postgres import connect
from ._observe import ADK_KEYS, flatten

Observation = dict
MAX_ROWS = 20_000  # rows read from one table
MAX_RELATIONS = 500  # tables read from one database
USER_SCHEMAS = "n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'"
# read only: a function of the submission's that a read calls (a cast to json used by
# to_jsonb, a policy's expression) runs as the admin, and must not be able to write
READ_SETTINGS = {"search_path": "pg_catalog", "row_security": "off",
                 "default_transaction_read_only": "on",
                 "statement_timeout": "60s", "lock_timeout": "20s"}

# The admin URL of each database made here (only in this, the judge's, process): observing
# reads as the admin, whom the function under test cannot lock out or reconfigure.
_ADMIN_URLS: dict[str, str] = {}


def ident(name: str) -> str:
  return '"' + name.replace('"', '""') + '"'


def url_for(base_url: str, database: str, user: Optional[str] = None,
            password: Optional[str] = None) -> str:
  """``base_url`` (any PostgreSQL URL) for another database and, if given, another login."""
  url = make_url(base_url).set(database=database)
  if user is not None:
    url = url.set(username=user, password=password)
  return url.render_as_string(hide_password=False)


async def owner_role(admin_url: str) -> tuple[str, Optional[str]]:
  """A new login role (name, password) the admin is a member of; (admin's name, None) when the
  admin may not create roles."""
  import asyncpg

  name, password = f"adkw_{secrets.token_hex(6)}", secrets.token_hex(16)
  admin = await connect(admin_url)
  try:
    try:
      await admin.execute(f"CREATE ROLE {ident(name)} LOGIN PASSWORD '{password}'")
    except asyncpg.InsufficientPrivilegeError:
      return await admin.fetchval("SELECT current_user"), None
    await admin.execute(f"GRANT {ident(name)} TO CURRENT_USER")
  finally:
    await admin.close()
  return name, password


async def create_database(admin_url: str, owner: str, template: Optional[str] = None) -> str:
  """A new database owned by ``owner`` (a copy of ``template`` if given); its name."""
  name = f"adkw_{secrets.token_hex(6)}"
  admin = await connect(admin_url)
  try:
    clone = f" TEMPLATE {ident(template)}" if template else ""
    await admin.execute(f"CREATE DATABASE {ident(name)}{clone} OWNER {ident(owner)}")
    await admin.execute(f"REVOKE ALL ON DATABASE {ident(name)} FROM PUBLIC")
  finally:
    await admin.close()
  _ADMIN_URLS[name] = url_for(admin_url, name)
  return name


async def rename_database(admin_url: str, name: str) -> str:
  """Database ``name`` under a new name (which it returns): the template handed over as the
  last copy, instead of cloning it once more and dropping it (the old name no longer
  exists, so dropping it afterwards does nothing)."""
  new = f"adkw_{secrets.token_hex(6)}"
  admin = await connect(admin_url)
  try:
    await admin.execute(f"ALTER DATABASE {ident(name)} RENAME TO {ident(new)}")
  finally:
    await admin.close()
  _ADMIN_URLS.pop(name, None)
  _ADMIN_URLS[new] = url_for(admin_url, new)
  return new


async def drop_database(admin_url: str, name: str, role: Optional[str]) -> None:
  """Drop database ``name``, and ``role`` once it owns no database any more."""
  _ADMIN_URLS.pop(name, None)
  admin = await connect(admin_url)
  try:
    await admin.execute(f"DROP DATABASE IF EXISTS {ident(name)} WITH (FORCE)")
    if role and not await admin.fetchval(
        "SELECT count(*) FROM pg_database d JOIN pg_roles r ON r.oid = d.datdba "
        "WHERE r.rolname = $1", role):
      await admin.execute(f"DROP ROLE IF EXISTS {ident(role)}")
  finally:
    await admin.close()


def reading_url(name: str, fallback: str) -> str:
  return _ADMIN_URLS.get(name, fallback)


async def write_sqlite(path: str, script: list[dict]) -> None:
  """A ``SqliteSessionService`` file holding ``script`` (``_world.play``). Written in memory,
  then saved with ``VACUUM INTO``: the service on a file opens a connection (and a thread) per
  call, which makes building a world three times slower; the file holds the same schema, rows
  and format."""
  from google.adk.sessions.sqlite_session_service import SqliteSessionService

  from ._world import play

  service = SqliteSessionService(":memory:")
  await play(service, script)
  connection = getattr(service, "_memory_conn", None)
  if connection is None:  # another ADK version: the slow way
    await play(SqliteSessionService(path), script)
    return
  await connection.execute("VACUUM INTO ?", (path,))
  await service.close()


# kind -> (how many leading columns name an object, the query)
CATALOGUE: dict[str, tuple[int, str]] = {
    "schema": (1, f"""SELECT n.nspname, pg_get_userbyid(n.nspowner), n.nspacl::text
                  FROM pg_namespace n WHERE {USER_SCHEMAS}"""),
    "relation": (2, f"""SELECT n.nspname, c.relname, c.relkind::text, c.relacl::text,
                      c.relrowsecurity, c.relforcerowsecurity
                    FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                    WHERE {USER_SCHEMAS}"""),
    "column": (3, f"""SELECT n.nspname, c.relname, a.attname, format_type(a.atttypid, a.atttypmod),
                    a.attnotnull, pg_get_expr(d.adbin, d.adrelid)
                  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                  JOIN pg_namespace n ON n.oid = c.relnamespace
                  LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
                  WHERE a.attnum > 0 AND NOT a.attisdropped AND {USER_SCHEMAS}"""),
    "constraint": (3, f"""SELECT n.nspname, c.relname, k.conname, pg_get_constraintdef(k.oid)
                      FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
                      JOIN pg_namespace n ON n.oid = c.relnamespace WHERE {USER_SCHEMAS}"""),
    "index": (2, f"""SELECT n.nspname, c.relname, pg_get_indexdef(i.indexrelid)
                 FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
                 JOIN pg_namespace n ON n.oid = c.relnamespace WHERE {USER_SCHEMAS}"""),
    "function": (3, f"""SELECT n.nspname, p.proname, pg_get_function_identity_arguments(p.oid),
                      p.prokind::text, md5(p.prosrc)
                    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
                    WHERE {USER_SCHEMAS}"""),
    "trigger": (3, f"""SELECT n.nspname, c.relname, t.tgname, pg_get_triggerdef(t.oid)
                   FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
                   JOIN pg_namespace n ON n.oid = c.relnamespace
                   WHERE NOT t.tgisinternal AND {USER_SCHEMAS}"""),
    "policy": (3, f"""SELECT n.nspname, c.relname, p.polname, p.polcmd::text,
                    pg_get_expr(p.polqual, p.polrelid), pg_get_expr(p.polwithcheck, p.polrelid)
                  FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid
                  JOIN pg_namespace n ON n.oid = c.relnamespace WHERE {USER_SCHEMAS}"""),
    "rule": (3, f"""SELECT n.nspname, c.relname, r.rulename, pg_get_ruledef(r.oid)
                FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class
                JOIN pg_namespace n ON n.oid = c.relnamespace WHERE {USER_SCHEMAS}"""),
    "type": (2, f"""SELECT n.nspname, t.typname, t.typtype::text
                FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
                WHERE t.typrelid = 0 AND t.typcategory <> 'A' AND {USER_SCHEMAS}"""),
    "extension": (1, "SELECT extname, extversion FROM pg_extension"),
    # a cast of the submission's own runs whenever a read meets its type
    "cast": (2, "SELECT castsource::regtype::text, casttarget::regtype::text FROM pg_cast "
                "WHERE oid >= 16384"),
    "setting": (2, """SELECT s.setrole::regrole::text, unnest(s.setconfig) FROM pg_db_role_setting s
                  WHERE s.setdatabase = (SELECT oid FROM pg_database
                                         WHERE datname = current_database())"""),
    "database": (1, """SELECT 'this one', datacl::text, pg_encoding_to_char(encoding), datcollate
                   FROM pg_database WHERE datname = current_database()"""),
}


async def read_postgres(url: str, prefix: tuple,
                        keys: Optional[dict[str, tuple[str, ...]]] = None) -> Observation:
  """Database ``url`` observed whole (see the module's docstring): ``prefix + ("table", name,
  *row key, column, *json path) -> value`` (tables outside ``public`` named ``schema.table``),
  ``prefix + ("table", name, *row key) -> "row"``, and ``prefix + ("pg", kind, *names)`` for
  the catalogue. ``prefix + ("unreadable",)`` when it cannot be read."""
  keys = ADK_KEYS if keys is None else keys
  prefix = tuple(prefix)
  try:
    connection = await connect(url, **READ_SETTINGS)
  except Exception as error:  # noqa: BLE001 - a role or database the run broke
    return {prefix + ("unreadable",): f"cannot connect ({type(error).__name__})"}
  found: Observation = {}
  try:
    for kind, (named_by, sql) in CATALOGUE.items():
      for row in await connection.fetch(sql):
        values = list(row)
        found[prefix + ("pg", kind) + tuple(str(v) for v in values[:named_by])] = (
            values[named_by:] or True)
    tables = await connection.fetch(
        f"""SELECT n.nspname, c.relname FROM pg_class c
            JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relkind IN ('r', 'p') AND {USER_SCHEMAS} ORDER BY 1, 2""")
    for schema, table in tables[:MAX_RELATIONS]:
      name = table if schema == "public" else f"{schema}.{table}"
      rows = await connection.fetch(
          f"SELECT to_jsonb(t)::text FROM {ident(schema)}.{ident(table)} t "
          f"LIMIT {MAX_ROWS + 1}")
      if len(rows) > MAX_ROWS:
        found[prefix + ("table", name, "too many rows")] = len(rows)
      key_columns = keys.get(table) if schema == "public" else None
      for (text,) in rows[:MAX_ROWS]:
        found.update(_row(prefix + ("table", name), json.loads(text), key_columns))
  except Exception as error:  # noqa: BLE001 - whatever the run left in the database
    return {prefix + ("unreadable",): f"{type(error).__name__}: {str(error)[:200]}"}
  finally:
    await connection.close()
  return found


def _row(prefix: tuple, values: dict[str, Any], key_columns: Optional[tuple[str, ...]]
         ) -> Observation:
  """One row: its key (the primary key's columns, else the whole row as JSON), then each
  other column's value, JSON columns flattened to their leaves."""
  if key_columns and all(isinstance(values.get(c), (str, int)) for c in key_columns):
    base = prefix + tuple(values[c] for c in key_columns)
    rest = [c for c in values if c not in key_columns]
  else:
    base = prefix + (json.dumps(values, sort_keys=True, ensure_ascii=False),)
    rest = []
  found: Observation = {base: "row"}
  for column in rest:
    found.update(flatten(base + (column,), values[column]))
  return found
