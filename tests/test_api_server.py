"""``adk api_server`` keeps a customer's preference across a server restart (lesson 3).

The real command line, as a student runs it: ``adk api_server labs`` on a free local port with an
explicit ``--session_service_uri``. Over HTTP (standard library only) the customer says she is
vegan; the server is stopped, a new one is started on the same store, and a *new* session of
the same user must have the preference. Against a SQLite file, the embedded PostgreSQL and, when
``ADKCOURSE_POSTGRES_URL`` is set (the second pass of ``scripts/test.sh``), that server. A
``memory://`` control shows that the restart is real: there, the preference is gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Iterator, Optional

import pytest

from adkcourse.postgres import POSTGRES_URL_VARIABLE, fresh_database, postgres_server, start_embedded
from adkcourse.scratch import fresh_scratch

ROOT = Path(__file__).resolve().parent.parent
LABS = ROOT / "labs"
APP = "cafe_concierge"
START_TIMEOUT = 60.0   # seconds for the server to answer its first request
STOP_TIMEOUT = 15.0

STORES = ["sqlite", "embedded-postgres"] + (
    ["system-postgres"] if os.environ.get(POSTGRES_URL_VARIABLE) else [])


def _adk() -> str:
  """The ``adk`` command of this environment (next to its Python), else the one on PATH."""
  beside = Path(sys.executable).with_name("adk")
  found = str(beside) if beside.exists() else shutil.which("adk")
  assert found, "the adk command line is not installed"
  return found


def _free_port() -> int:
  with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    return probe.getsockname()[1]


def _http(base: str, method: str, path: str, body: Optional[dict] = None) -> Any:
  data = None if body is None else json.dumps(body).encode()
  request = urllib.request.Request(base + path, data=data, method=method,
                                   headers={"Content-Type": "application/json"})
  with urllib.request.urlopen(request, timeout=60) as response:
    return json.loads(response.read() or b"null")


def _port_open(port: int) -> bool:
  with socket.socket() as probe:
    probe.settimeout(1)
    return probe.connect_ex(("127.0.0.1", port)) == 0


@contextlib.contextmanager
def api_server(session_uri: str, log_dir: Path) -> Iterator[str]:
  """Run ``adk api_server labs`` on a free port; yield its base URL; always stop it."""
  port = _free_port()
  command = [_adk(), "api_server", "--host", "127.0.0.1", "--port", str(port), "--no-reload",
             "--session_service_uri", session_uri,
             # ADK's default artifact store is a folder inside the agent: keep labs/ clean.
             "--artifact_service_uri", "memory://", "labs"]
  log_path = log_dir / f"api_server-{port}.log"
  env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}  # ADKCOURSE_OFFLINE=1 comes from conftest
  with open(log_path, "wb") as log:
    process = subprocess.Popen(command, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env,
                               stdin=subprocess.DEVNULL)
  base = f"http://127.0.0.1:{port}"
  try:
    deadline = time.monotonic() + START_TIMEOUT
    while True:
      if process.poll() is not None:
        pytest.fail(f"adk api_server exited ({process.returncode}):\n{log_path.read_text()[-3000:]}")
      try:
        _http(base, "GET", "/list-apps")
        break
      except (urllib.error.URLError, ConnectionError, socket.timeout):
        if time.monotonic() > deadline:
          pytest.fail(f"adk api_server did not answer in {START_TIMEOUT:.0f} s:\n"
                      f"{log_path.read_text()[-3000:]}")
        time.sleep(0.2)
    yield base
  finally:
    process.terminate()
    try:
      process.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
      process.kill()
      process.wait(timeout=STOP_TIMEOUT)
  assert not _port_open(port), "the stopped server still accepts connections"


def _send(base: str, user_id: str, session_id: str, text: str) -> list[dict]:
  """POST /run: one user message; the events of the turn."""
  return _http(base, "POST", "/run", {
      "app_name": APP, "user_id": user_id, "session_id": session_id,
      "new_message": {"role": "user", "parts": [{"text": text}]}})


def _parts(events: list[dict], kind: str) -> list[Any]:
  return [part[kind] for event in events for part in event.get("content", {}).get("parts", [])
          if kind in part]


def _labs_state() -> tuple[list[str], str]:
  """What could betray a write into labs/: .adk folders, database files, and git's view."""
  written = sorted(str(p.relative_to(LABS)) for pattern in (".adk", "*.db")
                   for p in LABS.rglob(pattern))
  status = ""
  if shutil.which("git") and (ROOT / ".git").exists():
    status = subprocess.run(["git", "status", "--porcelain", "--", "labs"], cwd=ROOT,
                            capture_output=True, text=True, timeout=30).stdout
  return written, status


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

  with api_server(session_uri, logs) as base:
    assert APP in _http(base, "GET", "/list-apps")
    first = _http(base, "POST", f"/apps/{APP}/users/sari/sessions")
    events = _send(base, "sari", first["id"], "I'm vegan")
    calls = _parts(events, "functionCall")
    assert [(c["name"], c["args"]) for c in calls] == [
        ("set_dietary_preference", {"preference": "vegan"})]
    stored = _http(base, "GET", f"/apps/{APP}/users/sari/sessions/{first['id']}")
    assert stored["state"]["user:dietary_preferences"] == ["vegan"]

  with api_server(session_uri, logs) as base:   # a new process: only the store is shared
    second = _http(base, "POST", f"/apps/{APP}/users/sari/sessions")
    assert second["id"] != first["id"]
    assert second["state"] == {"user:dietary_preferences": ["vegan"]}
    reply = _parts(_send(base, "sari", second["id"], "What do you remember about me?"), "text")
    assert "vegan" in reply[-1]   # the instruction ADK built for the model held the preference
    reloaded = _http(base, "GET", f"/apps/{APP}/users/sari/sessions/{second['id']}")
    assert reloaded["state"]["user:dietary_preferences"] == ["vegan"]
    assert "current_order" not in reloaded["state"]
    listed = _http(base, "GET", f"/apps/{APP}/users/sari/sessions")
    assert {s["id"] for s in listed} == {first["id"], second["id"]}
    other = _http(base, "POST", f"/apps/{APP}/users/tomo/sessions")
    assert other["state"] == {}   # user: state is per user

  assert _labs_state() == labs_before, "adk api_server wrote into labs/"


@pytest.mark.timeout(120)
def test_memory_store_forgets_on_restart():
  """The control: with ``memory://`` the same restart loses the preference."""
  logs = fresh_scratch("api_server_logs_memory")
  with api_server("memory://", logs) as base:
    first = _http(base, "POST", f"/apps/{APP}/users/sari/sessions")
    _send(base, "sari", first["id"], "I'm vegan")
    assert _http(base, "GET", f"/apps/{APP}/users/sari/sessions/{first['id']}")["state"] == {
        "user:dietary_preferences": ["vegan"]}
  with api_server("memory://", logs) as base:
    assert _http(base, "GET", f"/apps/{APP}/users/sari/sessions") == []
    assert _http(base, "POST", f"/apps/{APP}/users/sari/sessions")["state"] == {}
