"""Converges: revokes whatever the runtime role held in public first, then grants the exact set (schema-qualified), in one transaction."""

import asyncpg


def ident(name):
  return '"' + name.replace('"', '""') + '"'


async def grant_runtime_role(owner_url, database, runtime):
  conn = await asyncpg.connect(owner_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  role, db = ident(runtime), ident(database)
  try:
    async with conn.transaction():
      await conn.execute(f"REVOKE ALL ON DATABASE {db} FROM {role}")
      await conn.execute(f"REVOKE ALL ON SCHEMA public FROM {role}")
      await conn.execute(f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {role}")
      await conn.execute(f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM {role}")
      await conn.execute(f"GRANT CONNECT ON DATABASE {db} TO {role}")
      await conn.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
      await conn.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.sessions, public.events, "
                          f"public.app_states, public.user_states TO {role}")
      await conn.execute(f"GRANT SELECT ON TABLE public.adk_internal_metadata TO {role}")
  finally:
    await conn.close()
