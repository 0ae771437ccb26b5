"""Lesson 3 (PostgreSQL): its quiz, the shape of its notebook, and the system PostgreSQL script.

The notebook itself runs under nbval (twice in ``scripts/test.sh``: on the embedded server and on
the one ``scripts/system_postgres.sh`` starts). Here: what nbval cannot see.
"""

from __future__ import annotations

import asyncio
import io
import shutil
import subprocess
import tempfile
import tokenize
from functools import partial
from pathlib import Path

import pytest

from adkcourse.postgres import PostgresServer, fresh_database, to_asyncpg_url
from adkcourse.quiz.bank import check_file

import lesson_source  # tests/lesson_source.py

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "03_postgres.ipynb"
_cells = partial(lesson_source.cells, NOTEBOOK)
_code = partial(lesson_source.code, NOTEBOOK)
BANK = ROOT / "quizzes" / "03_postgres.yaml"
SCRIPT = ROOT / "scripts" / "system_postgres.sh"


def test_quiz_bank_is_valid_and_long_enough():
  bank, problems = check_file(BANK)
  assert not problems, "\n".join(map(str, problems))
  assert len(bank.questions) >= 6
  assert 'show_quiz("03_postgres")' in _code()


def test_lesson_runs_the_lab_agent_unchanged_on_the_services_it_teaches():
  code = _code()
  assert "from labs.cafe_concierge.agent import APP_NAME, root_agent" in code
  assert "Agent(" not in code, "the lesson must import the concierge, not define a copy"
  for visible in ["postgres_server()", 'await fresh_database("lesson03")', "DatabaseSessionService(url)",
                  "SqliteSessionService(", "Runner(agent=concierge", "StaleSessionError",
                  "create_session_service_from_options(", "sqlite://sessions.db",
                  '"api_server"', "--session_service_uri"]:
    assert visible in code, f"the lesson should show {visible}"
  assert "asyncio.run(" not in code


def test_asserted_cells_run_the_scripted_concierge_and_one_live_cell_uses_gemini():
  """Issue 13: with a key set no cell crashes. Every Runner of an asserted cell runs
  ``scripted(root_agent)``; one live cell runs the lab's agent on Gemini (skipped without a key);
  the api_server subprocess is told to stay offline, since its replies are asserted."""
  cells = _cells()
  code = _code()
  assert "concierge = scripted(root_agent)" in code and "Runner(agent=root_agent" not in code
  live = [c for c in cells if c["cell_type"] == "code" and "live_agent(" in "".join(c["source"])]
  assert len(live) == 1
  assert "".join(live[0]["source"]).startswith("# NBVAL_IGNORE_OUTPUT\n# live cell")
  assert '{"ADKCOURSE_OFFLINE": "1"}' in code
  assert "InstructionLog" not in code and "RequestRecorder()" in code


def test_lesson_shows_concurrent_writers_as_they_are():
  """Issues 12 and 22: each correction has its executed cell (the asserts run under nbval)."""
  code = _code()
  for shown in ["class Step(BasePlugin)", "asyncio.Event()", "double_submit(", "retry(", "latest_user_text(",
                "invocation_id=request_id", '"tool ran"', "class Kitchen(BasePlugin)",
                'f"user:diet:{preference', "pg_advisory_xact_lock", "def short_lock(", "pool_size=1",
                'state={"user:diet:oat milk": True}', "FOR UPDATE", "behind.timestamp",
                "Session.model_validate(", "state->'dietary_preferences'", "mask_url(url)",
                "sys.meta_path.insert(0, NoSqlalchemy())", "sslmode=require", "api.command_line(",
                "get_dialect(_is_async=True)"]:
    assert shown in code, f"the lesson should show {shown}"
  assert "sticky" not in NOTEBOOK.read_text(), "one instance: sticky sessions are no cure here"
  assert "to_asyncpg_url" not in code, "assert on PostgreSQL or ADK, not on the course's helpers"
  assert "inspect.getsource" not in code, "assert ADK's behaviour, not strings in its source"


def test_concurrency_demos_are_ordered_by_events_not_by_sleeps():
  """Issue 22: under load a sleep margin loses the race it was meant to win. Concurrent steps wait
  on ``asyncio.Event``s (set in plugin hooks) or on a condition read from PostgreSQL
  (``until_waiting``); the only sleep is that condition's polling interval."""
  sleeps = [c for c in _cells() if c["cell_type"] == "code" and "asyncio.sleep(" in "".join(c["source"])]
  assert len(sleeps) == 1 and "async def until_waiting(" in "".join(sleeps[0]["source"]), (
      "order concurrent steps with asyncio.Event, not asyncio.sleep")
  assert "gather(" in _code() and ".wait()" in _code()


def test_lesson_reuses_the_course_plumbing_and_its_style():
  """The api_server plumbing exists once (adkcourse/api_server.py); cells indent like lessons 1
  and 2; sqlite3 connections are closed (sqlite3's own ``with`` only commits)."""
  code = _code()
  assert "from adkcourse.api_server import" in code
  for plumbing in ["subprocess.Popen", "urllib.request", "socket.socket"]:
    assert plumbing not in code, f"{plumbing}: use adkcourse.api_server"
  assert "with sqlite3.connect(" not in code, "wrap sqlite3.connect in contextlib.closing"
  cells = _cells()
  for index, cell in enumerate(cells):
    if cell["cell_type"] != "code":
      continue
    source = "".join(cell["source"])
    widths = [len(token.string) for token in tokenize.generate_tokens(io.StringIO(source).readline)
              if token.type == tokenize.INDENT]
    assert all(width % 4 == 0 for width in widths), f"cell {index}: indent by 4 spaces"
    assert len(source.splitlines()) <= 40, f"cell {index}: {len(source.splitlines())} lines, split it"


@pytest.fixture
def script_dir():
  """An empty folder for the script (its parent must be reachable by the server's user)."""
  folder = Path(tempfile.mkdtemp(prefix="adkcourse-test-syspg-"))
  folder.rmdir()   # the script creates it
  yield folder
  subprocess.run(["bash", str(SCRIPT), "stop", str(folder)], capture_output=True, timeout=60)
  shutil.rmtree(folder, ignore_errors=True)


def _running_in(folder: Path) -> bool:
  found = subprocess.run(["pgrep", "-f", f"postgres.*{folder}"], capture_output=True, text=True)
  return bool(found.stdout.strip())


@pytest.mark.timeout(300)   # installs Debian's postgresql on a machine that lacks it
def test_system_postgres_script_starts_a_createdb_only_server_and_stops_it(script_dir):
  started = subprocess.run(["bash", str(SCRIPT), "start", str(script_dir)], capture_output=True,
                           text=True, timeout=280)
  assert started.returncode == 0, started.stderr
  url = started.stdout.strip()
  assert url.startswith("postgresql://adkcourse:") and "@127.0.0.1:" in url
  assert len(started.stdout.splitlines()) == 1, "stdout must hold the URL only"
  assert url.split("@")[0].split(":")[-1] not in started.stderr, "the password leaked to the log"
  assert _running_in(script_dir)

  async def check() -> dict:
    import asyncpg

    server = PostgresServer(url=to_asyncpg_url(url), embedded=False)
    lesson_url = await fresh_database("syspg_check", server)   # needs CREATEDB, nothing more
    assert lesson_url.endswith("/syspg_check")
    connection = await asyncpg.connect(url)
    try:
      role = await connection.fetchrow(
          "SELECT rolsuper, rolcreatedb FROM pg_roles WHERE rolname = current_user")
      version = await connection.fetchval("SHOW server_version_num")
    finally:
      await connection.close()
    from google.adk.sessions import DatabaseSessionService

    service = DatabaseSessionService(lesson_url)
    try:
      session = await service.create_session(app_name="cafe_concierge", user_id="ayu",
                                             state={"user:dietary_preferences": ["vegan"]})
      again = await service.get_session(app_name="cafe_concierge", user_id="ayu",
                                        session_id=session.id)
    finally:
      await service.close()
    return {"super": role["rolsuper"], "createdb": role["rolcreatedb"], "version": int(version),
            "state": again.state}

  seen = asyncio.run(check())
  assert seen["createdb"] and not seen["super"]
  assert seen["version"] >= 150000   # Debian's 15 here; a newer one where apt installs it
  assert seen["state"] == {"user:dietary_preferences": ["vegan"]}

  stopped = subprocess.run(["bash", str(SCRIPT), "stop", str(script_dir)], capture_output=True,
                           text=True, timeout=60)
  assert stopped.returncode == 0, stopped.stderr
  assert not script_dir.exists(), "stop must delete the data folder"
  assert not _running_in(script_dir), "a postgres process outlived stop"
  again = subprocess.run(["bash", str(SCRIPT), "stop", str(script_dir)], capture_output=True,
                         text=True, timeout=60)
  assert again.returncode == 0, "stop must be safe to repeat (test.sh calls it from a trap)"
