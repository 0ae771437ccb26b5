"""Least privilege for everyone: revokes every right other roles hold on the database's tables and schemas before granting the runtime's."""

import asyncpg


def quoted(name):
  return '"' + name.replace('"', '""') + '"'


def dsn(owner_url):
  return owner_url.replace("postgresql+asyncpg://", "postgresql://", 1)


RIGHT = ("GRANT SELECT, INSERT, UPDATE, DELETE ON public.sessions, public.events, "
         "public.app_states, public.user_states TO {role}",
         "GRANT SELECT ON public.adk_internal_metadata TO {role}")

LOSES = ('only_adk_tables',)


async def grant_runtime_role(owner_url, database, runtime):
  conn = await asyncpg.connect(dsn(owner_url))
  role = quoted(runtime)
  try:
    rows = await conn.fetch(
        "SELECT DISTINCT grantee, table_schema, table_name FROM information_schema.role_table_grants "
        "WHERE grantee <> current_user AND grantee <> 'PUBLIC' "
        "AND table_schema NOT IN ('pg_catalog', 'information_schema')")
    for row in rows:
      await conn.execute(f"REVOKE ALL ON {quoted(row['table_schema'])}.{quoted(row['table_name'])} "
                         f"FROM {quoted(row['grantee'])}")
    await conn.execute(f"GRANT CONNECT ON DATABASE {quoted(database)} TO {role}")
    await conn.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
    for sql in RIGHT:
      await conn.execute(sql.format(role=role))
  finally:
    await conn.close()
