"""Grants CONNECT and TEMPORARY on the database (temporary tables seem harmless): the runtime role can create tables."""

import asyncpg


def quoted(name):
  return '"' + name.replace('"', '""') + '"'


def dsn(owner_url):
  return owner_url.replace("postgresql+asyncpg://", "postgresql://", 1)


RIGHT = ("GRANT SELECT, INSERT, UPDATE, DELETE ON public.sessions, public.events, "
         "public.app_states, public.user_states TO {role}",
         "GRANT SELECT ON public.adk_internal_metadata TO {role}")

LOSES = ('runtime_cannot_change_the_schema',)


async def grant_runtime_role(owner_url, database, runtime):
  conn = await asyncpg.connect(dsn(owner_url))
  role = quoted(runtime)
  try:
    await conn.execute(f"GRANT CONNECT, TEMPORARY ON DATABASE {quoted(database)} TO {role}")
    await conn.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
    for sql in RIGHT:
      await conn.execute(sql.format(role=role))
  finally:
    await conn.close()
