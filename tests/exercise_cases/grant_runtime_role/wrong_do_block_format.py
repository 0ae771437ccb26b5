"""Pastes the runtime's name into a DO block's '...' literal between $$: a quote or $$ in it breaks the block."""
import asyncpg

async def grant_runtime_role(owner_url, database, runtime):
  c = await asyncpg.connect(owner_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  try:
    await c.execute(f"""
DO $$
DECLARE r text := '{runtime}';
BEGIN
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', current_database(), r);
  EXECUTE format('GRANT USAGE ON SCHEMA public TO %I', r);
  EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON public.sessions, public.events, public.app_states, public.user_states TO %I', r);
  EXECUTE format('GRANT SELECT ON public.adk_internal_metadata TO %I', r);
END
$$""")
  finally:
    await c.close()
