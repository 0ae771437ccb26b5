"""SQLAlchemy's engine on the conn URL as given, names quoted by the dialect's identifier preparer, one transaction."""

from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine


async def grant_runtime_role(owner_url, database, runtime):
  engine = create_async_engine(owner_url)
  quote = engine.dialect.identifier_preparer.quote_identifier   # always quotes, doubles "
  role = quote(runtime)
  try:
    async with engine.begin() as connection:
      await connection.execute(text(f"GRANT CONNECT ON DATABASE {quote(database)} TO {role}"))
      await connection.execute(text(f"GRANT USAGE ON SCHEMA public TO {role}"))
      for table in ("sessions", "events", "app_states", "user_states"):
        await connection.execute(text(f"GRANT SELECT, INSERT, UPDATE, DELETE ON public.{table} TO {role}"))
      await connection.execute(text(f"GRANT SELECT ON public.adk_internal_metadata TO {role}"))
  finally:
    await engine.dispose()
