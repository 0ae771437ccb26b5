"""Exercise (lesson 4, production PostgreSQL): a least-privilege runtime role.

The concierge goes to production. The owner role has created ADK's tables with
``prepare_tables()``; the role the app logs in with, the runtime role, exists but may do
nothing yet. As the owner, as in the lesson, write

    async def grant_runtime_role(owner_url: str, database: str, runtime: str) -> None

``owner_url`` is the owner's URL of ``database``, in the form ADK takes
(``postgresql+asyncpg://...``: for ``asyncpg.connect``, write ``postgresql://`` instead). The
owner owns the database and every table in it, and is no superuser (nor is anyone on Cloud
SQL); ``runtime`` is a login role. The database is hardened as in the lesson: PUBLIC has no
right on it or on its schema ``public``. ADK's five tables are in the schema ``public``. The
database also holds the cafe's other data, which the concierge has no business reading:
tables, sequences, views and functions in ``public`` and in other schemas, sometimes a schema
named after the owner (the first one on the owner's ``search_path``) with tables of its own
called ``sessions`` or ``events``, and rights that other roles hold on them. When
``grant_runtime_role`` returns:

1. ``runtime`` itself holds ``CONNECT`` on the database, ``USAGE`` on ``public`` and the rights
   ADK uses on its tables (not through PUBLIC or another role), and logged in as ``runtime``,
   ADK's ``DatabaseSessionService`` serves the concierge: it reads the sessions already
   stored, creates sessions, appends events (with ``user:`` and ``app:`` state), gets, lists
   and deletes them;
2. ``runtime`` cannot create, alter, truncate or drop anything, not even a temporary table;
3. ``runtime`` holds no right beyond what ADK's tables need: at most ``SELECT``, ``INSERT``,
   ``UPDATE`` and ``DELETE`` on ``public.sessions``, ``public.events``, ``public.app_states``
   and ``public.user_states``, and only ``SELECT`` on ``public.adk_internal_metadata`` (the
   schema version is the owner's to write), none of them with grant option; besides
   ``CONNECT`` on the database and ``USAGE`` on ``public``, nothing on any other table,
   sequence, view, function or schema, and no default privileges for tables made later;
4. ``runtime`` keeps its attributes and is a member of no role (the owner's included): grant
   to ``runtime`` itself;
5. PUBLIC gains nothing, and keeps what it had;
6. everything else in the database is exactly as it was: every object and its owner, every
   row, the database's settings, and every right of the owner and of other roles (their
   grant options included). The function only adds the runtime role's rights;
7. calling it again raises nothing (deployments re-run their set-up); all of the above is
   judged after the second call. What it returns is ignored.

Names can hold any character a PostgreSQL identifier can, up to its 63 bytes: capitals,
hyphens, spaces, double quotes, accents. Another role's name may differ from ``runtime``'s only
by letter case, or by how an accent is encoded (Unicode NFC against NFD): use the names exactly
as given. SQL's ``GRANT`` takes no query parameters, so each name must be quoted as an
identifier, and a table named without its schema is looked up on the ``search_path``.

Check yourself in a notebook (the checks build four cafes on the course's PostgreSQL, each
twice, with fresh names on every run: your function runs on one copy, the reference on the
other; then the checks read the whole privilege catalogue, log in as the runtime role and try
all of the above):

    from adkcourse.grade import run_exercise_checks
    report = await run_exercise_checks("grant_runtime_role", grant_runtime_role)
    report   # score, what happened, and every check's feedback
"""

from __future__ import annotations

import asyncpg


async def grant_runtime_role(owner_url: str, database: str, runtime: str) -> None:
  """Let ``runtime`` use ADK's tables in ``database``, and nothing more."""
  ### HINT: When this returns, the runtime role can run ADK's session operations on the
  ### HINT: owner's tables in schema public, holds no other right (no DDL, no other data, no
  ### HINT: grant option, no default privileges, no membership), PUBLIC and everything else
  ### HINT: are unchanged, and a second call raises nothing.
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
      # ADK's tables by name, with their schema: ON ALL TABLES IN SCHEMA public would reach
      # the cafe's other data, and a bare name may find a table of the owner's own schema.
      await owner.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON TABLE public.sessions, "
                          f"public.events, public.app_states, public.user_states TO {role}")
      await owner.execute(f"GRANT SELECT ON TABLE public.adk_internal_metadata TO {role}")
  finally:
    await owner.close()
  ### END SOLUTION
