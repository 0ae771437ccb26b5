"""Forgets app_states and user_states: the first session with a user: key fails."""

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
    await conn.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON sessions, events TO {role}")
    await conn.execute(f"GRANT SELECT ON adk_internal_metadata TO {role}")
  finally:
    await conn.close()
