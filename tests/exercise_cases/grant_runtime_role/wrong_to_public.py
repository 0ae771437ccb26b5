"""Grants the table rights to PUBLIC (every role, present and future) instead of the runtime role."""

import asyncpg

LOSES = ('nothing_to_public',)


def quoted(name):
  return '"' + name.replace('"', '""') + '"'


async def grant_runtime_role(owner_url, database, runtime):
  conn = await asyncpg.connect(owner_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  role = quoted(runtime)
  try:
    await conn.execute(f"GRANT CONNECT ON DATABASE {quoted(database)} TO {role}")
    await conn.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
    await conn.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON sessions, events, app_states, "
                        "user_states TO PUBLIC")
    await conn.execute("GRANT SELECT ON adk_internal_metadata TO PUBLIC")
  finally:
    await conn.close()
