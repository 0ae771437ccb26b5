"""Grants SELECT only: the runtime role can read sessions but not create or append."""

import asyncpg

LOSES = ('runtime_runs_adk',)


def quoted(name):
  return '"' + name.replace('"', '""') + '"'


async def grant_runtime_role(owner_url, database, runtime):
  conn = await asyncpg.connect(owner_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  role = quoted(runtime)
  try:
    await conn.execute(f"GRANT CONNECT ON DATABASE {quoted(database)} TO {role}")
    await conn.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
    await conn.execute("GRANT SELECT ON sessions, events, app_states, user_states, "
                        f"adk_internal_metadata TO {role}")
  finally:
    await conn.close()
