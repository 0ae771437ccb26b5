"""Right grants, but adds COMMENT ON the tables and the database: the database is not left as it was."""
import asyncpg

def q(name):
  return '"' + name.replace('"', '""') + '"'

def lit(s):
  return "'" + s.replace("'", "''") + "'"

async def grant_runtime_role(owner_url, database, runtime):
  c = await asyncpg.connect(owner_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  role = q(runtime)
  try:
    await c.execute(f"GRANT CONNECT ON DATABASE {q(database)} TO {role}")
    await c.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
    for t in ("sessions", "events", "app_states", "user_states"):
      await c.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON public.{t} TO {role}")
      await c.execute(f"COMMENT ON TABLE public.{t} IS {lit('ADK table, used by ' + runtime)}")
    await c.execute(f"GRANT SELECT ON public.adk_internal_metadata TO {role}")
    await c.execute(f"COMMENT ON DATABASE {q(database)} IS {lit('runtime role: ' + runtime)}")
  finally:
    await c.close()
