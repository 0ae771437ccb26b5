"""Run ``adk api_server`` in a subprocess and talk to it over HTTP, with the standard library only.

Lesson 3 and ``tests/test_api_server.py`` both start ADK's real command line, stop it and start it
again, so the plumbing lives here once: a free local port, a log file (whose tail, passwords
masked, is the error message when the server does not come up), bounded waits, a stop that
always ends the process, and small JSON helpers over ``urllib``. What the lesson teaches (the
flags, the endpoints, what the server remembers) stays visible in the notebook and the test.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shlex
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator, Optional

from .secrets import mask_secrets

START_TIMEOUT = 60.0   # seconds until the server must answer its first request
STOP_TIMEOUT = 15.0    # seconds to wait after SIGTERM before killing
HTTP_TIMEOUT = 60.0    # seconds for one request (a /run turn included)
LOG_TAIL = 3000        # characters of the log shown when the server fails

_running: set["ApiServer"] = set()


class ApiServerError(RuntimeError):
  """``adk api_server`` exited or did not answer in time; the message ends with its log."""


def adk_command() -> str:
  """The ``adk`` executable of this environment (next to its Python), else the one on PATH."""
  beside = Path(sys.executable).with_name("adk")
  found = str(beside) if beside.exists() else shutil.which("adk")
  if not found:
    raise ApiServerError("the adk command line is not installed (pip install google-adk)")
  return found


def free_port(host: str = "127.0.0.1") -> int:
  """A port nobody listens on right now (the OS picks it), for a server about to start."""
  with socket.socket() as probe:
    probe.bind((host, 0))
    return probe.getsockname()[1]


def port_open(port: int, host: str = "127.0.0.1") -> bool:
  """Whether something accepts connections on ``host:port``: how to tell a server is gone."""
  with socket.socket() as probe:
    probe.settimeout(1)
    return probe.connect_ex((host, port)) == 0


def http_json(base_url: str, method: str, path: str, body: Any = None,
              timeout: float = HTTP_TIMEOUT) -> Any:
  """One JSON request; the parsed JSON answer (``None`` for an empty body).

  HTTP errors raise ``urllib.error.HTTPError`` with the server's answer appended to the
  message, because FastAPI puts the reason there (a 404's "Session not found", a 422's
  validation details).
  """
  data = None if body is None else json.dumps(body).encode()
  request = urllib.request.Request(base_url + path, data=data, method=method,
                                   headers={"Content-Type": "application/json"})
  try:
    with urllib.request.urlopen(request, timeout=timeout) as response:
      return json.loads(response.read() or b"null")
  except urllib.error.HTTPError as error:
    detail = error.read().decode(errors="replace")[:500]
    raise urllib.error.HTTPError(error.url, error.code, f"{error.msg}: {detail}", error.headers,
                                 None) from None


@dataclass(eq=False)
class ApiServer:
  """A running ``adk api_server`` process: where it answers and where it logs."""

  process: subprocess.Popen
  port: int
  log_path: Path
  host: str = "127.0.0.1"
  command: list[str] = field(default_factory=list)
  stopped: bool = field(default=False, init=False)

  def command_line(self, **shown_values: str) -> str:
    """The command this server runs, as a student types it in a terminal: ``adk`` for the
    environment's executable, the agents folder by its name, the free port as ``PORT`` (it
    changes on every start), URL passwords masked. ``shown_values`` replaces an option's value
    for display, e.g. ``session_service_uri="postgresql+asyncpg://.../cafe"``."""
    shown = {"port": "PORT", **shown_values}
    words = [Path(word).name if index in (0, len(self.command) - 1) else word
             for index, word in enumerate(self.command)]
    words = [shown.get(words[index - 1].removeprefix("--"), word) if index else word
             for index, word in enumerate(words)]
    return mask_secrets(shlex.join(words))

  @property
  def base_url(self) -> str:
    return f"http://{self.host}:{self.port}"

  def get(self, path: str) -> Any:
    return http_json(self.base_url, "GET", path)

  def post(self, path: str, body: Any = None) -> Any:
    return http_json(self.base_url, "POST", path, body)

  def run(self, app_name: str, user_id: str, session_id: str, text: str) -> list[dict]:
    """``POST /run``: one user message to the agent; every event of the turn, as JSON."""
    return self.post("/run", {"app_name": app_name, "user_id": user_id, "session_id": session_id,
                              "new_message": {"role": "user", "parts": [{"text": text}]}})

  def log_tail(self, chars: int = LOG_TAIL) -> str:
    """The end of the server's output, with URL passwords and API keys masked."""
    try:
      text = self.log_path.read_text(errors="replace")
    except OSError:
      return "(no log)"
    return mask_secrets(text[-chars:])

  def stop(self, timeout: float = STOP_TIMEOUT) -> None:
    """Stop the server (SIGTERM, then SIGKILL after ``timeout``) and wait until it is gone."""
    if self.process.poll() is None:
      self.process.terminate()
      try:
        self.process.wait(timeout=timeout)
      except subprocess.TimeoutExpired:
        self.process.kill()
        self.process.wait(timeout=timeout)
    self.stopped = True
    _running.discard(self)


def start_api_server(agents_dir: Path | str, session_service_uri: str, log_dir: Path | str, *,
                     artifact_service_uri: str = "memory://", host: str = "127.0.0.1",
                     timeout: float = START_TIMEOUT, cwd: Optional[Path | str] = None,
                     extra_args: tuple[str, ...] = ()) -> ApiServer:
  """Start ``adk api_server AGENTS_DIR`` on a free port and return once it answers.

  ``--session_service_uri`` is required on purpose: without it ADK writes
  ``<agents_dir>/<app>/.adk/session.db``. ``--artifact_service_uri memory://`` keeps ADK's
  default artifact folder out of the agents folder too. A relative ``agents_dir`` is taken from
  the current directory; the process runs in ``cwd`` (default: ``log_dir``), so a relative
  ``sqlite:///sessions.db`` lands in scratch space, not in the repository. Raises
  ``ApiServerError`` with the tail of the log when the server exits or stays silent.
  """
  agents_dir = Path(agents_dir).resolve()   # absolute: the server runs in another folder
  log_dir = Path(log_dir).resolve()
  log_dir.mkdir(parents=True, exist_ok=True)
  port = free_port(host)
  command = [adk_command(), "api_server", "--host", host, "--port", str(port), "--no-reload",
             "--session_service_uri", session_service_uri,
             "--artifact_service_uri", artifact_service_uri, *extra_args, str(agents_dir)]
  log_path = log_dir / f"api_server-{port}.log"
  env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}   # no __pycache__ in the agents folder
  with open(log_path, "wb") as log:
    process = subprocess.Popen(command, cwd=str(cwd or log_dir), stdout=log,
                               stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env)
  server = ApiServer(process=process, port=port, log_path=log_path, host=host, command=command)
  _running.add(server)
  deadline = time.monotonic() + timeout
  while True:
    if process.poll() is not None:
      server.stop()
      raise ApiServerError(f"adk api_server exited with code {process.returncode}; "
                           f"the end of its log:\n{server.log_tail()}")
    try:
      server.get("/list-apps")
      return server
    except (urllib.error.URLError, ConnectionError, socket.timeout):
      if time.monotonic() > deadline:
        server.stop()
        raise ApiServerError(f"adk api_server did not answer within {timeout:.0f} s; "
                             f"the end of its log:\n{server.log_tail()}") from None
      time.sleep(0.2)


@contextlib.contextmanager
def running_api_server(agents_dir: Path | str, session_service_uri: str, log_dir: Path | str,
                       **options: Any) -> Iterator[ApiServer]:
  """``start_api_server`` as a context manager: the server is stopped however the block ends."""
  server = start_api_server(agents_dir, session_service_uri, log_dir, **options)
  try:
    yield server
  finally:
    server.stop()


def parts(events: list[dict], kind: str) -> list[Any]:
  """The parts of one kind (``"text"``, ``"functionCall"``, ``"functionResponse"``) of events."""
  return [part[kind] for event in events
          for part in (event.get("content") or {}).get("parts", []) if kind in part]


@atexit.register
def _stop_all() -> None:
  """A notebook kernel or test run that ends without stopping a server still stops it."""
  for server in list(_running):
    server.stop(timeout=5)
