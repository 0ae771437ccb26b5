"""Names ADK's tables without their schema: where the owner has a schema of its own name, first on its search_path, the grants land on its sessions and events."""

import asyncpg


def quoted(name):
  return '"' + name.replace('"', '""') + '"'


def dsn(owner_url):
  return owner_url.replace("postgresql+asyncpg://", "postgresql://", 1)


RIGHT = ("GRANT SELECT, INSERT, UPDATE, DELETE ON public.sessions, public.events, "
         "public.app_states, public.user_states TO {role}",
         "GRANT SELECT ON public.adk_internal_metadata TO {role}")

LOSES = ('runtime_runs_adk', 'only_adk_tables')


async def grant_runtime_role(owner_url, database, runtime):
  conn = await asyncpg.connect(dsn(owner_url))
  role = quoted(runtime)
  try:
    await conn.execute(f"GRANT CONNECT ON DATABASE {quoted(database)} TO {role}")
    await conn.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
    await conn.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON sessions, events, app_states, "
                       f"user_states TO {role}")
    await conn.execute(f"GRANT SELECT ON adk_internal_metadata TO {role}")
  finally:
    await conn.close()
