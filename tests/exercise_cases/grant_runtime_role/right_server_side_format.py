"""One DO block run by the server: the names travel as settings and are quoted there with format('%I'); nothing is quoted in Python."""

import asyncpg

BLOCK = """
DO $grant$
DECLARE
  role text := current_setting('grant.runtime');
  db text := current_setting('grant.database');
  t text;
BEGIN
  EXECUTE format('GRANT CONNECT ON DATABASE %I TO %I', db, role);
  EXECUTE format('GRANT USAGE ON SCHEMA public TO %I', role);
  FOREACH t IN ARRAY ARRAY['sessions', 'events', 'app_states', 'user_states'] LOOP
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.%I TO %I', t, role);
  END LOOP;
  EXECUTE format('GRANT SELECT ON TABLE public.adk_internal_metadata TO %I', role);
END
$grant$
"""


async def grant_runtime_role(owner_url, database, runtime):
  conn = await asyncpg.connect(owner_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  try:
    async with conn.transaction():
      await conn.execute("SELECT set_config('grant.runtime', $1, true), "
                         "set_config('grant.database', $2, true)", runtime, database)
      await conn.execute(BLOCK)
  finally:
    await conn.close()
