"""Exercise (lesson 4, production PostgreSQL): a least-privilege runtime role.

The concierge goes to production. The owner role has created ADK's tables with
``prepare_tables()``; the role the app logs in with, the runtime role, exists but may do
nothing yet. As the owner, as in the lesson, write

    async def grant_runtime_role(owner_url: str, database: str, runtime: str) -> None

``owner_url`` is the owner's URL of ``database``, in the form ADK takes
(``postgresql+asyncpg://...``: for ``asyncpg.connect``, write ``postgresql://`` instead). The
owner owns the database and every table in it, and is no superuser (nor is anyone on Cloud
SQL); ``runtime`` is a login role. The database is hardened as in the lesson: PUBLIC has no
right on it or on its schema ``public``. It also holds the cafe's other data, which the
concierge has no business reading: a table with its sequence in ``public``, and a schema
``billing``. When ``grant_runtime_role`` returns:

1. logged in as ``runtime``, ADK's ``DatabaseSessionService`` serves the concierge: it reads
   the sessions already stored, creates sessions, appends events (with ``user:`` and ``app:``
   state), gets, lists and deletes them;
2. ``runtime`` cannot create, alter, truncate or drop anything, not even a temporary table;
3. ``runtime`` holds no right beyond what ADK's tables need: at most ``SELECT``, ``INSERT``,
   ``UPDATE`` and ``DELETE`` on ``sessions``, ``events``, ``app_states`` and ``user_states``,
   and only ``SELECT`` on ``adk_internal_metadata`` (the schema version is the owner's to
   write), none of them with grant option; nothing on any other table, sequence or schema;
4. ``runtime`` is a member of no role (the owner's included): grant to ``runtime`` itself;
5. PUBLIC gains nothing;
6. calling it again raises nothing (deployments re-run their set-up).

Names can hold any character a PostgreSQL identifier can: capitals, hyphens, spaces, even a
double quote. SQL's ``GRANT`` takes no query parameters, so each name must be quoted as an
identifier.

Check yourself in a notebook (the checks build two databases and four roles on the course's
PostgreSQL, with fresh names on every run, call your function twice on each database, then log
in as the runtime role and try all of the above):

    from adkcourse.grade import run_exercise_checks
    report = await run_exercise_checks("grant_runtime_role", grant_runtime_role)
    report   # score, what happened, and every check's feedback
"""

from __future__ import annotations

import asyncpg


async def grant_runtime_role(owner_url: str, database: str, runtime: str) -> None:
  """Let ``runtime`` use ADK's tables in ``database``, and nothing more."""
  ### HINT: When this returns, the runtime role can run ADK's session operations on the
  ### HINT: owner's tables, holds no other right (no DDL, no other data, no grant option, no
  ### HINT: membership), PUBLIC gained nothing, and a second call raises nothing.
  ### BEGIN SOLUTION
  def quoted(name: str) -> str:
    """An identifier in double quotes, a double quote inside doubled: safe for any name."""
    return '"' + name.replace('"', '""') + '"'

  role = quoted(runtime)
  owner = await asyncpg.connect(owner_url.replace("postgresql+asyncpg://", "postgresql://", 1))
  try:
    async with owner.transaction():  # all or nothing; GRANT is idempotent
      # To get in: CONNECT on the database, USAGE (not CREATE) on its schema.
      await owner.execute(f"GRANT CONNECT ON DATABASE {quoted(database)} TO {role}")
      await owner.execute(f"GRANT USAGE ON SCHEMA public TO {role}")
      # ADK's tables by name: ON ALL TABLES IN SCHEMA public would reach the cafe's other data.
      await owner.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.sessions, "
                          f"public.events, public.app_states, public.user_states TO {role}")
      await owner.execute(f"GRANT SELECT ON TABLE public.adk_internal_metadata TO {role}")
  finally:
    await owner.close()
  ### END SOLUTION
