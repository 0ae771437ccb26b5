"""Grants UPDATE only on the columns ADK rewrites (state, update_time), and no UPDATE on events: fewer rights than the reference, ADK still works."""

import asyncpg


def quoted(name):
  return '"' + name.replace('"', '""') + '"'


async def grant_runtime_role(owner_url, database, runtime):
  conn = await asyncpg.connect(owner_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  role = quoted(runtime)
  try:
    async with conn.transaction():
      await conn.execute(f"GRANT CONNECT ON DATABASE {quoted(database)} TO {role}")
      await conn.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
      await conn.execute("GRANT SELECT, INSERT, DELETE ON public.sessions, public.events, "
                         f"public.app_states, public.user_states TO {role}")
      await conn.execute("GRANT UPDATE (state, update_time) ON public.sessions, public.app_states, "
                         f"public.user_states TO {role}")
      await conn.execute(f"GRANT SELECT ON public.adk_internal_metadata TO {role}")
  finally:
    await conn.close()
