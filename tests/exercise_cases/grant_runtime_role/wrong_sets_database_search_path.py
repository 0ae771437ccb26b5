"""Pins the database's search_path to public (so bare table names resolve there): a setting of the database that was not its to change."""

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
    await conn.execute(f"ALTER DATABASE {quoted(database)} SET search_path = public")
    await conn.execute(f"GRANT CONNECT ON DATABASE {quoted(database)} TO {role}")
    await conn.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
    for sql in RIGHT:
      await conn.execute(sql.format(role=role))
  finally:
    await conn.close()
