"""Grants CONNECT on every database the owner owns, not only the one it is given."""
import asyncpg

def q(name):
  return '"' + name.replace('"', '""') + '"'

async def grant_runtime_role(owner_url, database, runtime):
  c = await asyncpg.connect(owner_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  role = q(runtime)
  try:
    for row in await c.fetch("SELECT datname FROM pg_database WHERE datdba = "
                             "(SELECT oid FROM pg_roles WHERE rolname = current_user)"):
      await c.execute(f"GRANT CONNECT ON DATABASE {q(row[0])} TO {role}")
    await c.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
    await c.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON public.sessions, public.events, "
                    f"public.app_states, public.user_states TO {role}")
    await c.execute(f"GRANT SELECT ON public.adk_internal_metadata TO {role}")
  finally:
    await c.close()
