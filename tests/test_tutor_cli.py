"""The tutor from a terminal: main.py run three times on one SQLite file, then inspect_db.py.

Each run is a separate process, as a student restarting the tutor would do: what the second
and third runs know can only come from the file.
"""

from __future__ import annotations

import os
import re
import sqlite3
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import pytest

from adkcourse.fake_gemini import VERTEX_VARIABLES

ROOT = Path(__file__).resolve().parent.parent
MAIN = ROOT / "labs" / "tutor" / "main.py"
INSPECT = ROOT / "labs" / "tutor" / "inspect_db.py"
SESSION_LINE = re.compile(r"^(Started new|Resumed) session (\S+)", re.MULTILINE)


def run(args, db: Path, cwd: Path, stdin: str | None = None, module: bool = False):
  env = {**os.environ, "TUTOR_DB": str(db), "ADKCOURSE_OFFLINE": "1"}
  command = ([sys.executable, "-m", "labs.tutor.main"] if module
             else [sys.executable, str(MAIN)]) + list(args)
  done = subprocess.run(command, input=stdin if stdin is not None else "", text=True,
                        capture_output=True, env=env, cwd=cwd, timeout=120)
  assert done.returncode == 0, done.stderr[-2000:]
  return done.stdout


@pytest.fixture(scope="module")
def three_runs(tmp_path_factory):
  """First run, a second without --resume, a third with --resume (messages from stdin)."""
  work = tmp_path_factory.mktemp("tutor")
  db = work / "students.db"
  first = run(["--user", "alice", "hello", "quiz me on python", "def", "next", "3",
               "how am I doing?"], db, work)
  second = run(["--user", "alice", "what did we talk about?", "hello", "tuple", "quiz me"],
               db, work)
  third = run(["--user", "alice", "--resume"], db, work, module=True,
              stdin="tuple\nwhat did we talk about?\n")
  return work, db, first, second, third


def session_of(output: str) -> tuple[str, str]:
  found = SESSION_LINE.search(output)
  assert found, output
  return found.group(1), found.group(2)


def test_first_run_starts_a_session_and_levels_up(three_runs):
  work, db, first, _, _ = three_runs
  assert "Model: offline scripted model" in first
  assert "SqliteSessionService" in first and str(db) in first
  assert session_of(first)[0] == "Started new"
  assert "first lesson together" in first
  assert "[tool] ask_question" in first and "[tool] record_answer" in first
  assert "move up to level 2 in python" in first
  assert "python: level 2, 2 of 2 right" in first
  assert re.search(r"now holds 20 events", first)
  assert db.exists() and not (work / "tutor.db").exists()  # $TUTOR_DB was used


def test_second_run_sees_user_state_but_not_history(three_runs):
  _, _, first, second, _ = three_runs
  kind, session_id = session_of(second)
  assert kind == "Started new" and session_id != session_of(first)[1]
  assert "Welcome back: you are at level 2 in python" in second
  assert "This conversation has no earlier messages" in second
  assert "No question is waiting for an answer in this conversation" in second
  assert "[tool] record_answer" not in second  # nothing to judge: no tool call at all
  assert "python, level 2: Which one is immutable: a list or a tuple?" in second


def test_third_run_resumes_the_latest_session_with_its_history(three_runs):
  _, db, _, second, third = three_runs
  kind, session_id = session_of(third)
  assert kind == "Resumed" and session_id == session_of(second)[1]
  assert f"Resumed session {session_id} (10 events)" in third
  assert "Correct (tuple)! Score in python: 3/3." in third  # the pending question was known
  assert "I can see 5 earlier messages from you" in third
  assert "now holds 16 events" in third
  with closing(sqlite3.connect(db)) as connection:
    rows = connection.execute("SELECT user_id, state FROM user_states").fetchall()
  assert rows == [("alice", '{"progression":{"python":{"level":2,"streak":[true],"right":3,'
                            '"total":3,"to_review":[]}}}')]


def test_resume_without_any_session_starts_one(tmp_path):
  out = run(["--user", "bob", "--resume", "hi"], tmp_path / "t.db", tmp_path)
  assert "No earlier session for bob: nothing to resume." in out
  assert session_of(out)[0] == "Started new"


def test_default_database_is_tutor_db_in_the_current_directory(tmp_path):
  env = {k: v for k, v in os.environ.items() if k != "TUTOR_DB"}
  done = subprocess.run([sys.executable, str(MAIN), "--user", "carol", "hello"],
                        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120,
                        input="")
  assert done.returncode == 0, done.stderr[-2000:]
  assert "Sessions file: tutor.db" in done.stdout
  assert (tmp_path / "tutor.db").exists()


def test_inspect_db_prints_states_and_events_per_session(three_runs):
  _, db, first, second, _ = three_runs
  done = subprocess.run([sys.executable, str(INSPECT), str(db)], capture_output=True,
                        text=True, timeout=60)
  assert done.returncode == 0, done.stderr
  out = done.stdout
  assert "app_states: 0 row(s)" in out
  assert "user_states: 1 row(s) (keys stored without the 'user:' prefix)" in out
  assert "  tutor / alice\n    {\n      \"progression\": {" in out
  assert f"tutor / alice / {session_of(first)[1]}: 20 events" in out
  assert f"tutor / alice / {session_of(second)[1]}: 16 events" in out
  assert out.index(session_of(first)[1]) < out.index(session_of(second)[1])
  assert "events: 36 in total" in out
  assert "(per user, least recently updated first, the order of list_sessions)" in out
  detailed = subprocess.run([sys.executable, str(INSPECT), str(db), "--events"],
                            capture_output=True, text=True, timeout=60).stdout
  assert "  1. user: hello" in detailed
  assert "state_delta keys ['current_question', 'user:progression']" in detailed


@pytest.mark.parametrize("content", [None, b"not a database at all", "other-schema"])
def test_inspect_db_refuses_what_is_not_a_session_file(tmp_path, content):
  path = tmp_path / "x.db"
  if content == "other-schema":
    with closing(sqlite3.connect(path)) as connection:
      connection.execute("CREATE TABLE notes (id INTEGER)")
  elif content is not None:
    path.write_bytes(content)
  done = subprocess.run([sys.executable, str(INSPECT), str(path)], capture_output=True,
                        text=True, timeout=60)
  assert done.returncode == 2
  assert done.stdout == ""
  assert done.stderr.startswith("error: ")
  assert ("no such file" in done.stderr) == (content is None)
  if content is not None:
    assert "is not an ADK" in done.stderr


def test_interactive_loop_on_a_terminal_ends_with_quit(tmp_path):
  """stdin is a terminal: the tutor prompts, answers, and stops at 'quit'."""
  import pty  # POSIX only, like the course's CI
  leader, follower = pty.openpty()
  env = {**os.environ, "TUTOR_DB": str(tmp_path / "t.db"), "ADKCOURSE_OFFLINE": "1"}
  process = subprocess.Popen([sys.executable, str(MAIN), "--user", "dana"], stdin=follower,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=env, cwd=tmp_path)
  os.close(follower)
  os.write(leader, b"hello\nquit\n")
  out, err = process.communicate(timeout=120)
  os.close(leader)
  assert process.returncode == 0, err[-2000:]
  assert "Type your message ('quit' to end)." in out
  assert "dana> " in out and "first lesson together" in out
  assert "now holds 2 events" in out


def test_the_readme_transcript_is_what_the_tutor_prints(tmp_path):
  """labs/tutor/README.md shows two runs: replay them (fresh tutor.db) and compare."""
  import shlex

  readme = (ROOT / "labs" / "tutor" / "README.md").read_text()
  block = re.search(r"```text\n(.*?)```", readme, re.DOTALL).group(1)
  runs = [chunk.strip("\n").splitlines() for chunk in block.split("$ ")[1:]]
  assert len(runs) == 2
  # As a student runs it: no key, no $TUTOR_DB, and not forced offline (the suite's environment
  # sets ADKCOURSE_OFFLINE, which the tutor's first line reports).
  unset = {"TUTOR_DB", "ADKCOURSE_OFFLINE", "GOOGLE_API_KEY", "GEMINI_API_KEY",
           "GOOGLE_GEMINI_BASE_URL", *VERTEX_VARIABLES}
  env = {k: v for k, v in os.environ.items() if k not in unset}
  for command, *expected in runs:
    argv = shlex.split(command)
    assert argv[:2] == [".venv/bin/python", "labs/tutor/main.py"]
    done = subprocess.run([sys.executable, str(MAIN), *argv[2:]], capture_output=True,
                          text=True, env=env, cwd=tmp_path, timeout=120, input="")
    assert done.returncode == 0, done.stderr[-2000:]
    actual = re.sub(r"[0-9a-f]{8}-[0-9a-f-]{27}", "<id>", done.stdout).splitlines()
    wanted = [re.sub(r"[0-9a-f]{8}-\.\.\.", "<id>", line) for line in expected]
    if "..." not in wanted:
      assert actual == wanted
    else:  # "..." stands for lines left out: the others appear in order
      position = 0
      for line in (w for w in wanted if w != "..."):
        position = actual.index(line, position) + 1


def test_a_piped_quit_ends_the_session_without_being_sent(tmp_path):
  """`quit` on stdin stops reading: neither it nor anything after it reaches the model."""
  db = tmp_path / "students.db"
  out = run(["--user", "erin"], db, tmp_path, stdin="hello\nquit\nhow am I doing?\n")
  assert "erin> hello" in out
  assert "erin> quit" not in out and "how am I doing?" not in out
  assert re.search(r"now holds 2 events", out)


def test_inspect_db_lists_sessions_in_list_sessions_order(tmp_path):
  """The lab's inspector prints each user's sessions in the order list_sessions returns them,
  even when the session created first is the one updated last (the lesson relies on it)."""
  import asyncio

  from google.adk.events import Event
  from google.adk.sessions.sqlite_session_service import SqliteSessionService
  from google.genai import types

  db = tmp_path / "students.db"

  async def build() -> tuple[list[str], str]:
    service = SqliteSessionService(str(db))
    older = await service.create_session(app_name="tutor", user_id="alice")
    await service.create_session(app_name="tutor", user_id="alice")
    await service.append_event(older, Event(author="user", invocation_id="later", content=types.Content(
        role="user", parts=[types.Part(text="back to the first session")])))
    listed = await service.list_sessions(app_name="tutor", user_id="alice")
    return [s.id for s in listed.sessions], older.id

  listed, older_id = asyncio.run(build())
  assert listed[-1] == older_id        # updated last, so listed last
  done = subprocess.run([sys.executable, str(INSPECT), str(db)], capture_output=True, text=True,
                        timeout=60)
  assert done.returncode == 0, done.stderr
  printed = [line.split(" / ")[2].split(":")[0] for line in done.stdout.splitlines()
             if line.count(" / ") == 2]
  assert printed == listed


def _dss_file(path: Path) -> None:
  """Let DatabaseSessionService (sqlite+aiosqlite) create one session in ``path``."""
  import asyncio

  from google.adk.sessions.database_session_service import DatabaseSessionService

  async def build() -> None:
    async with DatabaseSessionService(f"sqlite+aiosqlite:///{path}") as service:
      await service.create_session(app_name="tutor", user_id="alice")

  asyncio.run(build())


def test_inspect_db_refuses_a_database_session_service_file(tmp_path):
  """The README promises status 2 for a file that is not a SqliteSessionService file; one
  written by DatabaseSessionService has the same four table names (and every column the
  inspector reads), so only the schema tells them apart."""
  path = tmp_path / "dss.db"
  _dss_file(path)
  with closing(sqlite3.connect(path)) as connection:
    tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
  assert {"app_states", "user_states", "sessions", "events", "adk_internal_metadata"} <= tables
  done = subprocess.run([sys.executable, str(INSPECT), str(path)], capture_output=True,
                        text=True, timeout=60)
  assert done.returncode == 2, done.stdout
  assert done.stdout == ""
  assert done.stderr.startswith("error: ") and "is not an ADK SqliteSessionService file" in done.stderr
  assert "DatabaseSessionService file" in done.stderr and "DATETIME" in done.stderr
  readme = (ROOT / "labs" / "tutor" / "README.md").read_text()
  assert "exits with status 2" in readme and "DatabaseSessionService" in readme


def test_inspect_db_warns_on_a_sqlite_file_a_database_service_has_opened(tmp_path):
  """DatabaseSessionService pointed at a SqliteSessionService file adds its metadata table: the
  file is still printed (status 0), with a warning on stderr."""
  import asyncio

  from google.adk.sessions.sqlite_session_service import SqliteSessionService

  path = tmp_path / "students.db"
  asyncio.run(SqliteSessionService(str(path)).create_session(app_name="tutor", user_id="alice"))
  clean = subprocess.run([sys.executable, str(INSPECT), str(path)], capture_output=True,
                         text=True, timeout=60)
  assert clean.returncode == 0 and clean.stderr == ""
  _dss_file(path)                       # the other class on the same file
  done = subprocess.run([sys.executable, str(INSPECT), str(path)], capture_output=True,
                        text=True, timeout=60)
  assert done.returncode == 0, done.stderr
  assert done.stderr.startswith("warning: a DatabaseSessionService has opened")
  assert "tutor / alice / " in done.stdout
