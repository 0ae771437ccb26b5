"""PostgreSQL for a differential judge: a server that can create roles, and one database's
privilege catalogue and data observed whole, with every role named by what it stands for.

Generic (nothing here knows the exercise); candidates for ``_observe`` and ``_world``:

- ``role_admin_url``: an admin URL that can create roles (the one given, or a private
  embedded server started once per process when the given role cannot);
- ``read_catalogue``: every ACL entry of the database (and of other databases named), its
  schemas, relations, columns, functions, types and languages, every comment (NULL ACLs read as the owner's defaults, so that a grant then
  a revoke reads as nothing changed), every default ACL, the attributes, settings and
  memberships of given roles, and which objects exist with their owners and definitions;
- ``read_rows``: every row of every table (as a given role), and each sequence's state.

Observations are flat ``{key: JSON}`` (``_engine.Observation``). Roles appear by label
(``Labels``): ``PUBLIC``, ``admin`` (the judge's role), ``bootstrap superuser``, the labels the
caller gives its roles, predefined roles by name. Text that could hold a role's or the
database's name (definitions, object names, messages) goes through ``Labels.hide``.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from typing import Any, Optional

from ...postgres import connect

Observation = dict
USER_SCHEMA = "{n}.nspname NOT LIKE 'pg\\_%' AND {n}.nspname <> 'information_schema'"
MAX_ROWS = 5_000  # rows read from one table
MAX_OBJECTS = 5_000  # catalogue rows read from one query
TIMEOUTS = {"lock_timeout": "5s", "statement_timeout": "20s"}


def ident(name: str) -> str:
  """``name`` as a quoted SQL identifier (any character, a double quote doubled)."""
  return '"' + name.replace('"', '""') + '"'


def literal(text: str) -> str:
  return "'" + text.replace("'", "''") + "'"


def url_for(admin_url: str, database: str, user: Optional[str] = None,
            password: Optional[str] = None) -> str:
  """``admin_url`` (async form) on another database, optionally as another role."""
  from sqlalchemy.engine import make_url

  url = make_url(admin_url).set(database=database)
  if user is not None:
    url = url.set(username=user, password=password)
  return url.render_as_string(hide_password=False)


def pg_message(error: BaseException) -> str:
  """PostgreSQL's own message for an error raised through SQLAlchemy or asyncpg (first line)."""
  import asyncpg

  seen: Optional[BaseException] = error
  for _ in range(6):
    if isinstance(seen, asyncpg.PostgresError):
      return str(seen).splitlines()[0] if str(seen) else type(seen).__name__
    seen = getattr(seen, "orig", None) or getattr(seen, "__cause__", None)
    if seen is None:
      break
  text = str(error).splitlines()[0] if str(error) else ""
  return f"{type(error).__name__}: {text}"[:300]


# -- a server whose admin can create roles ------------------------------------------------------

_ROLE_ADMINS: dict[str, str] = {}  # given admin URL -> an admin URL that can create roles
_PRIVATE: list[Any] = []  # the private server of this process, once started


async def role_admin_url(url: str) -> str:
  """``url`` if its role can create roles and databases, else the admin URL of a private
  embedded server (started once per process, stopped when it exits): roles are server-wide,
  and a server named by ``ADKCOURSE_POSTGRES_URL`` may grant CREATEDB only."""
  if url in _ROLE_ADMINS:
    return _ROLE_ADMINS[url]
  admin = await connect(url)
  try:
    able = await admin.fetchval("SELECT rolsuper OR (rolcreaterole AND rolcreatedb) "
                                "FROM pg_roles WHERE rolname = current_user")
  finally:
    await admin.close()
  if not able:
    if not _PRIVATE:
      from adkcourse.postgres import start_embedded
      from adkcourse.scratch import scratch_root

      _PRIVATE.append(await asyncio.to_thread(
          start_embedded, scratch_root() / f"pgdata-roles-{__import__('os').getpid()}"))
    _ROLE_ADMINS[url] = _PRIVATE[0].url
  else:
    _ROLE_ADMINS[url] = url
  return _ROLE_ADMINS[url]


# -- labels -----------------------------------------------------------------------------------

class Labels:
  """Role oids and names as labels: ``named`` maps label -> role name (the caller's roles);
  ``oids`` (filled by ``load``) maps every role oid met to its label."""

  def __init__(self, named: dict[str, str], database: str):
    self.named = named
    self.database = database
    self.oids: dict[int, str] = {0: "PUBLIC"}

  async def load(self, connection: Any) -> None:
    by_name = {name: label for label, name in self.named.items()}
    for row in await connection.fetch(
        "SELECT oid::int AS oid, rolname, rolname = current_user AS me FROM pg_roles"):
      name = row["rolname"]
      self.oids[row["oid"]] = (by_name.get(name) or ("admin" if row["me"] else None)
                               or ("bootstrap superuser" if row["oid"] == 10 else None)
                               or (name if name.startswith("pg_") else f"role {name}"))

  def of(self, oid: Any) -> str:
    return self.oids.get(int(oid), f"role #{oid}")

  def hide(self, text: Any) -> Any:
    """``text`` with each of the caller's names (quoted or not) replaced by ``<label>``."""
    if not isinstance(text, str):
      return text
    names = sorted([(n, label) for label, n in self.named.items()]
                   + [(self.database, "database")], key=lambda item: -len(item[0]))
    for name, label in names:
      text = text.replace(ident(name), f"<{label}>").replace(name, f"<{label}>")
    return text


# -- the catalogue ------------------------------------------------------------------------------

def _user(alias: str) -> str:
  return USER_SCHEMA.format(n=alias)


def _acl(column: str, kind: str, owner: str) -> str:
  """An ACL column, NULL read as what it means: the owner's default privileges."""
  return f"coalesce({column}, acldefault(({kind})::\"char\", {owner}))"


ACL_SQL = f"""
WITH objects(kind, name, acl) AS (
  SELECT 'database'::text, ''::text, {_acl('datacl', "'d'", 'datdba')} FROM pg_database
  WHERE datname = current_database()
  UNION ALL SELECT 'schema', n.nspname, {_acl('n.nspacl', "'n'", 'n.nspowner')}
  FROM pg_namespace n WHERE {_user('n')}
  UNION ALL SELECT CASE c.relkind WHEN 'S' THEN 'sequence' WHEN 'v' THEN 'view'
    WHEN 'm' THEN 'materialized view' WHEN 'f' THEN 'foreign table' ELSE 'table' END,
    n.nspname::text || '.' || c.relname,
    {_acl('c.relacl', "CASE c.relkind WHEN 'S' THEN 's' ELSE 'r' END", 'c.relowner')}
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') AND {_user('n')}
  UNION ALL SELECT 'column', n.nspname::text || '.' || c.relname || '.' || a.attname, a.attacl
  FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
  JOIN pg_namespace n ON n.oid = c.relnamespace
  WHERE a.attacl IS NOT NULL AND a.attnum > 0 AND NOT a.attisdropped AND {_user('n')}
  UNION ALL SELECT 'function', p.oid::regprocedure::text,
    {_acl('p.proacl', "'f'", 'p.proowner')}
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE {_user('n')}
  UNION ALL SELECT 'type', t.oid::regtype::text, {_acl('t.typacl', "'T'", 't.typowner')}
  FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
  WHERE {_user('n')} AND t.typelem = 0 AND (t.typrelid = 0 OR t.typtype = 'c'
    AND (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c')
  UNION ALL SELECT 'language', l.lanname, {_acl('l.lanacl', "'l'", 'l.lanowner')}
  FROM pg_language l
)
SELECT o.kind, o.name, a.grantor::int AS grantor, a.grantee::int AS grantee,
  a.privilege_type, a.is_grantable
FROM objects o, aclexplode(o.acl) a LIMIT {MAX_OBJECTS}
"""

# Default ACLs: per schema, what they add; for every schema, how they differ from the built-in
# defaults they replace ("granted" beyond them, "revoked" from them).
DEFAULT_ACL_SQL = f"""
WITH d AS (
  SELECT d.defaclrole, d.defaclnamespace, d.defaclacl, coalesce(n.nspname::text, '*') AS schema,
    CASE d.defaclobjtype WHEN 'r' THEN 'tables' WHEN 'S' THEN 'sequences'
      WHEN 'f' THEN 'functions' WHEN 'T' THEN 'types' WHEN 'n' THEN 'schemas'
      ELSE d.defaclobjtype::text END AS objects,
    {_acl('NULL', "CASE d.defaclobjtype WHEN 'S' THEN 's' ELSE d.defaclobjtype END",
          'd.defaclrole')} AS base
  FROM pg_default_acl d LEFT JOIN pg_namespace n ON n.oid = d.defaclnamespace)
SELECT d.defaclrole::int AS role, d.schema, d.objects, a.grantor::int AS grantor,
  a.grantee::int AS grantee, a.privilege_type, a.is_grantable, 'granted' AS state
FROM d, aclexplode(d.defaclacl) a
WHERE d.defaclnamespace <> 0 OR (a.grantor, a.grantee, a.privilege_type, a.is_grantable)
  NOT IN (SELECT * FROM aclexplode(d.base))
UNION ALL SELECT d.defaclrole::int, d.schema, d.objects, a.grantor::int, a.grantee::int,
  a.privilege_type, false, 'revoked'
FROM d, aclexplode(d.base) a
WHERE d.defaclnamespace = 0 AND (a.grantor, a.grantee, a.privilege_type, a.is_grantable)
  NOT IN (SELECT * FROM aclexplode(d.defaclacl))
LIMIT {MAX_OBJECTS}
"""

# Which objects exist: (kind, name, owner oid, details as JSON).
OBJECTS_SQL = f"""
SELECT 'schema'::text AS kind, n.nspname::text AS name, n.nspowner::int AS owner,
  '{{}}'::jsonb AS detail
FROM pg_namespace n WHERE {_user('n')}
UNION ALL SELECT 'relation', n.nspname::text || '.' || c.relname, c.relowner::int,
  jsonb_build_object('kind', c.relkind, 'persistence', c.relpersistence,
    'row security', c.relrowsecurity, 'forced row security', c.relforcerowsecurity,
    'options', c.reloptions, 'view', CASE WHEN c.relkind IN ('v', 'm')
      THEN pg_get_viewdef(c.oid) END,
    'index', CASE WHEN c.relkind = 'i' THEN pg_get_indexdef(c.oid) END)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S', 'i', 'I', 'c') AND {_user('n')}
UNION ALL SELECT 'column', n.nspname::text || '.' || c.relname || '.' || a.attname, NULL,
  jsonb_build_object('type', format_type(a.atttypid, a.atttypmod), 'not null', a.attnotnull,
    'default', pg_get_expr(d.adbin, d.adrelid), 'identity', a.attidentity,
    'generated', a.attgenerated, 'position', a.attnum)
FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE a.attnum > 0 AND NOT a.attisdropped AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'c')
  AND {_user('n')}
UNION ALL SELECT 'constraint', n.nspname::text || '.' || c.relname || '.' || k.conname, NULL,
  jsonb_build_object('definition', pg_get_constraintdef(k.oid))
FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
JOIN pg_namespace n ON n.oid = c.relnamespace WHERE {_user('n')}
UNION ALL SELECT 'trigger', n.nspname::text || '.' || c.relname || '.' || t.tgname, NULL,
  jsonb_build_object('definition', pg_get_triggerdef(t.oid), 'enabled', t.tgenabled)
FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
JOIN pg_namespace n ON n.oid = c.relnamespace WHERE NOT t.tgisinternal AND {_user('n')}
UNION ALL SELECT 'policy', n.nspname::text || '.' || c.relname || '.' || p.polname, NULL,
  jsonb_build_object('command', p.polcmd, 'permissive', p.polpermissive,
    'roles', (SELECT jsonb_agg(r ORDER BY r) FROM unnest(p.polroles::int[]) r),
    'using', pg_get_expr(p.polqual, p.polrelid),
    'check', pg_get_expr(p.polwithcheck, p.polrelid))
FROM pg_policy p JOIN pg_class c ON c.oid = p.polrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
UNION ALL SELECT 'rule', n.nspname::text || '.' || c.relname || '.' || r.rulename, NULL,
  jsonb_build_object('definition', pg_get_ruledef(r.oid))
FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class
JOIN pg_namespace n ON n.oid = c.relnamespace WHERE r.rulename <> '_RETURN' AND {_user('n')}
UNION ALL SELECT 'function', p.oid::regprocedure::text, p.proowner::int,
  jsonb_build_object('kind', p.prokind, 'security definer', p.prosecdef,
    'volatility', p.provolatile, 'settings', p.proconfig, 'language', l.lanname,
    'body', md5(coalesce(p.prosrc, '')), 'leakproof', p.proleakproof)
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
JOIN pg_language l ON l.oid = p.prolang WHERE {_user('n')}
UNION ALL SELECT 'type', t.oid::regtype::text, t.typowner::int,
  jsonb_build_object('kind', t.typtype,
    'labels', (SELECT jsonb_agg(e.enumlabel ORDER BY e.enumsortorder) FROM pg_enum e
               WHERE e.enumtypid = t.oid))
FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
WHERE {_user('n')} AND t.typrelid = 0 AND t.typelem = 0
UNION ALL SELECT 'extension', x.extname, x.extowner::int,
  jsonb_build_object('version', x.extversion, 'schema', n.nspname)
FROM pg_extension x JOIN pg_namespace n ON n.oid = x.extnamespace
UNION ALL SELECT 'publication', p.pubname, p.pubowner::int,
  jsonb_build_object('all tables', p.puballtables)
FROM pg_publication p
UNION ALL SELECT 'event trigger', e.evtname, e.evtowner::int,
  jsonb_build_object('event', e.evtevent) FROM pg_event_trigger e
UNION ALL SELECT o.kind, n.nspname::text || '.' || o.name, o.owner, '{{}}'::jsonb
FROM (SELECT 'operator', oprname::text, oprnamespace, oprowner::int FROM pg_operator
  UNION ALL SELECT 'collation', collname::text, collnamespace, collowner::int FROM pg_collation
  UNION ALL SELECT 'conversion', conname::text, connamespace, conowner::int FROM pg_conversion
  UNION ALL SELECT 'operator class', opcname::text, opcnamespace, opcowner::int FROM pg_opclass
  UNION ALL SELECT 'operator family', opfname::text, opfnamespace, opfowner::int
    FROM pg_opfamily
  UNION ALL SELECT 'text search configuration', cfgname::text, cfgnamespace, cfgowner::int
    FROM pg_ts_config
  UNION ALL SELECT 'text search dictionary', dictname::text, dictnamespace, dictowner::int
    FROM pg_ts_dict
  UNION ALL SELECT 'statistics', stxname::text, stxnamespace, stxowner::int
    FROM pg_statistic_ext) o(kind, name, namespace, owner)
JOIN pg_namespace n ON n.oid = o.namespace WHERE {_user('n')}
LIMIT {MAX_OBJECTS}
"""

ROLE_ATTRIBUTES = ("rolsuper", "rolinherit", "rolcreaterole", "rolcreatedb", "rolcanlogin",
                   "rolreplication", "rolbypassrls", "rolconnlimit", "rolvaliduntil")


# Comments: on the database's own objects (oid >= 16384) one by one, on its built-in objects
# as one digest (their oids are the same in every copy); on the databases and roles observed.
COMMENTS_SQL = """
SELECT pg_describe_object(classoid, objoid, objsubid) AS what, description
FROM pg_description WHERE objoid >= 16384
UNION ALL SELECT 'the built-in objects', md5(string_agg(classoid::regclass::text || ' '
  || objoid || ' ' || objsubid || ' ' || description, '|' ORDER BY classoid, objoid, objsubid))
FROM pg_description WHERE objoid < 16384
LIMIT 5000
"""
SHARED_COMMENTS_SQL = """
SELECT objoid::int AS oid, classoid = 'pg_database'::regclass AS is_database, description
FROM pg_shdescription WHERE objoid = ANY($1::oid[])
"""


async def read_catalogue(db: Any, labels: Labels, role_oids: list[int], database_oid: int,
                         other_databases: Optional[dict[str, int]] = None) -> Observation:
  """The privilege catalogue of ``db``'s database (a trusted connection, ``search_path``
  pg_catalog only), its comments, and the attributes, settings, comments and memberships of
  ``role_oids``; and of each of ``other_databases`` (label -> oid), its ACL, owner and comment
  (keys ``("privilege", "database", label, ...)``)."""
  found: Observation = {}
  hide = labels.hide
  others = other_databases or {}
  for name, oid in others.items():
    owner = await db.fetchval("SELECT datdba::int FROM pg_database WHERE oid = $1", oid)
    found[("database", name, "owner")] = "missing" if owner is None else labels.of(owner)
    for row in await db.fetch(
        "SELECT a.grantor::int AS grantor, a.grantee::int AS grantee, a.privilege_type, "
        "a.is_grantable FROM pg_database d, aclexplode(coalesce(d.datacl, "
        "acldefault('d', d.datdba))) a WHERE d.oid = $1", oid):
      key = ("privilege", "database", name, labels.of(row["grantee"]),
             labels.of(row["grantor"]), row["privilege_type"])
      found[key] = "granted"
      if row["is_grantable"]:
        found[key + ("with grant option",)] = "granted"
  for row in await db.fetch(COMMENTS_SQL):
    if row["description"] is not None:
      found[("comment", hide(row["what"]))] = hide(row["description"])
  names = {oid: name for name, oid in others.items()}
  for row in await db.fetch(SHARED_COMMENTS_SQL, [database_oid, *others.values(), *role_oids]):
    what = ("the database" if row["oid"] == database_oid else names.get(row["oid"])
            if row["is_database"] else labels.of(row["oid"]))
    found[("comment", what)] = hide(row["description"])
  for row in await db.fetch(ACL_SQL):
    key = ("privilege", row["kind"], hide(row["name"]), labels.of(row["grantee"]),
           labels.of(row["grantor"]), row["privilege_type"])
    found[key] = "granted"
    if row["is_grantable"]:
      found[key + ("with grant option",)] = "granted"
  for row in await db.fetch(DEFAULT_ACL_SQL):
    key = ("default privilege", labels.of(row["role"]), hide(row["schema"]), row["objects"],
           labels.of(row["grantee"]), labels.of(row["grantor"]), row["privilege_type"])
    found[key] = row["state"]
    if row["is_grantable"]:
      found[key + ("with grant option",)] = "granted"
  for row in await db.fetch(OBJECTS_SQL):
    base = ("object", row["kind"], hide(row["name"]))
    found[base] = "exists" if row["owner"] is None else {"owner": labels.of(row["owner"])}
    for field, value in json.loads(row["detail"]).items():
      if value is None or value == "":
        continue
      if field == "roles":
        value = sorted(labels.of(oid) for oid in value)
      found[base + (field,)] = hide(value) if isinstance(value, str) else value
  database = await db.fetchrow(
      "SELECT datdba::int AS owner, datconnlimit, datallowconn, datistemplate, "
      "pg_encoding_to_char(encoding) AS encoding FROM pg_database WHERE oid = $1", database_oid)
  if database is None:
    found[("database", "missing")] = True
  else:
    for field, value in dict(database).items():
      found[("database", field)] = labels.of(value) if field == "owner" else value
  attributes = ", ".join(f"{a}::text" if a == "rolvaliduntil" else a for a in ROLE_ATTRIBUTES)
  present = set()
  for row in await db.fetch(f"SELECT oid::int AS oid, {attributes} FROM pg_roles "
                            "WHERE oid = ANY($1::oid[])", role_oids):
    present.add(row["oid"])
    for attribute in ROLE_ATTRIBUTES:
      found[("role", labels.of(row["oid"]), attribute)] = row[attribute]
  for oid in set(role_oids) - present:
    found[("role", labels.of(oid))] = "missing"
  for row in await db.fetch(
      "SELECT setdatabase::int AS db, setrole::int AS role, setconfig FROM pg_db_role_setting "
      "WHERE setdatabase = $1 OR setrole = ANY($2::oid[])", database_oid, role_oids):
    where = ("this database" if row["db"] == database_oid
             else "every database" if row["db"] == 0 else "another database")
    who = "every role" if row["role"] == 0 else labels.of(row["role"])
    found[("setting", where, who)] = sorted(hide(s) for s in row["setconfig"] or [])
  options = [c for c in ("inherit_option", "set_option") if await db.fetchval(
      "SELECT count(*) FROM pg_attribute WHERE attrelid = 'pg_auth_members'::regclass "
      "AND attname = $1", c)]
  for row in await db.fetch(
      f"SELECT roleid::int AS role, member::int AS member, grantor::int AS grantor, "
      f"{', '.join(['admin_option'] + options)} FROM pg_auth_members "
      "WHERE roleid = ANY($1::oid[]) OR member = ANY($1::oid[])", role_oids):
    key = ("member", labels.of(row["member"]), labels.of(row["role"]), labels.of(row["grantor"]))
    found[key] = {c.split("_")[0]: row[c] for c in ["admin_option"] + options}
  return found


async def read_rows(db: Any, labels: Labels) -> Observation:
  """Every row of every table and materialised view of the database's own schemas, and every
  sequence's state, as the role ``db`` is now (``row_security`` off: a policy that would hide
  rows makes the table unreadable, never silently smaller)."""
  found: Observation = {}
  relations = await db.fetch(
      "SELECT n.nspname, c.relname, c.relkind::text AS relkind FROM pg_class c "
      "JOIN pg_namespace n ON n.oid = c.relnamespace "
      f"WHERE c.relkind IN ('r', 'p', 'm', 'S') AND {_user('n')} ORDER BY 1, 2")
  for row in relations:
    name = f"{ident(row['nspname'])}.{ident(row['relname'])}"
    shown = labels.hide(f"{row['nspname']}.{row['relname']}")
    try:
      async with db.transaction(readonly=True):
        if row["relkind"] == "S":
          state = await db.fetchrow(f"SELECT last_value, is_called FROM {name}")
          found[("sequence", shown)] = dict(state)
          continue
        texts = [r[0] for r in await db.fetch(
            f"SELECT t::text FROM {name} t LIMIT {MAX_ROWS + 1}")]
    except Exception as error:  # noqa: BLE001 - whatever the run left must be observable
      found[("rows", shown, "unreadable")] = labels.hide(pg_message(error))
      continue
    if len(texts) > MAX_ROWS:
      found[("rows", shown, "too many")] = True
    counts: dict[str, int] = {}
    for text in texts[:MAX_ROWS]:
      counts[text] = counts.get(text, 0) + 1
    for text, count in counts.items():
      digest = hashlib.sha256(text.encode()).hexdigest()[:16]
      found[("rows", shown, digest)] = {"row": text[:100], "count": count}
  return found
