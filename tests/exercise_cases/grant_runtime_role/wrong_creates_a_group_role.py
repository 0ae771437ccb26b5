"""Creates a read-write group role for the grants (forbidden) without IF NOT EXISTS: the second call fails."""

import asyncpg

LOSES = ('second_call_harmless', 'no_role_powers')


def quoted(name):
  return '"' + name.replace('"', '""') + '"'


async def grant_runtime_role(admin_url, database, owner, runtime):
  admin = await asyncpg.connect(admin_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  role = quoted(runtime)
  try:
    group = quoted(runtime + "_rw")
    await admin.execute(f"CREATE ROLE {group} NOLOGIN")
    await admin.execute(f"GRANT CONNECT ON DATABASE {quoted(database)} TO {group}")
    await admin.execute(f"GRANT USAGE ON SCHEMA public TO {group}")
    await admin.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON sessions, events, app_states, "
                        f"user_states TO {group}")
    await admin.execute(f"GRANT SELECT ON adk_internal_metadata TO {group}")
    await admin.execute(f"GRANT {group} TO {role}")
  finally:
    await admin.close()
