"""Converges: revokes whatever the runtime role held in the database first, then grants the exact set, in one transaction."""

import asyncpg


def ident(name):
  return '"' + name.replace('"', '""') + '"'


async def grant_runtime_role(admin_url, database, owner, runtime):
  admin = await asyncpg.connect(admin_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  role, db = ident(runtime), ident(database)
  try:
    async with admin.transaction():
      await admin.execute(f"REVOKE ALL ON DATABASE {db} FROM {role}")
      await admin.execute(f"REVOKE ALL ON SCHEMA public FROM {role}")
      await admin.execute(f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {role}")
      await admin.execute(f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM {role}")
      await admin.execute(f"GRANT CONNECT ON DATABASE {db} TO {role}")
      await admin.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
      await admin.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE sessions, events, app_states, "
                          f"user_states TO {role}")
      await admin.execute(f"GRANT SELECT ON TABLE adk_internal_metadata TO {role}")
  finally:
    await admin.close()
