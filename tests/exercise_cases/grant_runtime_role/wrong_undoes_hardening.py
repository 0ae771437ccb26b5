"""Makes the runtime role able to connect by giving CONNECT on the database and USAGE on public back to PUBLIC, the lesson's hardening undone."""

import asyncpg


def quoted(name):
  return '"' + name.replace('"', '""') + '"'


def dsn(owner_url):
  return owner_url.replace("postgresql+asyncpg://", "postgresql://", 1)


RIGHT = ("GRANT SELECT, INSERT, UPDATE, DELETE ON public.sessions, public.events, "
         "public.app_states, public.user_states TO {role}",
         "GRANT SELECT ON public.adk_internal_metadata TO {role}")

LOSES = ('nothing_to_public',)


async def grant_runtime_role(owner_url, database, runtime):
  conn = await asyncpg.connect(dsn(owner_url))
  role = quoted(runtime)
  try:
    await conn.execute(f"GRANT CONNECT ON DATABASE {quoted(database)} TO PUBLIC")
    await conn.execute("GRANT USAGE ON SCHEMA public TO PUBLIC")
    for sql in RIGHT:
      await conn.execute(sql.format(role=role))
  finally:
    await conn.close()
