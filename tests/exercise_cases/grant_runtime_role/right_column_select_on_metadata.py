"""Grants SELECT on every column of adk_internal_metadata instead of the table: still only SELECT on it."""
import asyncpg

def q(name):
  return '"' + name.replace('"', '""') + '"'

async def grant_runtime_role(owner_url, database, runtime):
  c = await asyncpg.connect(owner_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  role = q(runtime)
  try:
    cols = [r[0] for r in await c.fetch(
        "SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' "
        "AND table_name = 'adk_internal_metadata' ORDER BY ordinal_position")]
    await c.execute(f"GRANT CONNECT ON DATABASE {q(database)} TO {role}")
    await c.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
    await c.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON public.sessions, public.events, "
                    f"public.app_states, public.user_states TO {role}")
    await c.execute(f"GRANT SELECT ({', '.join(q(x) for x in cols)}) ON public.adk_internal_metadata TO {role}")
  finally:
    await c.close()
