"""Makes the runtime role a member of the owner: it inherits ownership, DDL included."""

import asyncpg

LOSES = ('no_role_powers', 'runtime_cannot_change_the_schema')


def quoted(name):
  return '"' + name.replace('"', '""') + '"'


async def grant_runtime_role(admin_url, database, owner, runtime):
  admin = await asyncpg.connect(admin_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  role = quoted(runtime)
  try:
    await admin.execute(f"GRANT CONNECT ON DATABASE {quoted(database)} TO {role}")
    await admin.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
    await admin.execute(f"GRANT {quoted(owner)} TO {role}")
  finally:
    await admin.close()
