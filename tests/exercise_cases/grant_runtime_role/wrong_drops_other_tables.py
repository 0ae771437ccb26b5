"""Tidies up first: drops every table in public that is not one of ADK's (the cafe's loyalty data goes with it), then grants."""

import asyncpg


def quoted(name):
  return '"' + name.replace('"', '""') + '"'


def dsn(owner_url):
  return owner_url.replace("postgresql+asyncpg://", "postgresql://", 1)


RIGHT = ("GRANT SELECT, INSERT, UPDATE, DELETE ON public.sessions, public.events, "
         "public.app_states, public.user_states TO {role}",
         "GRANT SELECT ON public.adk_internal_metadata TO {role}")

LOSES = ('only_adk_tables',)


async def grant_runtime_role(owner_url, database, runtime):
  conn = await asyncpg.connect(dsn(owner_url))
  role = quoted(runtime)
  try:
    keep = ("sessions", "events", "app_states", "user_states", "adk_internal_metadata")
    for row in await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'public'"):
      if row["tablename"] not in keep:
        await conn.execute(f"DROP TABLE IF EXISTS public.{quoted(row['tablename'])} CASCADE")
    await conn.execute(f"GRANT CONNECT ON DATABASE {quoted(database)} TO {role}")
    await conn.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
    for sql in RIGHT:
      await conn.execute(sql.format(role=role))
  finally:
    await conn.close()
