"""Lets PostgreSQL quote the names: each statement built server-side with format('%I'), one table at a time."""

import asyncpg

RIGHTS = {"sessions": "SELECT, INSERT, UPDATE, DELETE", "events": "SELECT, INSERT, UPDATE, DELETE",
          "app_states": "SELECT, INSERT, UPDATE, DELETE", "user_states": "SELECT, INSERT, UPDATE, DELETE",
          "adk_internal_metadata": "SELECT"}


async def grant_runtime_role(owner_url, database, runtime):
  conn = await asyncpg.connect(owner_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  try:
    statements = [await conn.fetchval("SELECT format('GRANT CONNECT ON DATABASE %I TO %I', $1::text, $2::text)",
                                       database, runtime),
                  await conn.fetchval("SELECT format('GRANT USAGE ON SCHEMA public TO %I', $1::text)", runtime)]
    for table, rights in RIGHTS.items():
      statements.append(await conn.fetchval(
          "SELECT format('GRANT ' || $1 || ' ON TABLE public.%I TO %I', $2::text, $3::text)",
          rights, table, runtime))
    for statement in statements:
      await conn.execute(statement)
  finally:
    await conn.close()
