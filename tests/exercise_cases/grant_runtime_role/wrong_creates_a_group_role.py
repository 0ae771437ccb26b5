"""Creates a read-write group role to hold the grants: the owner may not create roles (nor should it), so nothing is granted."""

import asyncpg

LOSES = ('runtime_runs_adk', 'second_call_harmless')


def quoted(name):
  return '"' + name.replace('"', '""') + '"'


async def grant_runtime_role(owner_url, database, runtime):
  conn = await asyncpg.connect(owner_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  role = quoted(runtime)
  try:
    group = quoted(runtime + "_rw")
    await conn.execute(f"CREATE ROLE {group} NOLOGIN")
    await conn.execute(f"GRANT CONNECT ON DATABASE {quoted(database)} TO {group}")
    await conn.execute(f"GRANT USAGE ON SCHEMA public TO {group}")
    await conn.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON sessions, events, app_states, "
                        f"user_states TO {group}")
    await conn.execute(f"GRANT SELECT ON adk_internal_metadata TO {group}")
    await conn.execute(f"GRANT {group} TO {role}")
  finally:
    await conn.close()
