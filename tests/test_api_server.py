"""``adk api_server`` keeps a customer's preference across a server restart (lesson 3).

The real command line, as a student runs it: ``adk api_server labs`` on a free local port with an
explicit ``--session_service_uri``. Over HTTP (standard library only) the customer says she is
vegan; the server is stopped, a new one is started on the same store, and a *new* session of
the same user must have the preference. Against a SQLite file, the embedded PostgreSQL and, when
``ADKCOURSE_POSTGRES_URL`` is set (the second pass of ``scripts/test.sh``), that server. A
``memory://`` control shows that the restart is real: there, the preference is gone.

The plumbing (``adkcourse/api_server.py``, shared with the lesson) is tested at the end: a server
that cannot start fails at once with the end of its log, logs are masked, HTTP errors keep the
server's reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
import urllib.error
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest

from adkcourse.api_server import (ApiServer, ApiServerError, http_json, parts, port_open,
                                  running_api_server, start_api_server)
from adkcourse.postgres import POSTGRES_URL_VARIABLE, fresh_database, postgres_server, start_embedded
from adkcourse.scratch import fresh_scratch

ROOT = Path(__file__).resolve().parent.parent
LABS = ROOT / "labs"
APP = "cafe_concierge"

STORES = ["sqlite", "embedded-postgres"] + (
    ["system-postgres"] if os.environ.get(POSTGRES_URL_VARIABLE) else [])


def _labs_state() -> tuple[list[str], list[str]]:
  """What could betray a write into labs/: .adk folders, database files, and the files git
  does not track (untracked or ignored; edits to tracked files are left out: other work may
  be changing those while the test runs)."""
  written = sorted(str(p.relative_to(LABS)) for pattern in (".adk", "*.db")
                   for p in LABS.rglob(pattern))
  new_files: list[str] = []
  if shutil.which("git") and (ROOT / ".git").exists():
    status = subprocess.run(["git", "status", "--porcelain", "--ignored", "--untracked-files=all",
                             "--", "labs"], cwd=ROOT, capture_output=True, text=True, timeout=30)
    new_files = sorted(line for line in status.stdout.splitlines()
                       if line.startswith(("??", "!!")) and "__pycache__" not in line
                       and ".ipynb_checkpoints" not in line)
  return written, new_files


@contextlib.contextmanager
def api_server(session_uri: str, logs: Path) -> Iterator[ApiServer]:
  """``adk api_server labs`` on a free port; afterwards, nothing may listen on that port."""
  with running_api_server(LABS, session_uri, logs) as server:
    yield server
  assert server.process.poll() is not None, "the server process outlived stop()"
  assert not port_open(server.port), "the stopped server still accepts connections"


@pytest.fixture(params=STORES)
def session_uri(request) -> Iterator[str]:
  """The ``--session_service_uri`` of one store, empty at the start of the test."""
  store = request.param
  if store == "sqlite":
    path = fresh_scratch("api_server_sqlite") / "sessions.db"
    yield f"sqlite:///{path}"   # an absolute path: sqlite:////tmp/...
    assert path.is_file(), "the SQLite store was never written"
  elif store == "embedded-postgres" and not os.environ.get(POSTGRES_URL_VARIABLE):
    yield asyncio.run(fresh_database("api_server_test"))   # the course's embedded server
  elif store == "embedded-postgres":
    # The environment names another server: start the embedded one for this test anyway.
    server = start_embedded(fresh_scratch("api_server_embedded_pg"))
    try:
      assert server.embedded
      yield asyncio.run(fresh_database("api_server_test", server))
    finally:
      server.stop()
  else:
    server = postgres_server()
    assert not server.embedded, f"{POSTGRES_URL_VARIABLE} is set: the server must be that one"
    yield asyncio.run(fresh_database("api_server_test", server))


@pytest.mark.timeout(180)
def test_preference_survives_a_restart_of_adk_api_server(session_uri):
  logs = fresh_scratch("api_server_logs")
  labs_before = _labs_state()

  with api_server(session_uri, logs) as server:
    assert server.command_line().startswith("adk api_server ")   # ADK's own command line ran
    assert APP in server.get("/list-apps")
    first = server.post(f"/apps/{APP}/users/sari/sessions")
    calls = parts(server.run(APP, "sari", first["id"], "I'm vegan"), "functionCall")
    assert [(c["name"], c["args"]) for c in calls] == [
        ("set_dietary_preference", {"preference": "vegan"})]
    stored = server.get(f"/apps/{APP}/users/sari/sessions/{first['id']}")
    assert stored["state"]["user:dietary_preferences"] == ["vegan"]

  with api_server(session_uri, logs) as server:   # a new process: only the store is shared
    second = server.post(f"/apps/{APP}/users/sari/sessions")
    assert second["id"] != first["id"]
    assert second["state"] == {"user:dietary_preferences": ["vegan"]}
    reply = parts(server.run(APP, "sari", second["id"], "What do you remember about me?"), "text")
    assert "vegan" in reply[-1]   # the instruction ADK built for the model held the preference
    reloaded = server.get(f"/apps/{APP}/users/sari/sessions/{second['id']}")
    assert reloaded["state"]["user:dietary_preferences"] == ["vegan"]
    assert "current_order" not in reloaded["state"]
    listed = server.get(f"/apps/{APP}/users/sari/sessions")
    assert {s["id"] for s in listed} == {first["id"], second["id"]}
    other = server.post(f"/apps/{APP}/users/tomo/sessions")
    assert other["state"] == {}   # user: state is per user

  assert _labs_state() == labs_before, "adk api_server wrote into labs/"


@pytest.mark.timeout(120)
def test_memory_store_forgets_on_restart():
  """The control: with ``memory://`` the same restart loses the preference."""
  logs = fresh_scratch("api_server_logs_memory")
  with api_server("memory://", logs) as server:
    first = server.post(f"/apps/{APP}/users/sari/sessions")
    server.run(APP, "sari", first["id"], "I'm vegan")
    assert server.get(f"/apps/{APP}/users/sari/sessions/{first['id']}")["state"] == {
        "user:dietary_preferences": ["vegan"]}
  with api_server("memory://", logs) as server:
    assert server.get(f"/apps/{APP}/users/sari/sessions") == []
    assert server.post(f"/apps/{APP}/users/sari/sessions")["state"] == {}


# The plumbing itself (adkcourse/api_server.py), as the lesson and the tests above rely on it.

@pytest.mark.timeout(60)
def test_a_server_that_cannot_start_fails_fast_with_the_end_of_its_log(tmp_path, monkeypatch):
  """ADK refuses a synchronous driver at start-up: the error must say why, not just time out.
  (``labs`` is given relative to the caller's folder, as in docs/postgres.md: the server runs
  elsewhere, and would otherwise stop at "Directory 'labs' does not exist".)"""
  monkeypatch.chdir(ROOT)
  with pytest.raises(ApiServerError) as failure:
    start_api_server("labs", "sqlite+pysqlite:///refused.db", tmp_path, timeout=50)
  message = str(failure.value)
  assert "exited with code" in message   # noticed the exit instead of waiting for the timeout
  assert "requires an asynchronous one" in message   # ADK's own reason, from the log's tail
  assert list(tmp_path.glob("api_server-*.log")), "the log file is kept for the curious"
  assert not list(tmp_path.glob("*.db")), "a refused URI must not create a file"


def test_log_tail_is_short_and_masks_passwords(tmp_path):
  log = tmp_path / "server.log"
  secret = "pw" + "-not-shown"   # built, so that no password literal sits in the repository
  log.write_text("x" * 5000 + f"\nconnecting to postgresql+asyncpg://course:{secret}@db/cafe\n")
  done = subprocess.Popen([sys.executable, "-c", "pass"])
  server = ApiServer(process=done, port=1, log_path=log)
  tail = server.log_tail(200)
  assert len(tail) <= 200 and tail.startswith("x") and tail.count("x") < 200   # the end only
  assert "course:***@db/cafe" in tail and secret not in tail
  server.stop()   # an already finished process: stop() must simply return
  assert server.stopped


class _EchoHandler(BaseHTTPRequestHandler):
  """GET /ok answers JSON; POST echoes its body; anything else is a 404 with a reason."""

  def log_message(self, *args):  # noqa: D401 - keep pytest output quiet
    pass

  def _answer(self, code: int, payload: bytes) -> None:
    self.send_response(code)
    self.send_header("Content-Type", "application/json")
    self.send_header("Content-Length", str(len(payload)))
    self.end_headers()
    self.wfile.write(payload)

  def do_GET(self):
    if self.path == "/ok":
      self._answer(200, b'{"apps": ["cafe_concierge"]}')
    elif self.path == "/empty":
      self._answer(200, b"")
    else:
      self._answer(404, b'{"detail": "Session not found"}')

  def do_POST(self):
    body = self.rfile.read(int(self.headers["Content-Length"] or 0))
    self._answer(200, json.dumps({"echo": json.loads(body or b"null"),
                                  "type": self.headers["Content-Type"]}).encode())


@pytest.fixture
def echo_server() -> Iterator[str]:
  httpd = ThreadingHTTPServer(("127.0.0.1", 0), _EchoHandler)
  thread = threading.Thread(target=httpd.serve_forever, daemon=True)
  thread.start()
  try:
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
  finally:
    httpd.shutdown()
    httpd.server_close()


def test_http_json_round_trips_and_reports_the_servers_reason(echo_server):
  assert http_json(echo_server, "GET", "/ok") == {"apps": ["cafe_concierge"]}
  assert http_json(echo_server, "GET", "/empty") is None
  assert http_json(echo_server, "POST", "/run", {"text": "I'm vegan"}) == {
      "echo": {"text": "I'm vegan"}, "type": "application/json"}
  with pytest.raises(urllib.error.HTTPError) as failure:
    http_json(echo_server, "GET", "/apps/x/users/y/sessions/z")
  assert failure.value.code == 404 and "Session not found" in str(failure.value)


def test_parts_picks_one_kind_across_events():
  events = [{"content": {"parts": [{"functionCall": {"name": "f"}}]}},
            {"content": None},
            {"content": {"parts": [{"text": "a"}, {"text": "b"}]}}]
  assert parts(events, "text") == ["a", "b"]
  assert parts(events, "functionCall") == [{"name": "f"}]


def test_command_line_is_what_a_student_types(tmp_path):
  """The lesson prints the command it really ran: ``adk`` instead of the venv's path, the agents
  folder by name, the free port as PORT, a chosen value shown in place of an option's value,
  passwords masked (the real values stay in ``command``)."""
  done = subprocess.Popen([sys.executable, "-c", "pass"])
  secret = "pw" + "-not-shown"
  command = ["/venv/bin/adk", "api_server", "--host", "127.0.0.1", "--port", "54321", "--no-reload",
             "--session_service_uri", f"postgresql+asyncpg://course:{secret}@db/cafe",
             "--artifact_service_uri", "memory://", "/work/course/labs"]
  server = ApiServer(process=done, port=54321, log_path=tmp_path / "log", command=command)
  assert server.command_line() == (
      "adk api_server --host 127.0.0.1 --port PORT --no-reload --session_service_uri "
      "postgresql+asyncpg://course:***@db/cafe --artifact_service_uri memory:// labs")
  assert secret not in server.command_line()
  assert "--session_service_uri sqlite:///x.db " in server.command_line(session_service_uri="sqlite:///x.db")
  assert server.command[-1] == "/work/course/labs" and server.command[5] == "54321"
  server.stop()
