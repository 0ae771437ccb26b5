"""Pastes names into the SQL unquoted: works for cafe_app_..., a syntax error for capitals, hyphens and spaces."""

import asyncpg

LOSES = ('runtime_runs_adk', 'second_call_harmless')


async def grant_runtime_role(owner_url, database, runtime):
  conn = await asyncpg.connect(owner_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  try:
    await conn.execute(f"GRANT CONNECT ON DATABASE {database} TO {runtime}")
    await conn.execute(f"GRANT USAGE ON SCHEMA public TO {runtime}")
    await conn.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON sessions, events, app_states, "
                        f"user_states TO {runtime}")
    await conn.execute(f"GRANT SELECT ON adk_internal_metadata TO {runtime}")
  finally:
    await conn.close()
