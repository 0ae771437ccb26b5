"""Wraps names in double quotes without doubling a double quote inside: breaks on the awkward runtime name."""

import asyncpg

LOSES = ('runtime_runs_adk',)


async def grant_runtime_role(owner_url, database, runtime):
  conn = await asyncpg.connect(owner_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  role = f'"{runtime}"'   # no doubling of a " inside
  try:
    await conn.execute(f'GRANT CONNECT ON DATABASE "{database}" TO {role}')
    await conn.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
    await conn.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON sessions, events, app_states, "
                        f"user_states TO {role}")
    await conn.execute(f"GRANT SELECT ON adk_internal_metadata TO {role}")
  finally:
    await conn.close()
