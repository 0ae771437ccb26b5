"""SQLAlchemy 2.0's connect() begins a transaction that is never committed: closing it rolls every grant back."""

from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

LOSES = ("runtime_runs_adk",)


async def grant_runtime_role(owner_url, database, runtime):
  engine = create_async_engine(owner_url)
  quote = engine.dialect.identifier_preparer.quote_identifier
  role = quote(runtime)
  try:
    async with engine.connect() as connection:   # engine.begin() would commit
      await connection.execute(text(f"GRANT CONNECT ON DATABASE {quote(database)} TO {role}"))
      await connection.execute(text(f"GRANT USAGE ON SCHEMA public TO {role}"))
      await connection.execute(text(
          "GRANT SELECT, INSERT, UPDATE, DELETE ON public.sessions, public.events, "
          f"public.app_states, public.user_states TO {role}"))
      await connection.execute(text(f"GRANT SELECT ON public.adk_internal_metadata TO {role}"))
  finally:
    await engine.dispose()
