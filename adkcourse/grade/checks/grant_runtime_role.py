"""The judge of the lesson-4 exercise ``grant_runtime_role`` (least privilege for ADK's tables).

Contract (``exercises/grant_runtime_role.py``): ``async def grant_runtime_role(owner_url,
database, runtime) -> None``, run as the role that owns ``database`` and ADK's tables (no
superuser), lets the login role ``runtime`` serve ADK's ``DatabaseSessionService`` and do
nothing more, PUBLIC gains nothing, everything else in the database stays as it was, and a
second call raises nothing.

A world is one cafe database on the grader's PostgreSQL, hardened as in the lesson (PUBLIC has
no right on the database or its schema ``public``), with roles of its own: the owner, the
runtime role and, in some worlds, other roles holding grants that must stay (a reporting role,
an auditor with a grant option, a role whose name differs from the runtime's only by case or
by Unicode normalisation, created before the runtime). Names are awkward: the runtime's and
the database's always hold a single quote and one of them ``$$``; capitals, hyphens, spaces,
double quotes, decomposed accents, 63 bytes. The owner also owns a second database. Besides ADK's
tables (``prepare_tables()``, sessions of several customers) the owner keeps the cafe's other
data: tables with sequences in ``public`` and in another schema, views, a materialised view,
functions (one ``SECURITY DEFINER``), an enum type, default privileges, and in some worlds a
schema named after the owner, first on its ``search_path``, holding tables called ``sessions``
and ``events``. Each copy of a world is built afresh (roles are server-wide) with names of its
own, normalised to labels in the observation.

The observation, read by the trusted judge after both calls: every ACL entry of the database
(and of the owner's other one), its schemas, relations, columns, functions, types and languages
(NULL read as the owner's defaults), every comment (pg_description, pg_shdescription), every
default ACL, the attributes, settings and memberships of the world's roles,
which objects exist with their owners and definitions, every row of every table and each
sequence's state; then, logged in as the runtime role, ADK's operations, DDL attempts and
attempts on the cafe's other data (each rolled back).
"""

from __future__ import annotations

import logging
import random
import secrets
import unicodedata
from pathlib import Path
from typing import Any, Callable

from ...postgres import connect
from ._engine import Check, Exercise, Open, Resources, View
from ._grant_runtime_role_support import (TIMEOUTS, Labels, ident, literal, pg_message,
                                          read_catalogue, read_rows, role_admin_url, url_for)
from ._harness import ActWorld
from ._world import FIRST_NAMES, Clock, conversation_turn, play, secret, turn_events

APP = "cafe_concierge"
PROBE_APP = "adkcourse_probe"  # the probes' sessions: removed again, so observing changes nothing
DML = ("SELECT", "INSERT", "UPDATE", "DELETE")
ADK_DATA = ("public.sessions", "public.events", "public.app_states", "public.user_states")
METADATA = "public.adk_internal_metadata"
DATABASES = ("database", "archive")  # labels of names that are databases, not roles
ADK_TABLES = ("public.sessions", "public.app_states", "public.user_states", "public.events",
              METADATA)  # in an order that inserts parents first
SCHEMA_POWERS = ("CREATE", "TEMPORARY", "TRUNCATE", "TRIGGER", "MAINTAIN")
TAG = 6  # hex digits that make a copy's names unique on the server
STAMP = "2025-01-06 09:30:00+00"  # every ADK timestamp the database sets itself, in each copy
RUNS, DDL, ONLY, ROLE, PUBLIC, AGAIN = ("runtime_runs_adk", "runtime_cannot_change_the_schema",
                                        "only_adk_tables", "no_role_powers",
                                        "nothing_to_public", "second_call_harmless")
ADK_STEPS = ("get_session (a stored session)", "create_session (with user: and app: keys)",
             "append_event (with user: and app: deltas)", "get_session", "list_sessions",
             "get_user_state", "delete_session")
VARIANTS = ("apostrophes in the names", "quotes in the names", "Unicode names of 63 bytes",
            "names that differ only by case")
_WORLDS: dict[str, dict[str, Any]] = {}  # a copy's secrets, in the judge's memory only


# --- the world ---------------------------------------------------------------------------------

def _sized(prefix: str, pad: str, end: str = "") -> list[str]:
  """A name of exactly 63 bytes (PostgreSQL's longest) once the tag is in: [prefix, suffix]."""
  room = 63 - len(prefix.encode()) - TAG - len(end.encode())
  suffix = ""
  while len((suffix + pad).encode()) <= room:
    suffix += pad
  return [prefix, suffix + "x" * (room - len(suffix.encode())) + end]


def _names(rng: random.Random, variant: int) -> dict[str, Any]:
  """Each role's and database's name as [prefix, suffix] around the copy's tag: the runtime's
  and the database's always hold a single quote, and one of them ``$$`` (SQL literals, DO
  blocks); ``archive`` is the owner's other database; look-alikes are created first."""
  if variant == 0:
    stem = rng.choice(("cafe", "bistro", "roastery"))
    return {"database": [f"{stem}'s_", ""], "owner": [f"{stem}_owner_", ""],
            "runtime": [f"{stem}_app'$$_", ""], "archive": [f"{stem}_archive'_", ""],
            "others": {"reporting": [f"{stem}_reporting_", ""]} if rng.random() < 0.5 else {}}
  if variant == 1:
    runtime = rng.choice(('Concierge-App "EU" it\'s $$ ', 'App ""Barista"" l\'$$'))
    return {"database": [rng.choice(('Cafe-Prod "Main" O\'Neil ', 'Caf\u00e9 "EU" d\'Or-')), ""],
            "owner": [rng.choice(("Cafe Owner-", "O'Hara Owner ")), ""],
            "runtime": [runtime, ""], "archive": ['Archive "2024" \'', ""],
            "others": {"look-alike": [runtime.upper(), ""], "reporting": ['Reporting "BI" ', ""]}}
  if variant == 2:
    runtime = _sized("Cafe\u0301 Concierge \u2615 l'", rng.choice(("\u00fc", "e\u0301", " ")))
    return {"database": _sized('\u2615 Caf\u00e9 "\u00dcn\u00efcode" $$ d\'', "\u00e9", end=" "),
            "owner": _sized("Propri\u00e9taire ", "\u00e9"), "runtime": runtime,
            "archive": ["Archiv\u00e9 l'", ""],
            "others": {"look-alike": [unicodedata.normalize("NFC", part) for part in runtime]}}
  return {"database": ["CafeDB'", ""], "owner": ["CafeOwner", ""], "runtime": ["CafeApp'$$", ""],
          "archive": ["CafeArchive'", ""],
          "others": {"look-alike": ["cafeapp'$$", ""], "reporting": ["CafeReporting", ""],
                     "auditor": ["Auditor", ""]}}


def _cafe(rng: random.Random, variant: int, others: dict[str, Any], customers: list[str]
          ) -> dict[str, Any]:
  """The cafe's other data, as the owner's SQL (``<<label>>`` stands for a role's or the
  database's quoted name), and what the runtime role must not reach (relations, functions)."""
  billing = rng.choice(("billing", "Billing Dept", "billing-2024", "factura\u00e7\u00e3o"))
  b = ident(billing)
  sql = ["CREATE TABLE public.loyalty_cards (id serial PRIMARY KEY, user_id text NOT NULL,"
         " points int NOT NULL)",
         *(f"INSERT INTO public.loyalty_cards (user_id, points) VALUES ({literal(c)}, "
           f"{rng.randrange(10, 500)})" for c in customers),
         f"CREATE SCHEMA {b}",
         f"CREATE TABLE {b}.payments (id bigint PRIMARY KEY, user_id text, amount numeric(8, 2),"
         " card_last4 text)",
         *(f"INSERT INTO {b}.payments VALUES ({n}, {literal(c)}, {rng.randrange(300, 2000) / 100},"
           f" '{rng.randrange(1000, 9999)}')" for n, c in enumerate(customers, 1))]
  relations = [["table", "public.loyalty_cards", "public.loyalty_cards"],
               ["sequence", "public.loyalty_cards_id_seq", "public.loyalty_cards_id_seq"],
               ["table", f"{billing}.payments", f"{b}.payments"]]
  functions: list[list[str]] = []
  if variant >= 1 or rng.random() < 0.5:
    sql.append("CREATE VIEW public.loyalty_summary AS SELECT user_id, sum(points) AS points "
               "FROM public.loyalty_cards GROUP BY user_id")
    relations.append(["view", "public.loyalty_summary", "public.loyalty_summary"])
  if variant >= 2 or rng.random() < 0.3:
    sql += ["CREATE TYPE public.tier AS ENUM ('bronze', 'silver', 'gold')",
            "CREATE FUNCTION public.tier_of(points int) RETURNS public.tier LANGUAGE sql IMMUTABLE"
            " AS $$ SELECT CASE WHEN points > 300 THEN 'gold' WHEN points > 100 THEN 'silver'"
            " ELSE 'bronze' END::public.tier $$",
            "CREATE FUNCTION public.add_points(who text, n int) RETURNS void LANGUAGE sql "
            "SECURITY DEFINER SET search_path = pg_catalog AS $$ UPDATE public.loyalty_cards "
            "SET points = points + n WHERE user_id = who $$",
            "REVOKE ALL ON FUNCTION public.add_points(text, int) FROM PUBLIC",
            f"CREATE MATERIALIZED VIEW {b}.monthly AS SELECT user_id, sum(amount) AS total "
            f"FROM {b}.payments GROUP BY user_id",
            "CREATE SEQUENCE public.order_numbers START 1000"]
    functions.append(["public.add_points", "SELECT public.add_points('nobody', 1)"])
    relations += [["materialized view", f"{billing}.monthly", f"{b}.monthly"],
                  ["sequence", "public.order_numbers", "public.order_numbers"]]
  own_schema = variant == 2 or (variant == 3 and rng.random() < 0.5)
  if own_schema:  # first on the owner's search_path
    sql += ["CREATE SCHEMA <<owner>> AUTHORIZATION <<owner>>",
            "CREATE TABLE <<owner>>.sessions (id serial PRIMARY KEY, till int, opened text)",
            "CREATE TABLE <<owner>>.events (id int PRIMARY KEY, title text)",
            "INSERT INTO <<owner>>.sessions (till, opened) VALUES (1, 'morning'), (2, 'noon')",
            "INSERT INTO <<owner>>.events VALUES (1, 'latte art night')"]
    relations += [["table", "<owner>.sessions", "<<owner>>.sessions"],
                  ["table", "<owner>.events", "<<owner>>.events"]]
  if "reporting" in others:
    sql += [f"GRANT USAGE ON SCHEMA {b} TO <<reporting>>",
            f"GRANT SELECT ON {b}.payments, public.loyalty_cards TO <<reporting>>",
            f"ALTER DEFAULT PRIVILEGES IN SCHEMA {b} GRANT SELECT ON TABLES TO <<reporting>>"]
    if functions:
      sql.append("GRANT EXECUTE ON FUNCTION public.add_points(text, int) TO <<reporting>>")
  if "auditor" in others:
    sql += ["GRANT CONNECT ON DATABASE <<database>> TO <<auditor>>",
            f"GRANT USAGE ON SCHEMA {b} TO <<auditor>>",
            f"GRANT SELECT ON {b}.payments TO <<auditor>> WITH GRANT OPTION"]
  return {"sql": sql, "relations": relations, "functions": functions,
          "schemas": ["public", billing] + (["<owner>"] if own_schema else [])}


def generate(rng: random.Random, variant: int) -> dict[str, Any]:
  names = _names(rng, variant)
  customers = list(dict.fromkeys([f"{rng.choice(FIRST_NAMES)}_{rng.randrange(100, 999)}"
                                   for _ in range(1 + rng.randrange(variant + 1))] + ["o'brien"]))
  clock = Clock(rng)
  script: list[dict[str, Any]] = []
  for customer in customers:
    for number in range(rng.randrange(1, 3)):
      session = {"app": APP, "user": customer, "id": f"visit-{number}"}
      script.append({"op": "create", **session, "state": {
          "table": rng.randrange(1, 20), "user:dietary_preferences": [rng.choice(
              ("vegan", "nut allergy", "oat milk"))]}})
      for event in turn_events(rng, clock, agent=APP, mark=lambda: secret(rng),
                               user_delta={"user:usual": rng.choice(("flat white", "chai"))},
                               tool_delta={"app:menu_version": rng.randrange(1, 5),
                                           "order": {"drink": secret(rng)}}):
        script.append({"op": "append", **session, "event": event})
  return {"variant": variant, "names": names, "customers": customers, "script": script,
          "visit": [customers[0], "visit-0"], "newcomer": f"kai_{rng.randrange(100, 999)}",
          "probe_seed": rng.getrandbits(32),
          "cafe": _cafe(rng, variant, names["others"], customers)}


def _fill(sql: str, names: dict[str, str]) -> str:
  for label, name in names.items():
    sql = sql.replace(f"<<{label}>>", ident(name))
  return sql


async def build(spec: dict[str, Any], folder: Path,  # noqa: ARG001
                resources: Resources) -> dict[str, Any]:
  """A plan: roles are server-wide, so ``duplicate`` builds each copy with its own. The first
  copy's ADK rows, written by ADK, are kept here (in the judge) for the next copies."""
  if not resources.postgres_url:
    raise ValueError("grant_runtime_role needs a PostgreSQL server (Resources.postgres_url)")
  token = secrets.token_hex(8)
  _WORLDS[token] = {"rows": None}
  return {"world": token}


async def _adk_tables(spec: dict[str, Any], owner_url: str, kept: dict[str, Any]) -> None:
  """ADK's tables, made by the owner with ``prepare_tables()``, and the customers' sessions:
  written by ADK the first time, then copied row for row (``kept["rows"]``)."""
  from google.adk.sessions.database_session_service import DatabaseSessionService

  service = DatabaseSessionService(owner_url)
  try:
    await service.prepare_tables()
    if kept["rows"] is None:
      await play(service, spec["script"])
  finally:
    await service.close()
  connection = await connect(owner_url)
  try:
    if kept["rows"] is None:  # what the database stamped itself (now()) is the same everywhere
      await connection.execute(
          f"UPDATE public.sessions SET create_time = '{STAMP}', update_time = '{STAMP}';"
          f"UPDATE public.app_states SET update_time = '{STAMP}';"
          f"UPDATE public.user_states SET update_time = '{STAMP}'")
      kept["rows"] = {t: await connection.fetch(f"SELECT * FROM {t}") for t in ADK_TABLES}
      return
    await connection.execute(f"DELETE FROM {METADATA}")
    for table in ADK_TABLES:  # parents first
      rows = kept["rows"][table]
      if rows:
        await connection.copy_records_to_table(table.split(".")[1], schema_name="public",
                                               records=rows, columns=list(rows[0].keys()))
  finally:
    await connection.close()


async def duplicate(spec: dict[str, Any], template: Path,  # noqa: ARG001
                    inputs: dict[str, Any], folder: Path, resources: Resources,
                    copy: int) -> dict[str, Any]:  # noqa: ARG001
  """One copy of the world: its roles (names of its own), its database, ADK's tables, the
  hardening as in the lesson, and the cafe's other data."""
  admin_url = await role_admin_url(resources.postgres_url)
  tag = secrets.token_hex(TAG // 2)
  shapes = {"database": spec["names"]["database"], "archive": spec["names"]["archive"],
            "owner": spec["names"]["owner"], **spec["names"]["others"],
            "runtime": spec["names"]["runtime"]}  # roles in this order: look-alikes first
  names = {label: prefix + tag + suffix for label, (prefix, suffix) in shapes.items()}
  passwords = {label: secrets.token_urlsafe(18) for label in names}
  token = secrets.token_hex(8)
  world: dict[str, Any] = {"admin": admin_url, "names": names, "role_oids": [],
                           "database_oid": None, "archive_oid": None,
                           "password": passwords["runtime"]}
  _WORLDS[token] = world
  owner = ident(names["owner"])
  try:
    admin = await connect(admin_url)
    try:
      for label, name in names.items():
        if label not in DATABASES:
          login = label in ("owner", "runtime", "look-alike", "auditor")
          await admin.execute(f"CREATE ROLE {ident(name)} {'LOGIN' if login else 'NOLOGIN'} "
                              f"PASSWORD {literal(passwords[label])}")
          world["role_oids"].append(await admin.fetchval(
              "SELECT oid::int FROM pg_roles WHERE rolname = $1", name))
      if not await admin.fetchval("SELECT rolsuper FROM pg_roles WHERE rolname = current_user"):
        await admin.execute(f"GRANT {owner} TO CURRENT_USER")  # to give, read and drop it
      await admin.execute(f"CREATE DATABASE {ident(names['database'])} OWNER {owner}")
      await admin.execute(f"CREATE DATABASE {ident(names['archive'])} OWNER {owner}")
      for label in DATABASES:
        world[f"{label}_oid"] = await admin.fetchval(
            "SELECT oid::int FROM pg_database WHERE datname = $1", names[label])
    finally:
      await admin.close()
    inside = await connect(url_for(admin_url, names["database"]))
    try:
      if int(await inside.fetchval("SHOW server_version_num")) < 150000:
        await inside.execute(f"ALTER SCHEMA public OWNER TO {owner}")  # then the superuser's
    finally:
      await inside.close()
    owner_url = url_for(admin_url, names["database"], names["owner"], passwords["owner"])
    await _adk_tables(spec, owner_url, _WORLDS[inputs["world"]])
    connection = await connect(owner_url)
    try:  # hardened as in the lesson, by the owner; then the cafe's other data
      async with connection.transaction():
        for sql in [f"REVOKE ALL ON DATABASE {ident(names['database'])} FROM PUBLIC",
                    "REVOKE ALL ON SCHEMA public FROM PUBLIC", *spec["cafe"]["sql"]]:
          await connection.execute(_fill(sql, names))
    finally:
      await connection.close()
  except BaseException:
    await teardown(spec, {"world": token}, resources)
    raise
  return {"owner_url": owner_url, "database": names["database"], "runtime": names["runtime"],
          "world": token}


async def teardown(spec: dict[str, Any], inputs: dict[str, Any],  # noqa: ARG001
                   resources: Resources) -> None:  # noqa: ARG001
  """Drop the copy's database and roles (found by oid, whatever the run did to them)."""
  world = _WORLDS.pop(str(inputs.get("world")), None)
  if world is None or "admin" not in world:  # gone already, or the plan's kept rows
    return
  admin = await connect(world["admin"])
  try:
    for name in await admin.fetch("SELECT datname FROM pg_database WHERE oid = ANY($1::oid[])",
                                  [world.get(f"{label}_oid") or 0 for label in DATABASES]):
      await admin.execute(f"DROP DATABASE IF EXISTS {ident(name[0])} WITH (FORCE)")
    for row in await admin.fetch("SELECT rolname FROM pg_roles WHERE oid = ANY($1::oid[])",
                                 world["role_oids"]):
      for sql in (f"DROP OWNED BY {ident(row['rolname'])}",
                  f"DROP ROLE IF EXISTS {ident(row['rolname'])}"):
        try:
          await admin.execute(sql)
        except Exception:  # noqa: BLE001 - CREATEROLE may not DROP OWNED; never fatal
          pass
  finally:
    await admin.close()


# --- act -----------------------------------------------------------------------------------------

async def act(fn: Callable, world: ActWorld) -> None:
  """Call ``fn(owner_url, database, runtime)`` twice (a deployment re-runs its set-up)."""
  inputs = world.inputs
  for _ in range(2):
    await world.call(fn, inputs["owner_url"], inputs["database"], inputs["runtime"])
  world.snapshot()


# --- observe -------------------------------------------------------------------------------------

async def observe(spec: dict[str, Any], folder: Path,  # noqa: ARG001
                  inputs: dict[str, Any], view: View) -> dict:
  """The database as the run left it, read by the judge from the server (the folder holds
  nothing): the catalogue, the rows, then the probes. Once: the engine's second look at a
  run, without a snapshot, would only repeat it (and the probes it cleaned up after)."""
  if view.kind != "pristine" and view.snapshot is None:
    return {}
  world = _WORLDS[str(inputs["world"])]
  names = world["names"]
  labels = Labels({k: v for k, v in names.items() if k != "database"}, names["database"])
  try:
    db = await connect(url_for(world["admin"], names["database"]), search_path="pg_catalog",
                       **TIMEOUTS)
  except Exception as error:  # noqa: BLE001 - the owner may drop its own database
    return {("database", "missing"): labels.hide(pg_message(error))}
  try:
    await labels.load(db)
    found = await read_catalogue(db, labels, world["role_oids"], world["database_oid"],
                                 {"the owner's other database": world["archive_oid"]})
    try:  # the data as its owner sees it
      await db.execute(f"SET ROLE {ident(names['owner'])}; SET row_security = off")
      found.update(await read_rows(db, labels))
    except Exception as error:  # noqa: BLE001
      found[("rows", "unreadable")] = labels.hide(pg_message(error))
    found.update(await _probe(spec, world, labels))
    for table in ADK_TABLES[3::-1]:  # what the probes wrote, as the owner
      try:
        await db.execute(f"DELETE FROM {table} WHERE app_name = $1", PROBE_APP)
      except Exception:  # noqa: BLE001 - a table the run dropped, or a right it revoked
        pass
  finally:
    await db.close()
  return found


def _attempts(spec: dict[str, Any], names: dict[str, str]) -> list[tuple[str, str, str]]:
  """(group, what, SQL) the runtime role must see refused, each tried in a transaction that is
  rolled back."""
  attempts = [("ddl", f"CREATE TABLE in schema {s}",
               f"CREATE TABLE {_fill('<<owner>>', names) if s == '<owner>' else ident(s)}"
               ".adkcourse_probe (id int)") for s in spec["cafe"]["schemas"]]
  attempts += [
      ("ddl", "CREATE SCHEMA", "CREATE SCHEMA adkcourse_probe"),
      ("ddl", "CREATE TEMP TABLE", "CREATE TEMP TABLE adkcourse_probe (id int)"),
      ("ddl", "CREATE FUNCTION in schema public",
       "CREATE FUNCTION public.adkcourse_probe() RETURNS int LANGUAGE sql AS 'SELECT 1'"),
      ("ddl", "ALTER TABLE public.sessions",
       "ALTER TABLE public.sessions ADD COLUMN adkcourse_probe int"),
      ("ddl", "CREATE INDEX on public.events", "CREATE INDEX ON public.events (invocation_id)"),
      ("ddl", "CREATE TRIGGER on public.events",
       "CREATE TRIGGER adkcourse_probe BEFORE UPDATE ON public.events FOR EACH ROW "
       "EXECUTE FUNCTION pg_catalog.suppress_redundant_updates_trigger()"),
      ("ddl", "TRUNCATE public.events", "TRUNCATE public.events"),
      ("ddl", "DROP TABLE public.user_states", "DROP TABLE public.user_states"),
      ("ddl", "COMMENT ON TABLE public.app_states", "COMMENT ON TABLE public.app_states IS 'x'"),
      ("role", "SET ROLE to the owner", f"SET ROLE {ident(names['owner'])}"),
      ("data", f"UPDATE {METADATA}", f"UPDATE {METADATA} SET value = value WHERE false")]
  for kind, shown, name in spec["cafe"]["relations"]:
    name = _fill(name, names)
    if kind == "sequence":
      attempts.append(("data", f"nextval of {shown}", f"SELECT nextval({literal(name)})"))
      continue
    attempts.append(("data", f"SELECT from {shown}", f"SELECT 1 FROM {name} LIMIT 1"))
    if kind == "table":
      attempts.append(("data", f"DELETE FROM {shown}", f"DELETE FROM {name} WHERE false"))
  attempts += [("data", f"EXECUTE {shown}", sql) for shown, sql in spec["cafe"]["functions"]]
  return attempts


async def _probe(spec: dict[str, Any], world: dict[str, Any], labels: Labels) -> dict:
  """What the runtime role can do, logged in with its own password: each attempt is
  "refused" (insufficient privilege), "allowed", or failed for another reason."""
  import asyncpg

  names = world["names"]
  url = url_for(world["admin"], names["database"], names["runtime"], world["password"])
  attempts = _attempts(spec, names)
  found: dict = {}
  try:
    connection = await connect(url, **TIMEOUTS)
  except Exception as error:  # noqa: BLE001 - cannot log in: nothing can be done
    found[("probe", "connect")] = f"refused: {labels.hide(pg_message(error))}"
    found.update({("probe", group, what): "refused" for group, what, _ in attempts})
    found.update({("probe", "adk", step): "not reached: no login" for step in ADK_STEPS})
    return found
  found[("probe", "connect")] = "ok"
  try:
    for group, what, sql in attempts:
      try:  # one round trip: whatever it did is rolled back
        await connection.execute(f"BEGIN; {sql}; ROLLBACK")
        found[("probe", group, what)] = "allowed"
      except asyncpg.PostgresError as error:
        await connection.execute("ROLLBACK")
        found[("probe", group, what)] = ("refused" if error.sqlstate == "42501" else
                                         f"failed: {labels.hide(pg_message(error))}")
  finally:
    await connection.close()
  adk_logger = logging.getLogger("google_adk")  # ADK logs what PostgreSQL refuses: expected
  level = adk_logger.level
  adk_logger.setLevel(logging.CRITICAL)
  try:
    found.update({("probe", "adk", step): labels.hide(result)
                  for step, result in (await _adk_as_runtime(url, spec)).items()})
  finally:
    adk_logger.setLevel(level)
  return found


async def _adk_as_runtime(url: str, spec: dict[str, Any]) -> dict[str, str]:
  """ADK's operations as the runtime role: "ok" for each step done, the first failure, then
  "not reached"."""
  from google.adk.sessions.database_session_service import DatabaseSessionService

  rng = random.Random(spec["probe_seed"])
  results: dict[str, str] = {}
  service = DatabaseSessionService(url, connect_args={"server_settings": TIMEOUTS,
                                                      "timeout": 20})

  async def step(name: str, run: Callable, check: Callable[[Any], Any]) -> Any:
    value = await run()
    verdict = check(value)
    results[name] = "ok" if verdict is True else f"wrong: {verdict}"
    if verdict is not True:
      raise LookupError(verdict)
    return value

  customer, visit = spec["visit"]
  newcomer = spec["newcomer"]
  try:
    await step(ADK_STEPS[0], lambda: service.get_session(
        app_name=APP, user_id=customer, session_id=visit),
        lambda s: s is not None and bool(s.events) or "the stored session is not found whole")
    session = await step(ADK_STEPS[1], lambda: service.create_session(
        app_name=PROBE_APP, user_id=newcomer,
        state={"table": 7, "user:dietary_preferences": ["nut allergy"], "app:menu": 3}),
        lambda s: True)

    async def append() -> None:
      for event in conversation_turn(rng, Clock(rng), agent=APP, mark=lambda: secret(rng),
                                     user_delta={"user:dietary_preferences": ["vegan"]},
                                     tool_delta={"app:menu": 4, "order": {"drink": "chai"}}):
        await service.append_event(session, event)

    await step(ADK_STEPS[2], append, lambda _: True)
    await step(ADK_STEPS[3], lambda: service.get_session(
        app_name=PROBE_APP, user_id=newcomer, session_id=session.id),
        lambda s: s is not None and len(s.events) == 4 and s.state.get("order") == {
            "drink": "chai"} or "the session does not come back as written")
    await step(ADK_STEPS[4], lambda: service.list_sessions(app_name=PROBE_APP, user_id=newcomer),
               lambda listed: [s.id for s in listed.sessions] == [session.id]
               or "the session is not listed")
    await step(ADK_STEPS[5], lambda: service.get_user_state(app_name=PROBE_APP, user_id=newcomer),
               lambda state: state == {"dietary_preferences": ["vegan"]}
               or "the user state is not what was written")
    await step(ADK_STEPS[6], lambda: service.delete_session(
        app_name=PROBE_APP, user_id=newcomer, session_id=session.id), lambda _: True)
  except LookupError:
    pass
  except Exception as error:  # noqa: BLE001 - what PostgreSQL refused is the point
    results[next(s for s in ADK_STEPS if s not in results)] = f"failed: {pg_message(error)}"
  finally:
    try:
      await service.close()
    except Exception:  # noqa: BLE001
      pass
  return {s: results.get(s, "not reached") for s in ADK_STEPS}


# --- judging -------------------------------------------------------------------------------------

def _needed(key: tuple) -> bool:
  """An ACL entry of the runtime role that ADK's operations need (without grant option)."""
  kind, name, privilege = key[1], key[2], key[5]
  return ((kind, name, privilege) == ("database", "", "CONNECT")
          or (kind, name, privilege) == ("schema", "public", "USAGE")
          or (kind == "table" and name in ADK_DATA and privilege in DML)
          or (kind, name, privilege) == ("table", METADATA, "SELECT"))


def _grantee(key: tuple) -> Any:
  """Who holds a privilege key's right (None: not a privilege key)."""
  place = {"privilege": 3, "default privilege": 4}.get(key[0])
  return key[place] if place else None


def classify(spec: dict[str, Any], key: tuple) -> Any:  # noqa: ARG001
  head = key[0]
  if head == "probe":
    return {"adk": RUNS, "connect": RUNS, "ddl": DDL, "role": ROLE}.get(key[1], ONLY)
  if head in ("privilege", "default privilege"):
    grantee, privilege = _grantee(key), key[5 if head == "privilege" else 6]
    if grantee == "PUBLIC":
      return PUBLIC
    if grantee != "runtime":
      return ONLY
    if head == "privilege" and len(key) == 6 and _needed(key):
      return RUNS
    if privilege in SCHEMA_POWERS:
      return DDL if head == "privilege" and key[1] in ("database", "schema") else (DDL, ONLY)
    return ONLY
  if head in ("role", "member") and key[1] == "runtime":
    return ROLE
  if head == "database" and key[1] == "missing":
    return tuple(c.name for c in CHECKS)
  return ONLY  # the rest of the database: objects, owners, rows, other roles


def _a_data_table_right(key: tuple, spec: dict, pristine: dict) -> bool:  # noqa: ARG001
  """A right on ADK's tables the contract allows, whether held or not: DML on the data tables,
  SELECT on the metadata (table-level or on its columns)."""
  table = key[2] if key[1] == "table" else key[2].rsplit(".", 1)[0]
  return table in ADK_DATA and key[5] in DML or (table, key[5]) == (METADATA, "SELECT")


def properties(spec: dict[str, Any], observed: dict, pristine: dict) -> list[tuple[str, str]]:
  """What the contract says of every outcome, the reference's included."""
  problems = []
  expected = {"adk": "ok", "ddl": "refused", "role": "refused", "data": "refused"}
  for key, value in observed.items():
    if key[0] == "probe" and key[1] in expected and value != expected[key[1]]:
      problems.append((classify(spec, key), f"{describe(spec, key)}: {value}"))
    grantee = _grantee(key)
    if grantee == "runtime" and not (key[0] == "privilege" and len(key) == 6 and (
        _needed(key) or key[1] == "column" and _a_data_table_right(key, spec, pristine))):
      problems.append((ONLY, f"beyond what ADK needs: {describe(spec, key)}"))
    if grantee == "PUBLIC" and value == "granted" and key not in pristine:
      problems.append((PUBLIC, f"a right PUBLIC did not have: {describe(spec, key)}"))
  return problems[:12]


WHO = {"PUBLIC": "PUBLIC (every role)", "runtime": "the runtime role", "owner": "the owner",
       "admin": "the grader's admin"}


def _who(label: str) -> str:
  return WHO.get(label, label if label.startswith("role ") else f"the role {label}")


def describe(spec: dict[str, Any], key: tuple) -> str:  # noqa: ARG001
  """A key in words: "SELECT on the table public.loyalty_cards for the runtime role"."""
  head, rest = key[0], key[1:]
  if head == "privilege":
    kind, name, grantee, grantor, privilege = rest[:5]
    what = (name or "the database") if kind == "database" else f"the {kind} {name}"
    option = " WITH GRANT OPTION" if len(rest) > 5 else ""
    return f"{privilege}{option} on {what} for {_who(grantee)} (granted by {_who(grantor)})"
  if head == "default privilege":
    role, schema, objects, grantee, grantor, privilege = rest[:6]
    where = "any schema" if schema == "*" else f"schema {schema}"
    return (f"{_who(role)}'s default privileges on new {objects} in {where}: {privilege}"
            f"{' WITH GRANT OPTION' if len(rest) > 6 else ''} for {_who(grantee)}")
  if head == "probe":
    if rest[0] == "adk":
      return f"ADK's {rest[1]}, logged in as the runtime role"
    return "logging in as the runtime role" if rest[0] == "connect" else (
        f"as the runtime role, {rest[1]}")
  if head == "object":
    return f"the {rest[0]} {rest[1]}" + (f" ({rest[2]})" if len(rest) > 2 else "")
  if head == "rows":
    return f"a row of the table {rest[0]}" if len(rest) > 1 else "the tables' rows"
  if head == "role":
    return f"{_who(rest[0])}" + (f": {rest[1][3:].upper()}" if len(rest) > 1 else "")
  if head == "member":
    return f"{_who(rest[0])} as a member of {_who(rest[1])} (granted by {_who(rest[2])})"
  if head == "setting":
    return f"the settings of {rest[1]} in {rest[0]}"
  if head == "sequence":
    return f"the state of the sequence {rest[0]}"
  if head == "comment":
    return f"the comment on {rest[0]}"
  return "the database's " + " ".join(str(part) for part in rest)


def label(spec: dict[str, Any]) -> str:
  return VARIANTS[spec["variant"]]


CHECKS = (
    Check(RUNS, 3,
          "The runtime role itself holds CONNECT on the database, USAGE on schema public and "
          "the rights ADK uses, and logged in as it, ADK's DatabaseSessionService reads the "
          "sessions already stored, creates a session, appends events with user: and app: "
          "deltas, gets, lists and deletes it.",
          hint="The runtime role needs CONNECT on the database and USAGE on schema public "
               "(PUBLIC has neither here), and the rights ADK uses on each of its tables; every "
               "name is an identifier to quote (a double quote inside doubled)",
          success="ADK's operations all succeed as the runtime role"),
    Check(DDL, 2,
          "The runtime role cannot create, alter, truncate or drop anything, not even a "
          "temporary table: no CREATE or TEMPORARY on the database, no CREATE on a schema, no "
          "TRUNCATE, TRIGGER or MAINTAIN on a table.",
          hint="ALL on the database or a schema includes CREATE (and TEMPORARY); ALL on a table "
               "includes TRUNCATE and TRIGGER (and MAINTAIN since PostgreSQL 17)",
          success="every DDL attempt is refused", needs_action=True),
    Check(ONLY, 2,
          "The runtime role holds at most SELECT, INSERT, UPDATE and DELETE on public.sessions, "
          "events, app_states and user_states and only SELECT on adk_internal_metadata, none "
          "with grant option, no default privileges, nothing on the cafe's other data; and "
          "everything else in the database stays as it was: its objects, owners, rows and "
          "the other roles' rights.",
          hint="ON ALL TABLES IN SCHEMA and ALTER DEFAULT PRIVILEGES reach the cafe's other (and "
               "future) tables; a name without its schema is looked up on the owner's "
               "search_path, where a schema named after the owner comes first; grants are "
               "added to the runtime role, nothing else is changed or dropped",
          success="rights on ADK's tables only, metadata read-only, the rest as it was",
          needs_action=True),
    Check(ROLE, 1,
          "The runtime role keeps its attributes (it logs in, and is no superuser, cannot create "
          "databases or roles, replicate or bypass row security) and is a member of no role, "
          "the owner's included.",
          hint="A member of the owner can do all the owner can, DDL included: grant the rights "
               "to the runtime role itself",
          success="no role attribute, no membership", needs_action=True),
    Check(PUBLIC, 1,
          "PUBLIC (every role, present and future) gains no right in the database, and keeps "
          "those it had.",
          hint="Grant to the runtime role by name, never to PUBLIC; a new function can be "
               "executed by PUBLIC unless that is revoked",
          success="PUBLIC's rights are unchanged", needs_action=True),
    Check(AGAIN, 1,
          "Calling the function a second time on the same database raises nothing (a deployment "
          "re-runs its set-up); the rights are judged after both calls.",
          hint="Whatever the first call created exists when the second one runs",
          success="a second call raises nothing", needs_action=True),
)

EXERCISE = Exercise(
    name="grant_runtime_role",
    lesson="04_production_postgres",
    signature="async def grant_runtime_role(owner_url: str, database: str, runtime: str) -> None",
    is_async=True,
    checks=CHECKS,
    generate=generate,
    build=build,
    duplicate=duplicate,
    act=act,
    observe=observe,
    classify=classify,
    leaves_open=(
        Open(("returned", "*"), "the contract ignores what the function returns"),
        Open(("privilege", "table", "public.*", "runtime", "*", "*"),
             "at most SELECT, INSERT, UPDATE and DELETE on ADK's four data tables: fewer is "
             "right as long as ADK's operations work (the probes judge that); SELECT on the "
             "metadata likewise, when its columns are granted instead",
             when=_a_data_table_right),
        Open(("privilege", "column", "public.*", "runtime", "*", "*"),
             "rights on some columns of ADK's tables are fewer rights than on the table (SELECT "
             "on the metadata's columns is SELECT on it)",
             when=_a_data_table_right),
    ),
    properties=properties,
    worlds=len(VARIANTS),
    calls=lambda spec: 2,
    needs_postgres=True,
    teardown=teardown,
    describe_key=describe,
    label=label,
    outcome_check=AGAIN,
)
