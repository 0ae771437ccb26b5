"""Pastes the names into quote_ident('...') with an f-string: a single quote in a name breaks the SQL."""
import asyncpg

async def grant_runtime_role(owner_url, database, runtime):
  c = await asyncpg.connect(owner_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  try:
    role = await c.fetchval(f"SELECT quote_ident('{runtime}')")
    db = await c.fetchval(f"SELECT quote_ident('{database}')")
    await c.execute(f"GRANT CONNECT ON DATABASE {db} TO {role}")
    await c.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
    await c.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON public.sessions, public.events, "
                    f"public.app_states, public.user_states TO {role}")
    await c.execute(f"GRANT SELECT ON public.adk_internal_metadata TO {role}")
  finally:
    await c.close()
