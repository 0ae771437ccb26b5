"""Adds USAGE ON ALL SEQUENCES IN SCHEMA public out of habit: ADK has no sequence, the loyalty table has one."""

import asyncpg

LOSES = ('only_adk_tables',)


def quoted(name):
  return '"' + name.replace('"', '""') + '"'


async def grant_runtime_role(owner_url, database, runtime):
  conn = await asyncpg.connect(owner_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  role = quoted(runtime)
  try:
    await conn.execute(f"GRANT CONNECT ON DATABASE {quoted(database)} TO {role}")
    await conn.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
    await conn.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON sessions, events, app_states, "
                        f"user_states TO {role}")
    await conn.execute(f"GRANT SELECT ON adk_internal_metadata TO {role}")
    await conn.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {role}")
  finally:
    await conn.close()
