"""One factory for the course's three stages of session storage.

The agent never changes; only the service handed to the ``Runner`` does:

* ``"memory"``   -> ``InMemorySessionService`` (process memory, gone on restart)
* ``"sqlite"``   -> ``SqliteSessionService(path)`` (one local file)
* ``"postgres"`` -> ``DatabaseSessionService("postgresql+asyncpg://...")`` on the server from
  ``adkcourse.postgres`` (embedded, or ``$ADKCOURSE_POSTGRES_URL``)

Lessons call the ADK constructors themselves where the constructor is the lesson; labs, tests
and the grader use this factory so that one flag switches the backend.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal, Optional, Union

from google.adk.sessions import BaseSessionService, InMemorySessionService
from google.adk.sessions.sqlite_session_service import SqliteSessionService

from .secrets import mask_url

Stage = Literal["memory", "sqlite", "postgres"]
STAGES: tuple[Stage, ...] = ("memory", "sqlite", "postgres")


def session_service(stage: Stage, *, sqlite_path: Union[str, Path, None] = None,
                    database_url: Optional[str] = None) -> BaseSessionService:
  """Build the session service for ``stage``.

  ``sqlite_path`` is required for ``"sqlite"``; ``database_url`` (an async SQLAlchemy URL)
  overrides the course's PostgreSQL server for ``"postgres"``.
  """
  if stage == "memory":
    return InMemorySessionService()
  if stage == "sqlite":
    if sqlite_path is None:
      raise ValueError("stage 'sqlite' needs sqlite_path=, the .db file to use")
    return SqliteSessionService(str(sqlite_path))
  if stage == "postgres":
    from google.adk.sessions import DatabaseSessionService

    from .postgres import postgres_server

    return DatabaseSessionService(database_url or postgres_server().url)
  raise ValueError(f"unknown stage {stage!r}: choose one of {', '.join(STAGES)}")


def describe_service(service: BaseSessionService) -> str:
  """What a service is and where its data lives, with passwords masked."""
  name = type(service).__name__
  if isinstance(service, SqliteSessionService):
    return f"{name} -> file {Path(service._db_path).name}"  # noqa: SLF001
  engine = getattr(service, "db_engine", None)
  if engine is not None:
    return f"{name} -> {mask_url(engine.url.render_as_string(hide_password=True))}"
  return f"{name} -> process memory"
