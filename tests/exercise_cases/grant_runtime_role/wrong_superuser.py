"""Makes the runtime role a superuser: ADK works, and so does DROP TABLE."""

import asyncpg

LOSES = ('no_role_powers', 'runtime_cannot_change_the_schema', 'only_adk_tables')


def quoted(name):
  return '"' + name.replace('"', '""') + '"'


async def grant_runtime_role(admin_url, database, owner, runtime):
  admin = await asyncpg.connect(admin_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  role = quoted(runtime)
  try:
    await admin.execute(f"ALTER ROLE {role} SUPERUSER")
  finally:
    await admin.close()
