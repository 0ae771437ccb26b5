"""Grants DML ON ALL TABLES IN SCHEMA public, as the lesson did: the loyalty table and the metadata too."""

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
    await conn.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {role}")
  finally:
    await conn.close()
