"""The concierge's session service for ``adk api_server``: PostgreSQL with a small pool.

ADK's command line has no flag for engine options. Instead, ``adk api_server AGENTS_DIR``
(``get_fast_api_app``) and ``adk run`` call ``load_services_module`` (google/adk/cli/
service_registry.py), which imports a module named ``services`` from AGENTS_DIR, or from the
Python path: the image ``adk deploy cloud_run --extra_packages labs/cafe_concierge/services.py``
builds has it in /app, on its PYTHONPATH. Registering a factory for the URI's scheme then makes
``--session_service_uri postgresql+asyncpg://...`` build the service below.

If this module fails to import (say a package missing from requirements.txt), ADK only logs it,
a ModuleNotFoundError at debug level, and the URI gets ADK's default ``DatabaseSessionService``
(5 + 10 connections): after deploying, check that ``pg_stat_activity`` shows APPLICATION_NAME.
"""

from __future__ import annotations

import os
from typing import Any

from google.adk.cli.service_registry import get_service_registry
from google.adk.sessions import DatabaseSessionService

# Each instance opens at most POOL_SIZE + MAX_OVERFLOW connections: size it against the
# instance's max_connections divided by the number of instances Cloud Run may start.
POOL_SIZE = int(os.environ.get("CAFE_DB_POOL_SIZE", "2"))
MAX_OVERFLOW = int(os.environ.get("CAFE_DB_MAX_OVERFLOW", "3"))
APPLICATION_NAME = "cafe_concierge"   # what pg_stat_activity shows for these connections


def pooled_postgres(uri: str, **kwargs: Any) -> DatabaseSessionService:
  """``DatabaseSessionService`` for ``uri`` with the pool above (ADK passes ``agents_dir``)."""
  kwargs.pop("agents_dir", None)
  return DatabaseSessionService(
      uri, pool_size=POOL_SIZE, max_overflow=MAX_OVERFLOW,
      connect_args={"server_settings": {"application_name": APPLICATION_NAME}}, **kwargs)


# urlparse("postgresql+asyncpg://...").scheme is "postgresql+asyncpg": ADK's own "postgresql"
# factory never sees such URIs (they fall back to a plain DatabaseSessionService).
get_service_registry().register_session_service("postgresql+asyncpg", pooled_postgres)
