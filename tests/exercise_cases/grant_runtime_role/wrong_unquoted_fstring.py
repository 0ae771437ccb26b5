"""Pastes names into the SQL unquoted: works for cafe_app_..., a syntax error for capitals, hyphens and spaces."""

import asyncpg

LOSES = ('runtime_runs_adk', 'second_call_harmless')


def quoted(name):
  return '"' + name.replace('"', '""') + '"'


async def grant_runtime_role(admin_url, database, owner, runtime):
  admin = await asyncpg.connect(admin_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  role = quoted(runtime)
  try:
    await admin.execute(f"GRANT CONNECT ON DATABASE {database} TO {runtime}")
    await admin.execute(f"GRANT USAGE ON SCHEMA public TO {runtime}")
    await admin.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON sessions, events, app_states, "
                        f"user_states TO {runtime}")
    await admin.execute(f"GRANT SELECT ON adk_internal_metadata TO {runtime}")
  finally:
    await admin.close()
