"""GRANT ALL PRIVILEGES on ADK's tables: TRUNCATE, REFERENCES and TRIGGER come with it."""

import asyncpg

LOSES = ('only_adk_tables', 'runtime_cannot_change_the_schema')


def quoted(name):
  return '"' + name.replace('"', '""') + '"'


async def grant_runtime_role(owner_url, database, runtime):
  conn = await asyncpg.connect(owner_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  role = quoted(runtime)
  try:
    await conn.execute(f"GRANT CONNECT ON DATABASE {quoted(database)} TO {role}")
    await conn.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
    await conn.execute("GRANT ALL PRIVILEGES ON sessions, events, app_states, user_states "
                        f"TO {role}")
    await conn.execute(f"GRANT SELECT ON adk_internal_metadata TO {role}")
  finally:
    await conn.close()
