"""Grants only what ADK 2.13's code runs on each table (events are never updated, states never deleted)."""

import asyncpg

NEEDS = {"sessions": "SELECT, INSERT, UPDATE, DELETE",   # update_time, FOR UPDATE, delete_session
         "events": "SELECT, INSERT, DELETE",              # appended, read, deleted with the session
         "app_states": "SELECT, INSERT, UPDATE",          # FOR UPDATE and merged, never deleted
         "user_states": "SELECT, INSERT, UPDATE",
         "adk_internal_metadata": "SELECT"}


async def grant_runtime_role(owner_url, database, runtime):
  conn = await asyncpg.connect(owner_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  try:
    role = await conn.fetchval("SELECT quote_ident($1)", runtime)
    await conn.execute(f"GRANT CONNECT ON DATABASE {await conn.fetchval('SELECT quote_ident($1)', database)} "
                        f"TO {role}")
    await conn.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
    for table, rights in NEEDS.items():
      await conn.execute(f"GRANT {rights} ON public.{table} TO {role}")
  finally:
    await conn.close()
