"""Makes the runtime role a member of the owner (its ownership, DDL included); PostgreSQL 16+ refuses, so it raises there."""

import asyncpg

LOSES = ()  # which checks depends on the server's version


def quoted(name):
  return '"' + name.replace('"', '""') + '"'


async def grant_runtime_role(owner_url, database, runtime):
  conn = await asyncpg.connect(owner_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  role = quoted(runtime)
  try:
    await conn.execute(f"GRANT CONNECT ON DATABASE {quoted(database)} TO {role}")
    await conn.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
    await conn.execute(f"GRANT CURRENT_USER TO {role}")
  finally:
    await conn.close()
