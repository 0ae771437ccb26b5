"""Quotes names with json.dumps: right for plain names, but a double quote becomes \\" and an accent \\u00e9, another name or a syntax error."""

import asyncpg


def quoted(name):
  return '"' + name.replace('"', '""') + '"'


def dsn(owner_url):
  return owner_url.replace("postgresql+asyncpg://", "postgresql://", 1)


RIGHT = ("GRANT SELECT, INSERT, UPDATE, DELETE ON public.sessions, public.events, "
         "public.app_states, public.user_states TO {role}",
         "GRANT SELECT ON public.adk_internal_metadata TO {role}")

LOSES = ('runtime_runs_adk',)


async def grant_runtime_role(owner_url, database, runtime):
  conn = await asyncpg.connect(dsn(owner_url))
  import json

  quote = json.dumps
  role = quote(runtime)
  try:
    await conn.execute(f"GRANT CONNECT ON DATABASE {quote(database)} TO {role}")
    await conn.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
    for sql in RIGHT:
      await conn.execute(sql.format(role=role))
  finally:
    await conn.close()
