"""Checks of the lesson-4 exercise ``grant_runtime_role`` (least privilege for ADK's tables).

Contract: ``async def grant_runtime_role(owner_url, database, runtime) -> None``, run as the
role that owns ``database`` and ADK's tables (it created them with ``prepare_tables()``; it is
no superuser, as on Cloud SQL), gives the existing login role ``runtime`` what ADK's
``DatabaseSessionService`` needs to serve the concierge, and nothing more: it reaches ADK's
tables (at most the four DML rights on ``sessions``, ``events``, ``app_states`` and
``user_states``; only ``SELECT`` on ``adk_internal_metadata``, whose schema version is the
owner's to write), without grant option, cannot create, alter, truncate or drop anything, has no
right on the rest of the database's data (a table and its sequence in ``public``, a ``billing``
schema) and is a member of no role; PUBLIC gets nothing new. Names can hold any character an
identifier can; a second call raises nothing.

Each run builds two databases, each hardened as the lesson does (PUBLIC has no right on the
database or on its schema ``public``), with roles of their own (unique to the run, dropped
afterwards: roles belong to the whole server):

1. plain names (``cafe_…``, ``cafe_owner_…``, ``cafe_app_…``);
2. awkward names: capitals, hyphens, spaces, and a double quote in the runtime role's name.

The function is called twice on each. Then the judge, trusted, reads the catalogue with fresh
admin connections (effective rights through ``has_*_privilege``, grant options, role attributes
and memberships, PUBLIC's ACL entries) and logs in as the runtime role to run ADK's real
operations (read the owner's session, create, append with ``user:``/``app:`` deltas, get, list,
user state, delete) and to attempt DDL and reads of the other data, each attempt rolled back.

``Resources.postgres_url`` must be able to create roles (CREATEROLE, or a superuser) besides
databases. When it cannot (a server named by ``ADKCOURSE_POSTGRES_URL`` may grant CREATEDB
only), ``prepare`` starts a private embedded server for the trial and ``cleanup`` stops it.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

from ...postgres import connect
from ._base import Exercise, Resources, TimeBudget, Trial, call_submission, check, untrusted_notes
from ._world import Clock, conversation_turn, rng_for, secret

APP = "cafe_concierge"
DML = ("SELECT", "INSERT", "UPDATE", "DELETE")
ADK_TABLES = ("sessions", "events", "app_states", "user_states", "adk_internal_metadata")
ALLOWED = {f"public.{t}": set(DML) for t in ADK_TABLES[:4]}
ALLOWED["public.adk_internal_metadata"] = {"SELECT"}
TABLE_RIGHTS = ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER")
COLUMN_RIGHTS = ("SELECT", "INSERT", "UPDATE", "REFERENCES")  # also held through one column
SEQUENCE_RIGHTS = ("USAGE", "SELECT", "UPDATE")
ATTRIBUTES = ("rolsuper", "rolcreatedb", "rolcreaterole", "rolreplication", "rolbypassrls")
SYSTEM_SCHEMAS = "n.nspname NOT LIKE 'pg\\_%' AND n.nspname <> 'information_schema'"
TIMEOUTS = {"lock_timeout": "5s", "statement_timeout": "20s"}

SCENARIOS = ("plain", "awkward")
LABELS = {"plain": "plain names", "awkward": "awkward names"}

# Attempts the runtime role must see refused: (what, SQL). Each runs in a transaction that is
# rolled back, so one that succeeds changes nothing.
DDL_PROBES = (
    ("CREATE TABLE in schema public", "CREATE TABLE public.adkcourse_probe (id int)"),
    ("ALTER TABLE sessions", "ALTER TABLE public.sessions ADD COLUMN adkcourse_probe int"),
    ("DROP TABLE events", "DROP TABLE public.events"),
    ("TRUNCATE events", "TRUNCATE public.events"),
    ("CREATE SCHEMA", "CREATE SCHEMA adkcourse_probe"),
    ("CREATE TEMP TABLE", "CREATE TEMP TABLE adkcourse_probe (id int)"),
)
READ_PROBES = (
    ("SELECT from public.loyalty_cards", "SELECT count(*) FROM public.loyalty_cards"),
    ("SELECT from billing.payments", "SELECT count(*) FROM billing.payments"),
    ("nextval('public.loyalty_cards_id_seq')", "SELECT nextval('public.loyalty_cards_id_seq')"),
)

# Embedded servers this process started because the given admin was no superuser, by token.
_PRIVATE_SERVERS: dict[str, Any] = {}


# --- SQL and URLs --------------------------------------------------------------------------------

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

  seen = error
  for _ in range(6):
    if isinstance(seen, asyncpg.PostgresError):
      return str(seen).splitlines()[0] if str(seen) else type(seen).__name__
    nxt = getattr(seen, "orig", None) or seen.__cause__
    if nxt is None:
      break
    seen = nxt
  text = str(error).splitlines()[0] if str(error) else ""
  return f"{type(error).__name__}: {text}"[:300]


@contextmanager
def quiet_adk() -> Iterator[None]:
  """ADK logs an error when a role may not read its tables: expected here, and not output."""
  adk_logger = logging.getLogger("google_adk")
  level = adk_logger.level
  adk_logger.setLevel(logging.CRITICAL)
  try:
    yield
  finally:
    adk_logger.setLevel(level)


# --- prepare -------------------------------------------------------------------------------------

def _names(kind: str) -> dict[str, str]:
  """Names unique to this run (roles are server-wide: parallel trials must not collide)."""
  tag = secrets.token_hex(3)
  if kind == "plain":
    return {"database": f"cafe_{tag}", "owner": f"cafe_owner_{tag}", "runtime": f"cafe_app_{tag}"}
  return {"database": f"Cafe-Prod {tag}", "owner": f"Cafe Owner-{tag}",
          "runtime": f'Concierge-App "EU" {tag}'}


async def _can_create_roles(admin_url: str) -> bool:
  admin = await connect(admin_url)
  try:
    return bool(await admin.fetchval(
        "SELECT rolsuper OR (rolcreaterole AND rolcreatedb) FROM pg_roles "
        "WHERE rolname = current_user"))
  finally:
    await admin.close()


async def _owner_fills(owner_url: str, rng, customer: str) -> str:
  """As the owner: ADK's tables with ``prepare_tables()``, a customer's visit, and the cafe's
  other data (a loyalty table in ``public``, a ``billing`` schema). Returns the session id."""
  from google.adk.sessions.database_session_service import DatabaseSessionService

  service = DatabaseSessionService(owner_url)
  try:
    await service.prepare_tables()
    visit = await service.create_session(
        app_name=APP, user_id=customer, state={"table": rng.randrange(1, 20),
                                               "user:dietary_preferences": ["vegan"]})
    for event in conversation_turn(rng, Clock(rng), agent="cafe_concierge",
                                   mark=lambda: secret(rng),
                                   tool_delta={"user:usual": "oat flat white"}):
      await service.append_event(visit, event)
  finally:
    await service.close()
  owner = await connect(owner_url)
  try:
    await owner.execute(
        "CREATE TABLE public.loyalty_cards (id serial PRIMARY KEY, user_id text NOT NULL,"
        " points int NOT NULL);"
        f"INSERT INTO public.loyalty_cards (user_id, points) VALUES ({literal(customer)}, 120);"
        "CREATE SCHEMA billing;"
        "CREATE TABLE billing.payments (id bigint PRIMARY KEY, user_id text, card_last4 text);"
        f"INSERT INTO billing.payments VALUES (1, {literal(customer)}, '4242');")
  finally:
    await owner.close()
  return visit.id


async def snapshot(admin_url: str, database: str, runtime: str) -> dict[str, Any]:
  """What the runtime role can do in ``database`` (effective rights, through any membership or
  PUBLIC), its attributes and memberships, and every right PUBLIC holds there. Read with a
  fresh admin connection. Raises if the role or the database is gone."""
  # catalogue names resolved in pg_catalog only: a student-made function or table of the same
  # name in another schema cannot stand in for it
  db = await connect(url_for(admin_url, database), search_path="pg_catalog", **TIMEOUTS)
  try:
    version = int(await db.fetchval("SHOW server_version_num"))
    role = await db.fetchrow(f"SELECT oid, {', '.join(ATTRIBUTES)}, rolcanlogin "
                             "FROM pg_roles WHERE rolname = $1", runtime)
    if role is None:
      raise LookupError("the runtime role no longer exists")
    rights = TABLE_RIGHTS + (("MAINTAIN",) if version >= 170000 else ())
    database_rights = [r["p"] for r in await db.fetch(
        "SELECT p FROM unnest($2::text[]) p "
        "WHERE has_database_privilege($1::oid, current_database(), p) ORDER BY p",
        role["oid"], ["CONNECT", "CREATE", "TEMPORARY"])]
    schemas: dict[str, list[str]] = {}
    for row in await db.fetch(
        "SELECT n.nspname, array(SELECT p FROM unnest(ARRAY['USAGE', 'CREATE']) p "
        "  WHERE has_schema_privilege($1::oid, n.oid, p) ORDER BY p) AS rights "
        f"FROM pg_namespace n WHERE {SYSTEM_SCHEMAS} ORDER BY n.nspname", role["oid"]):
      schemas[row["nspname"]] = list(row["rights"])
    relations: dict[str, list[str]] = {}
    for row in await db.fetch(
        "SELECT n.nspname || '.' || c.relname AS name, array("
        "  SELECT p FROM unnest(CASE WHEN c.relkind = 'S' THEN $2::text[] ELSE $3::text[] END) p"
        "  WHERE CASE WHEN c.relkind = 'S' THEN has_sequence_privilege($1::oid, c.oid, p)"
        "    WHEN p = ANY($4::text[]) THEN has_any_column_privilege($1::oid, c.oid, p)"
        "    ELSE has_table_privilege($1::oid, c.oid, p) END ORDER BY p) AS rights "
        "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        f"WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') AND {SYSTEM_SCHEMAS} "
        "ORDER BY 1", role["oid"], list(SEQUENCE_RIGHTS), list(rights), list(COLUMN_RIGHTS)):
      if row["rights"]:
        relations[row["name"]] = list(row["rights"])
    grantable = sorted(f"{r['p']} on {r['name']}" for r in await db.fetch(
        "SELECT 'database' AS name, p FROM unnest(ARRAY['CONNECT', 'CREATE', 'TEMPORARY']) p "
        "WHERE has_database_privilege($1::oid, current_database(), p || ' WITH GRANT OPTION') "
        "UNION ALL SELECT 'schema ' || n.nspname, p FROM pg_namespace n, "
        "unnest(ARRAY['USAGE', 'CREATE']) p "
        f"WHERE {SYSTEM_SCHEMAS} AND has_schema_privilege($1::oid, n.oid, p || ' WITH GRANT OPTION') "
        "UNION ALL SELECT n.nspname || '.' || c.relname, p "
        "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace, unnest($3::text[]) p "
        f"WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') AND {SYSTEM_SCHEMAS} AND CASE "
        "  WHEN c.relkind = 'S' THEN CASE WHEN p = ANY($2::text[]) "
        "    THEN has_sequence_privilege($1::oid, c.oid, p || ' WITH GRANT OPTION') END "
        "  WHEN p = ANY($2::text[]) AND p <> 'SELECT' AND p <> 'UPDATE' THEN false "
        "  ELSE has_table_privilege($1::oid, c.oid, p || ' WITH GRANT OPTION') END",
        role["oid"], list(SEQUENCE_RIGHTS), sorted(set(rights) | set(SEQUENCE_RIGHTS))))
    member_of = [r["rolname"] for r in await db.fetch(
        "SELECT rolname FROM pg_roles WHERE oid <> $1 AND pg_has_role($1, oid, 'MEMBER') "
        "ORDER BY rolname", role["oid"])]
    public = sorted(f"{r['kind']} {r['name']}: {r['privilege_type']}" for r in await db.fetch(
        "SELECT 'database' AS kind, d.datname AS name, a.privilege_type "
        "FROM pg_database d, aclexplode(d.datacl) a "
        "WHERE d.datname = current_database() AND a.grantee = 0 "
        "UNION ALL SELECT 'schema', n.nspname, a.privilege_type "
        f"FROM pg_namespace n, aclexplode(n.nspacl) a WHERE a.grantee = 0 AND {SYSTEM_SCHEMAS} "
        "UNION ALL SELECT 'relation', n.nspname || '.' || c.relname, a.privilege_type "
        "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace, aclexplode(c.relacl) a "
        f"WHERE a.grantee = 0 AND {SYSTEM_SCHEMAS} "
        "UNION ALL SELECT 'column', c.relname || '.' || t.attname, a.privilege_type "
        "FROM pg_attribute t JOIN pg_class c ON c.oid = t.attrelid "
        "JOIN pg_namespace n ON n.oid = c.relnamespace, aclexplode(t.attacl) a "
        f"WHERE a.grantee = 0 AND {SYSTEM_SCHEMAS} "
        "UNION ALL SELECT 'default privileges', d.defaclobjtype::text, a.privilege_type "
        "FROM pg_default_acl d, aclexplode(d.defaclacl) a WHERE a.grantee = 0"))
  finally:
    await db.close()
  return {"database": database_rights, "schemas": schemas, "relations": relations,
          "attributes": {a: bool(role[a]) for a in ATTRIBUTES},
          "can_login": bool(role["rolcanlogin"]), "member_of": member_of, "public": public,
          "grantable": grantable}


async def _build(admin_url: str, kind: str, rng, setup: dict[str, Any]) -> dict[str, Any]:
  names = _names(kind)
  passwords = {"owner": secrets.token_urlsafe(18), "runtime": secrets.token_urlsafe(18)}
  admin = await connect(admin_url)
  try:
    version = int(await admin.fetchval("SHOW server_version_num"))
    superuser = await admin.fetchval("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")
    for who in ("owner", "runtime"):
      await admin.execute(f"CREATE ROLE {ident(names[who])} LOGIN "
                          f"PASSWORD {literal(passwords[who])}")
      setup["role_oids"].append(await admin.fetchval(
          "SELECT oid::int FROM pg_roles WHERE rolname = $1", names[who]))
    if not superuser:  # CREATEROLE: to create (and later drop) a database the owner owns
      await admin.execute(f"GRANT {ident(names['owner'])} TO CURRENT_USER")
    await admin.execute(f"CREATE DATABASE {ident(names['database'])} "
                        f"OWNER {ident(names['owner'])}")
    setup["database_oids"].append(await admin.fetchval(
        "SELECT oid::int FROM pg_database WHERE datname = $1", names["database"]))
    # A trial's data need not survive a crash: commits without waiting for the disk.
    await admin.execute(f"ALTER DATABASE {ident(names['database'])} SET synchronous_commit = off")
  finally:
    await admin.close()
  if version < 150000:  # before 15, public belongs to the bootstrap superuser
    inside = await connect(url_for(admin_url, names["database"]))
    try:
      await inside.execute(f"ALTER SCHEMA public OWNER TO {ident(names['owner'])}")
    finally:
      await inside.close()
  owner_url = url_for(admin_url, names["database"], names["owner"], passwords["owner"])
  owner = await connect(owner_url)
  try:  # hardened as in the lesson, by the owner (PUBLIC's rights were granted by it)
    await owner.execute(f"REVOKE ALL ON DATABASE {ident(names['database'])} FROM PUBLIC;"
                        "REVOKE ALL ON SCHEMA public FROM PUBLIC")
  finally:
    await owner.close()
  customer = f"ayu_{rng.randrange(100, 999)}"
  visit = await _owner_fills(owner_url, rng, customer)
  return {"kind": kind, "label": LABELS[kind], **names, "runtime_password": passwords["runtime"],
          "owner_url": owner_url,
          "customer": customer, "visit": visit,
          "before": await snapshot(admin_url, names["database"], names["runtime"])}


async def prepare(workdir: Path, resources: Resources) -> dict[str, Any]:  # noqa: ARG001
  if not resources.postgres_url:
    raise ValueError("grant_runtime_role needs a PostgreSQL server (Resources.postgres_url)")
  seed, rng = rng_for(resources.seed)
  admin_url = resources.postgres_url
  setup: dict[str, Any] = {"seed": seed, "role_oids": [], "database_oids": [],
                           "scenarios": [], "private_server": None}
  if not await _can_create_roles(admin_url):
    from adkcourse.postgres import start_embedded
    from adkcourse.scratch import scratch_root

    token = secrets.token_hex(6)
    try:
      server = start_embedded(scratch_root() / f"pgdata-grant-{token}")
    except Exception as error:
      raise RuntimeError("grant_runtime_role needs a PostgreSQL role that can create roles "
                         "(CREATEROLE and CREATEDB, or a superuser), and no private server "
                         f"could be started instead ({type(error).__name__}: {error})") from error
    _PRIVATE_SERVERS[token] = server
    setup["private_server"] = token
    admin_url = server.url
  setup["server_url"] = admin_url
  try:
    admin = await connect(admin_url)
    try:  # roles created from now on with higher oids may be the submission's (see cleanup)
      setup["role_oid_mark"] = int(await admin.fetchval("SELECT max(oid)::int FROM pg_roles"))
    finally:
      await admin.close()
    # Both databases at once (each scenario draws from its own generator: same data either way).
    rngs = [random.Random(rng.getrandbits(64)) for _ in SCENARIOS]
    built = await asyncio.gather(*(_build(admin_url, kind, r, setup)
                                   for kind, r in zip(SCENARIOS, rngs)), return_exceptions=True)
    for result in built:
      if isinstance(result, BaseException):
        raise result
    setup["scenarios"] = list(built)
  except BaseException:
    await cleanup(setup, resources)
    raise
  return setup


async def cleanup(setup: dict[str, Any], resources: Resources) -> None:  # noqa: ARG001
  """Drop the databases and roles ``prepare`` made (found by oid, whatever they are called now),
  roles the submission made the runtime role join, and stop a private server."""
  token = setup.get("private_server")
  server = _PRIVATE_SERVERS.pop(token, None) if isinstance(token, str) else None
  try:
    url = setup.get("server_url")
    if isinstance(url, str):
      await _drop_everything(url, setup)
  finally:
    if server is not None:
      server.stop()


async def _drop_database(url: str, name: str) -> None:
  admin = await connect(url)
  try:
    await admin.execute(f"DROP DATABASE IF EXISTS {ident(name)} WITH (FORCE)")
  finally:
    await admin.close()


async def _drop_everything(url: str, setup: dict[str, Any]) -> None:
  database_oids = [o for o in setup.get("database_oids", []) if type(o) is int]
  role_oids = [o for o in setup.get("role_oids", []) if type(o) is int]
  mark = setup.get("role_oid_mark")
  if not (database_oids or role_oids):
    return
  admin = await connect(url)
  try:
    names = [r["datname"] for r in await admin.fetch(
        "SELECT datname FROM pg_database WHERE oid = ANY($1::oid[])", database_oids)]
    await asyncio.gather(*(_drop_database(url, name) for name in names))  # each waits on disk
    extra: list[int] = []
    if type(mark) is int:  # groups the submission created for the runtime role (not allowed)
      extra = [r["oid"] for r in await admin.fetch(
          "SELECT g.oid::int AS oid FROM pg_roles g, unnest($1::oid[]) m(oid) "
          "WHERE g.oid > $2 AND NOT (g.oid = ANY($1::oid[])) "
          "AND pg_has_role(m.oid, g.oid, 'MEMBER')", role_oids, mark)]
    for row in await admin.fetch("SELECT rolname FROM pg_roles WHERE oid = ANY($1::oid[])",
                                 sorted(set(extra)) + role_oids):
      for sql in (f"DROP OWNED BY {ident(row['rolname'])}",  # a superuser's cleaning
                  f"DROP ROLE IF EXISTS {ident(row['rolname'])}"):
        try:
          await admin.execute(sql)
        except Exception:  # noqa: BLE001 - CREATEROLE may not DROP OWNED; never fatal
          pass
  finally:
    await admin.close()


# --- act -----------------------------------------------------------------------------------------

async def act(fn: Callable, workdir: Path, setup: dict[str, Any],  # noqa: ARG001
              time_limit: Optional[float] = None) -> dict[str, Any]:
  """Call ``fn(owner_url, database, runtime)`` twice on each scenario's database."""
  runs = []
  budget = TimeBudget(time_limit, 2 * len(setup["scenarios"]))
  for scenario in setup["scenarios"]:
    calls = []
    for _ in range(2):
      trial = Trial()
      await call_submission(trial, fn, scenario["owner_url"], scenario["database"],
                            scenario["runtime"], is_async=True, budget=budget)
      failed = bool(trial.raised) or any(
          marker in note for note in trial.notes
          for marker in ("raised NotImplementedError", "did not finish", "sys.exit"))
      calls.append({"notes": trial.notes, "raised": failed})
    runs.append({"calls": calls})
  return {"runs": runs}


# --- observe -------------------------------------------------------------------------------------

@dataclass
class GrantRun:
  """One scenario after the submission ran twice on it."""

  kind: str
  label: str
  names: dict[str, str]
  before: dict[str, Any]
  after: Optional[dict[str, Any]]
  adk: dict[str, Any]  # {"done": [...], "failed": (step, message) or None}
  probes: dict[str, Optional[str]]  # what -> None if refused, else "succeeded"
  second_call_failed: bool
  first_call_failed: bool


@dataclass
class GrantTrial(Trial):
  runs: list[GrantRun] = field(default_factory=list)


def hide_names(text: str, names: dict[str, str]) -> str:
  """Messages with this run's names replaced by what they stand for (reports stay the same
  from run to run)."""
  for key in ("runtime", "owner", "database"):
    name = names[key]
    for form in (ident(name), name):
      text = text.replace(form, f"<{key}>")
  return text


async def _adk_as_runtime(url: str, scenario: dict[str, Any], rng) -> dict[str, Any]:
  """ADK's operations as the runtime role: the steps done, and the first that failed."""
  from google.adk.sessions.database_session_service import DatabaseSessionService

  done: list[str] = []
  service = DatabaseSessionService(url, connect_args={"server_settings": TIMEOUTS,
                                                      "timeout": 20})
  step = "connect"
  try:
    step = "get_session (the session the owner stored)"
    old = await service.get_session(app_name=APP, user_id=scenario["customer"],
                                    session_id=scenario["visit"])
    if old is None or old.state.get("user:dietary_preferences") != ["vegan"]:
      return {"done": done, "failed": [step, "the customer's session or state is gone"]}
    done.append(step)
    newcomer = f"kai_{rng.randrange(100, 999)}"
    step = "create_session (with user: and app: keys)"
    session = await service.create_session(
        app_name=APP, user_id=newcomer,
        state={"table": 7, "user:dietary_preferences": ["nut allergy"], "app:menu": 3})
    done.append(step)
    step = "append_event (with user: and app: deltas)"
    for event in conversation_turn(rng, Clock(rng), agent="cafe_concierge",
                                   mark=lambda: secret(rng),
                                   user_delta={"user:dietary_preferences": ["vegan"]},
                                   tool_delta={"app:menu": 4, "order": {"drink": "chai"}}):
      await service.append_event(session, event)
    done.append(step)
    step = "get_session"
    got = await service.get_session(app_name=APP, user_id=newcomer, session_id=session.id)
    if got is None or len(got.events) != 4 or got.state.get("order") != {"drink": "chai"}:
      return {"done": done, "failed": [step, "the session did not come back as written"]}
    done.append(step)
    step = "list_sessions"
    listed = await service.list_sessions(app_name=APP, user_id=newcomer)
    if [s.id for s in listed.sessions] != [session.id]:
      return {"done": done, "failed": [step, "the session is not listed"]}
    done.append(step)
    step = "get_user_state"
    if await service.get_user_state(app_name=APP, user_id=newcomer) != {
        "dietary_preferences": ["vegan"]}:
      return {"done": done, "failed": [step, "the user state is not what was written"]}
    done.append(step)
    step = "delete_session"
    await service.delete_session(app_name=APP, user_id=newcomer, session_id=session.id)
    if await service.get_session(app_name=APP, user_id=newcomer, session_id=session.id):
      return {"done": done, "failed": [step, "the session is still there"]}
    done.append(step)
  except Exception as error:  # noqa: BLE001 - what PostgreSQL refused is the point
    return {"done": done, "failed": [step, pg_message(error)]}
  finally:
    try:
      await service.close()
    except Exception:  # noqa: BLE001
      pass
  return {"done": done, "failed": None}


async def _probe(url: str) -> dict[str, Optional[str]]:
  """Each DDL and read attempt as the runtime role: None if refused, else "succeeded"."""
  import asyncpg

  results: dict[str, Optional[str]] = {}
  try:
    connection = await connect(url, **TIMEOUTS)
  except Exception:  # noqa: BLE001 - cannot even connect: nothing can succeed
    return {what: None for what, _ in DDL_PROBES + READ_PROBES}
  try:
    for what, sql in DDL_PROBES + READ_PROBES:
      transaction = connection.transaction()
      await transaction.start()
      try:
        await connection.execute(sql)
        results[what] = "succeeded"
      except asyncpg.PostgresError:
        results[what] = None
      finally:
        await transaction.rollback()
  finally:
    await connection.close()
  return results


async def observe(workdir: Path, setup: dict[str, Any], acted: Any) -> GrantTrial:  # noqa: ARG001
  trial = GrantTrial()
  _, rng = rng_for(setup.get("seed"))
  runs = acted.get("runs") if isinstance(acted, dict) else None
  if not (isinstance(runs, list) and len(runs) == len(setup["scenarios"])):
    trial.notes.append("the run's report was malformed; graded on the server alone")
    runs = [{} for _ in setup["scenarios"]]
  for scenario, run in zip(setup["scenarios"], runs):
    names = {k: scenario[k] for k in ("database", "owner", "runtime")}
    calls = run.get("calls") if isinstance(run, dict) else None
    if not (isinstance(calls, list) and len(calls) == 2 and all(isinstance(c, dict)
                                                                 for c in calls)):
      calls = [{}, {}]
    failed = []
    first_notes: list[str] = []
    for number, call in enumerate(calls):
      notes = untrusted_notes(call) if call else []
      failed.append(call.get("raised") is not False)
      if number == 1 and notes == first_notes:
        continue
      where = scenario["label"] + (", second call" if number else "")
      trial.notes += [f"{where}: {hide_names(n, names)}" for n in notes]
      first_notes = notes
    admin_url = setup["server_url"]
    runtime_url = url_for(admin_url, scenario["database"], scenario["runtime"],
                          scenario["runtime_password"])
    try:
      after = await asyncio.wait_for(
          snapshot(admin_url, scenario["database"], scenario["runtime"]), 60)
    except Exception as error:  # noqa: BLE001
      trial.notes.append(f"{scenario['label']}: the rights could not be read back "
                         f"({hide_names(pg_message(error), names)})")
      after = None
    try:
      probes = await asyncio.wait_for(_probe(runtime_url), 120)
    except Exception:  # noqa: BLE001 - a lock held by the submission, say
      probes = {what: "could not be tried" for what, _ in DDL_PROBES + READ_PROBES}
    try:
      with quiet_adk():
        adk = await asyncio.wait_for(_adk_as_runtime(runtime_url, scenario, rng), 120)
    except Exception as error:  # noqa: BLE001
      adk = {"done": [], "failed": ["(all)", pg_message(error)]}
    if adk["failed"]:
      adk["failed"][1] = hide_names(adk["failed"][1], names)
    trial.runs.append(GrantRun(scenario["kind"], scenario["label"], names, scenario["before"],
                               after, adk, probes, failed[1], failed[0]))
  trial.acted = any(r.after != r.before for r in trial.runs)
  return trial


# --- judging -------------------------------------------------------------------------------------

def _per_run(runs: list[GrantRun], verdict: Callable[[GrantRun], Optional[str]],
             success: str) -> tuple[float, str]:
  if not runs:
    return 0, "no scenario to judge"
  problems = [(r.label, why) for r in runs if (why := verdict(r)) is not None]
  if not problems:
    return 1, success
  fraction = 1 - len(problems) / len(runs)
  if len(problems) == len(runs) > 1 and len({why for _, why in problems}) == 1:
    return fraction, f"{' and '.join(r.label for r in runs)} alike: {problems[0][1]}"
  return fraction, "; ".join(f"{label}: {why}" for label, why in problems)


def _listed(items: list[str], most: int = 4) -> str:
  shown = ", ".join(items[:most]) if all("," not in i for i in items) else "; ".join(items[:most])
  return shown + ("" if len(items) <= most else f" and {len(items) - most} more")


def _unreadable(run: GrantRun) -> Optional[str]:
  if run.after is None:
    return "the runtime role's rights could not be read (role or database gone?)"
  return None


@check(3)
def runtime_runs_adk(trial: GrantTrial) -> tuple[float, str]:
  """Logged in as the runtime role, ADK's ``DatabaseSessionService`` reads the owner's session,
  creates a session, appends events with ``user:`` and ``app:`` deltas, gets and lists it, reads
  the user state and deletes the session."""
  plain_worked = any(r.kind == "plain" and not r.first_call_failed for r in trial.runs)

  def verdict(run: GrantRun) -> Optional[str]:
    if run.adk.get("failed") is None:
      return None
    step, message = run.adk["failed"]
    why = f"{step} failed: {message}"
    if "permission denied for database" in message:
      why += " (the runtime role needs CONNECT on the database: PUBLIC has none here)"
    elif "schema has been selected" in message or "permission denied for schema" in message:
      why += (" (without USAGE on schema public the runtime role sees none of ADK's tables, "
              "and ADK tries to create them)")
    elif "permission denied for table" in message:
      why += " (a right ADK uses on that table is missing)"
    if run.first_call_failed and run.kind == "awkward" and plain_worked:
      return ("your function raised on these names (see the notes): quote every name as an "
              "identifier (in double quotes, a double quote inside doubled), or let PostgreSQL "
              f"do it (format('%I'), quote_ident); then {why}")
    if run.first_call_failed:
      return f"your function raised (see the notes); then {why}"
    return why

  return _per_run(trial.runs, verdict, "ADK's operations all succeed as the runtime role")


@check(2, needs_action=True)
def runtime_cannot_change_the_schema(trial: GrantTrial) -> tuple[float, str]:
  """The runtime role cannot create, alter, truncate or drop: it has no CREATE on the database or
  any schema, no TEMPORARY, no TRUNCATE, and each DDL attempt is refused."""
  def verdict(run: GrantRun) -> Optional[str]:
    if (why := _unreadable(run)) is not None:
      return why
    problems = [what for what, _ in DDL_PROBES if run.probes.get(what) is not None]
    after = run.after
    problems += [f"{p} on the database" for p in after["database"] if p != "CONNECT"]
    problems += [f"CREATE on schema {s}" for s, rights in after["schemas"].items()
                 if "CREATE" in rights]
    problems = list(dict.fromkeys(problems))
    if problems:
      return (f"the runtime role can still do this: {_listed(problems, 6)}; grant rights on the "
              "tables (and CONNECT, USAGE), never ALL on the database or the schema")
    return None

  return _per_run(trial.runs, verdict, "every DDL attempt is refused")


@check(2, needs_action=True)
def only_adk_tables(trial: GrantTrial) -> tuple[float, str]:
  """The runtime role holds at most SELECT, INSERT, UPDATE, DELETE on ADK's four data tables and
  SELECT on ``adk_internal_metadata``, none with grant option, and nothing on the database's
  other data (a table and its sequence in ``public``, the schema ``billing``)."""
  def verdict(run: GrantRun) -> Optional[str]:
    if (why := _unreadable(run)) is not None:
      return why
    problems = []
    for name, rights in sorted(run.after["relations"].items()):
      extra = sorted(set(rights) - ALLOWED.get(name, set()))
      if extra:
        problems.append(f"{', '.join(extra)} on {name}")
    problems += [f"USAGE on schema {s}" for s, rights in sorted(run.after["schemas"].items())
                 if s != "public" and "USAGE" in rights]
    problems += [f"{g} WITH GRANT OPTION" for g in run.after.get("grantable", [])]
    read = [what for what, _ in READ_PROBES if run.probes.get(what) is not None]
    if not problems and not read:
      return None
    hints = []
    if any(p.endswith("public.adk_internal_metadata") for p in problems):
      hints.append("adk_internal_metadata is the owner's to write: the runtime only reads it")
    if any("loyalty_cards" in p or "billing" in p for p in problems + read):
      hints.append("name ADK's tables: ON ALL TABLES/SEQUENCES IN SCHEMA also reaches the "
                   "cafe's other data")
    if any(p.endswith("WITH GRANT OPTION") for p in problems):
      hints.append("WITH GRANT OPTION lets the runtime role hand its rights to anyone")
    if any(p.startswith(("MAINTAIN", "REFERENCES", "TRIGGER", "TRUNCATE")) for p in problems):
      hints.append("ALL PRIVILEGES also gives TRUNCATE, REFERENCES, TRIGGER and, since "
                   "PostgreSQL 17, MAINTAIN")
    text = "more than ADK needs: " + (_listed(problems) if problems
                                      else f"could {', '.join(read)}")
    return text + (f" ({'; '.join(hints)})" if hints else "")

  return _per_run(trial.runs, verdict, "rights on ADK's tables only, metadata read-only")


@check(1, needs_action=True)
def no_role_powers(trial: GrantTrial) -> tuple[float, str]:
  """The runtime role is no superuser, cannot create databases or roles, replicate or bypass row
  security, still logs in, and is a member of no role (not the owner's, nor a predefined one)."""
  def verdict(run: GrantRun) -> Optional[str]:
    if (why := _unreadable(run)) is not None:
      return why
    problems = [a[3:].upper() for a, on in run.after["attributes"].items() if on]
    if not run.after["can_login"]:
      problems.append("NOLOGIN (it must still log in)")
    members = [hide_names(m, run.names) for m in run.after["member_of"]]
    if members:
      problems.append(f"member of {', '.join(members)}")
    if not problems:
      return None
    why = ("the runtime role has powers of its own: " + ", ".join(problems)
           + "; it needs rights on objects only")
    if run.names["owner"] in run.after["member_of"]:
      why += " (a member of the owner can do all the owner can, DDL included)"
    return why

  return _per_run(trial.runs, verdict, "no role attribute, no membership")


@check(1, needs_action=True)
def nothing_to_public(trial: GrantTrial) -> tuple[float, str]:
  """PUBLIC (every role, present and future) gains no right in the database."""
  def verdict(run: GrantRun) -> Optional[str]:
    if (why := _unreadable(run)) is not None:
      return why
    added = sorted(set(run.after["public"]) - set(run.before["public"]))
    if added:
      shown = ", ".join(hide_names(a, run.names) for a in added[:4])
      more = "" if len(added) <= 4 else f" and {len(added) - 4} more"
      return f"granted to PUBLIC: {shown}{more}; grant to the runtime role only"
    return None

  return _per_run(trial.runs, verdict, "PUBLIC gained nothing")


@check(1, needs_action=True)
def second_call_harmless(trial: GrantTrial) -> tuple[float, str]:
  """Calling the function a second time on the same database raises nothing (a deployment
  re-runs its set-up); the rights are judged after both calls."""
  def verdict(run: GrantRun) -> Optional[str]:
    if run.second_call_failed and not run.first_call_failed:
      return "the first call worked, the second raised (see the notes): make it idempotent"
    if run.second_call_failed:
      return "the function raised (see the notes)"
    return None

  return _per_run(trial.runs, verdict, "a second call raises nothing")


EXERCISE = Exercise(
    name="grant_runtime_role",
    lesson="04_production_postgres",
    signature="async def grant_runtime_role(owner_url: str, database: str, runtime: str) -> None",
    is_async=True,
    checks=(runtime_runs_adk, runtime_cannot_change_the_schema, only_adk_tables, no_role_powers,
            nothing_to_public, second_call_harmless),
    prepare=prepare,
    act=act,
    observe=observe,
    needs_postgres=True,
    cleanup=cleanup,
)
