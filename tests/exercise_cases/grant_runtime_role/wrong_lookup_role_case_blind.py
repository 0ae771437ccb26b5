"""Looks the role up with lower(rolname) = lower($1) and grants to a look-alike that differs only by case."""
import asyncpg

def q(name):
  return '"' + name.replace('"', '""') + '"'

async def grant_runtime_role(owner_url, database, runtime):
  c = await asyncpg.connect(owner_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  try:
    name = await c.fetchval("SELECT rolname FROM pg_roles WHERE lower(rolname) = lower($1)", runtime)
    role = q(name)
    await c.execute(f"GRANT CONNECT ON DATABASE {q(database)} TO {role}")
    await c.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
    await c.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON public.sessions, public.events, "
                    f"public.app_states, public.user_states TO {role}")
    await c.execute(f"GRANT SELECT ON public.adk_internal_metadata TO {role}")
  finally:
    await c.close()
