"""Lesson 4 (production PostgreSQL): its quiz, the shape of its notebook, and its own TLS server.

The notebook runs under nbval (twice in ``scripts/test.sh``: on the embedded server and on the
one ``scripts/system_postgres.sh`` starts). Here: what nbval cannot see.
"""

from __future__ import annotations

import asyncio
import shutil
import ssl
import subprocess
from functools import partial
from pathlib import Path

import pytest

from adkcourse.quiz.bank import check_file
from adkcourse.tls_postgres import make_self_signed_certificate, start_local_server

import lesson_source  # tests/lesson_source.py

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "04_production_postgres.ipynb"
_cells = partial(lesson_source.cells, NOTEBOOK)
_code = partial(lesson_source.code, NOTEBOOK)
BANK = ROOT / "quizzes" / "04_production_postgres.yaml"


def test_quiz_bank_is_valid_and_long_enough():
  bank, problems = check_file(BANK)
  assert not problems, "\n".join(map(str, problems))
  assert len(bank.questions) >= 8
  assert 'show_quiz("04_production_postgres")' in _code()


def test_lesson_shows_each_production_topic_with_adk_calls_visible():
  code = _code()
  markdown = "\n".join("".join(c["source"]) for c in _cells() if c["cell_type"] == "markdown")
  for command in ["gcloud sql instances create", "gcloud sql users set-password", "cloud-sql-proxy --unix-socket",
                  "gcloud secrets add-iam-policy-binding", "roles/secretmanager.secretAccessor",
                  "roles/cloudsql.client", "--max-instances", "cloudsqlsuperuser", 'pip install "psycopg[binary]"',
                  "gcloud sql users create", "gcloud sql databases create", "roles/aiplatform.user",
                  "superuser_reserved_connections", "psycopg2-binary"]:
    assert command in markdown, f"the lesson should print the operator's command or fact {command}"
  for shown in ["from labs.cafe_concierge.agent import APP_NAME, root_agent", "prepare_tables()",
                "CREATEROLE CREATEDB", "ALTER DATABASE", "REVOKE ALL ON DATABASE cafe FROM PUBLIC",
                "SELECT, INSERT, UPDATE, DELETE ON sessions", "SELECT, INSERT ON events", "DROP INDEX",
                "DatabaseSessionService(db_engine=", "async_creator=", '"deploy", "cloud_run"',
                "--add-cloudsql-instances=", "--set-secrets=PGPASSWORD=", "--extra_packages",
                "requirements.txt", "running_api_server", "PGPASSWORD", "PGSSLROOTCERT", "PGSSLMODE",
                'ssl="verify-full"', 'sslmode="require"', '"socket"', "tls_in_use", "pg_stat_ssl",
                "pg_stat_activity", "create_session_service_from_options", "--allow-unsafe-unpickling",
                "to_sync_url", "psql", "migration_runner.upgrade(", "v0.Base.metadata", "Asia/Tokyo",
                "AT TIME ZONE 'UTC'", "local.stop()", "get_dialect().driver", "GOOGLE_GENAI_USE_ENTERPRISE",
                "load_services_module(", "application_name"]:
    assert shown in code, f"the lesson should show {shown}"
  assert "asyncio.run(" not in code and "Agent(" not in code


def test_lesson_runs_fast_enough_to_stay_in_the_suite():
  """Issue 12: under 20 s headless; the committed run is the evidence nbval re-checks."""
  cells = _cells()
  assert len(cells) <= 62


def test_lesson_core_path_is_short_and_its_self_check_reuses_the_roles_server():
  """Core path (before "Going further", exercise and key points included): about 1,800 words.
  The self-check runs on section 1's server with a superuser, so that a server whose role may
  not create roles (the system PostgreSQL pass) costs no second embedded server."""
  cells = _cells()
  further = next(i for i, c in enumerate(cells) if "## Going further" in "".join(c["source"]))
  words = sum(len("".join(c["source"]).split()) for c in cells[:further] if c["cell_type"] == "markdown")
  assert words <= 1800, f"{words} words of prose: move tangents to Going further"
  assert "postgres_url=roles_server.url" in _code()
  assert "concierge = scripted(root_agent)" in _code() and "Runner(agent=root_agent" not in _code()


def _running(folder: Path) -> bool:
  found = subprocess.run(["pgrep", "-f", f"postgres.*{folder}"], capture_output=True, text=True)
  return bool(found.stdout.strip())


@pytest.mark.timeout(120)
def test_local_tls_server_requires_tls_and_leaves_nothing_behind(tmp_path):
  import asyncpg

  certificate, key = make_self_signed_certificate(tmp_path / "tls")
  server = start_local_server(tmp_path / "local", certificate, key)
  try:
    assert _running(server.folder)

    async def probe() -> tuple[bool, str]:
      admin = await asyncpg.connect(server.admin_url)
      try:
        await admin.execute("CREATE ROLE probe LOGIN PASSWORD 'probe-pw'")
      finally:
        await admin.close()
      verified = ssl.create_default_context(cafile=str(certificate))
      connection = await asyncpg.connect(host="127.0.0.1", port=server.port, user="probe",
                                         password="probe-pw", database="postgres", ssl=verified)
      try:
        encrypted = await connection.fetchval(
            "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
      finally:
        await connection.close()
      try:
        await asyncpg.connect(host="127.0.0.1", port=server.port, user="probe",
                              password="probe-pw", database="postgres", ssl=False)
        plain = "accepted"
      except asyncpg.InvalidAuthorizationSpecificationError as error:
        plain = str(error)
      return encrypted, plain

    encrypted, plain = asyncio.run(probe())
    assert encrypted is True
    assert "no encryption" in plain
  finally:
    server.stop()
    shutil.rmtree(tmp_path / "tls", ignore_errors=True)   # no certificate left behind either
  assert not server.folder.exists() and not server.socket_dir.exists()
  assert not _running(server.folder)
