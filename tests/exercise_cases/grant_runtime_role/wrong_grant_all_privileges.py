"""GRANT ALL PRIVILEGES on ADK's tables: TRUNCATE, REFERENCES and TRIGGER come with it."""

import asyncpg

LOSES = ('only_adk_tables', 'runtime_cannot_change_the_schema')


def quoted(name):
  return '"' + name.replace('"', '""') + '"'


async def grant_runtime_role(admin_url, database, owner, runtime):
  admin = await asyncpg.connect(admin_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  role = quoted(runtime)
  try:
    await admin.execute(f"GRANT CONNECT ON DATABASE {quoted(database)} TO {role}")
    await admin.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
    await admin.execute("GRANT ALL PRIVILEGES ON sessions, events, app_states, user_states "
                        f"TO {role}")
    await admin.execute(f"GRANT SELECT ON adk_internal_metadata TO {role}")
  finally:
    await admin.close()
