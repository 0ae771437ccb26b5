"""``docs/troubleshooting.md`` ("When memory goes wrong") quotes what ADK really says.

Every entry of the page starts with ``<a id="..."></a>``; its ```` ```text ```` blocks are the
messages, exactly as ADK 2.13 raises or logs them. Each test below produces one entry's messages
on the installed ADK and asserts that the page quotes *those messages, in that order, and no
others* (ids, paths and memory addresses masked as ``<session id>``, ``<agents dir>`` and
``0x…``). A last group of tests checks the page itself: every entry has a test and the four
parts (symptom, cause, fix, lesson), every ADK file and function it names exists, every lesson
it links to exists. So when ADK changes a message, a test fails and says which entry to update.

Stores: in-memory, ``SqliteSessionService`` and ``DatabaseSessionService`` on SQLite
(``sqlite+aiosqlite``) everywhere; ``DatabaseSessionService`` on the course's embedded
PostgreSQL (or ``ADKCOURSE_POSTGRES_URL``) where the page says the message is the same there.
Vertex AI entries run with the API client replaced by a stub (no network here); the page says so.
"""

from __future__ import annotations

import asyncio
import datetime
import logging
import os
import re
import subprocess
import sys
import textwrap
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

import google.adk
import pytest
from google.adk.agents import LlmAgent, SequentialAgent
from google.adk.errors import StaleSessionError
from google.adk.errors.already_exists_error import AlreadyExistsError
from google.adk.errors.session_not_found_error import SessionNotFoundError
from google.adk.events import Event, EventActions
from google.adk.runners import Runner
from google.adk.sessions import DatabaseSessionService, InMemorySessionService
from google.adk.sessions.sqlite_session_service import SqliteSessionService
from google.genai import types
from pydantic import BaseModel

from adkcourse.offline_model import OfflineModel, fallback, on_user

ROOT = Path(__file__).resolve().parent.parent
PAGE_PATH = ROOT / "docs" / "troubleshooting.md"
ADK = Path(google.adk.__file__).parent          # .../site-packages/google/adk
SITE = ADK.parent.parent                        # .../site-packages

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
ADDRESS = re.compile(r" at 0x[0-9a-f]+>")


# --- the page --------------------------------------------------------------------------------

@dataclass
class Entry:
  id: str
  text: str
  blocks: list[str] = field(default_factory=list)


def parse_page(text: str) -> dict[str, Entry]:
  """The entries of the page by id: each from its ``<a id>`` anchor to the next one."""
  pieces = re.split(r'^<a id="([a-z0-9-]+)"></a>\s*$', text, flags=re.MULTILINE)
  entries: dict[str, Entry] = {}
  for entry_id, body in zip(pieces[1::2], pieces[2::2]):
    assert entry_id not in entries, f"two entries with id {entry_id!r}"
    blocks = re.findall(r"^```text\n(.*?)\n```$", body, flags=re.MULTILINE | re.DOTALL)
    entries[entry_id] = Entry(entry_id, body, blocks)
  return entries


PAGE_TEXT = PAGE_PATH.read_text(encoding="utf-8")
PAGE = parse_page(PAGE_TEXT)
TESTED: dict[str, str] = {}   # entry id -> name of the test that produces it


def entry(entry_id: str) -> Callable:
  """Marks the test that produces the messages of entry ``entry_id``."""
  def mark(test: Callable) -> Callable:
    TESTED[entry_id] = test.__name__
    return test
  return mark


def mask(text: str, **values: str) -> str:
  """``text`` with run-specific parts replaced: given values by ``<name with spaces>``, uuids
  by ``<session id>``, memory addresses by ``0x…``."""
  for name, value in values.items():
    text = text.replace(value, f"<{name.replace('_', ' ')}>")
  return ADDRESS.sub(" at 0x…>", UUID.sub("<session id>", text))


def printed(error: BaseException) -> str:
  """The last line of the traceback Python prints for ``error``."""
  return traceback.format_exception_only(error)[-1].rstrip("\n")


def assert_quoted(entry_id: str, produced: list[str]) -> None:
  """The page's entry quotes exactly ``produced``, in order."""
  assert entry_id in PAGE, f"docs/troubleshooting.md has no entry <a id=\"{entry_id}\">"
  quoted = PAGE[entry_id].blocks
  assert quoted == produced, (
      f"entry {entry_id!r} of docs/troubleshooting.md is stale.\nThe page quotes:\n"
      + "\n---\n".join(quoted) + "\nADK now says:\n" + "\n---\n".join(produced))


def logged(caplog, logger_prefix: str = "google_adk") -> list[logging.LogRecord]:
  return [r for r in caplog.records if r.name.startswith(logger_prefix)]


def user(text: str) -> types.Content:
  return types.Content(role="user", parts=[types.Part(text=text)])


async def drive(runner: Runner, user_id: str, session_id: str, text: str, **kwargs) -> list[Event]:
  return [event async for event in runner.run_async(user_id=user_id, session_id=session_id,
                                                    new_message=user(text), **kwargs)]


def offline_agent(name: str = "cafe_concierge", instruction: str = "Serve the customer.",
                  **kwargs) -> LlmAgent:
  return LlmAgent(name=name, model=OfflineModel(rules=[fallback("Welcome!")]),
                  instruction=instruction, **kwargs)


# --- stores ----------------------------------------------------------------------------------

_POSTGRES: dict[str, str] = {}


@pytest.fixture
def store(request) -> tuple[str, str | None]:
  """``(store, url)``; for PostgreSQL, one fresh database on the course's server (embedded, or
  ADKCOURSE_POSTGRES_URL) for the whole module."""
  if request.param == "database-postgres" and "url" not in _POSTGRES:
    from adkcourse.postgres import fresh_database
    _POSTGRES["url"] = asyncio.run(fresh_database("troubleshooting"))
  return request.param, _POSTGRES.get("url") if request.param == "database-postgres" else None


STORES = ["memory", "sqlite", "database-sqlite", "database-postgres"]


def make_service(store: tuple[str, str | None], folder: Path, name: str = "s"):
  store, postgres_url = store
  if store == "memory":
    return InMemorySessionService()
  if store == "sqlite":
    return SqliteSessionService(str(folder / f"{name}.db"))
  if store == "database-sqlite":
    return DatabaseSessionService(f"sqlite+aiosqlite:///{folder / f'{name}_database.db'}")
  if store == "database-postgres":
    return DatabaseSessionService(postgres_url)
  raise ValueError(store)


async def close(service) -> None:
  if isinstance(service, DatabaseSessionService):
    await service.close()


@pytest.fixture
def own_imports(monkeypatch):
  """ADK's agent loader imports the test's agent folders as top-level modules and puts their
  folder on sys.path: undo both, so no other test finds these modules."""
  monkeypatch.setattr(sys, "path", list(sys.path))
  before = set(sys.modules)
  yield
  for name in set(sys.modules) - before:
    if name.partition(".")[0] in ("cafe", "cafe_host"):
      del sys.modules[name]


# --- the entries -----------------------------------------------------------------------------

@entry("session-not-found")
async def test_session_not_found(tmp_path, caplog, own_imports):
  service = InMemorySessionService()
  session = await service.create_session(app_name="cafe", user_id="ana")
  produced = []

  # The Runner looks the session up under ITS app name and the user id of the call.
  wrong_app = Runner(agent=offline_agent(), app_name="cafe_concierge", session_service=service)
  with pytest.raises(SessionNotFoundError) as wrong:
    await drive(wrong_app, "ana", session.id, "Hi")
  produced.append(mask(printed(wrong.value)))
  right_app = Runner(agent=offline_agent(), app_name="cafe", session_service=service)
  with pytest.raises(SessionNotFoundError) as wrong_user:
    await drive(right_app, "ben", session.id, "Hi")
  assert mask(printed(wrong_user.value)) == produced[0]
  assert isinstance(wrong.value, ValueError)            # old `except ValueError` still catches it
  await drive(right_app, "ana", session.id, "Hi")                   # the right pair works
  assert len((await service.get_session(app_name="cafe", user_id="ana",
                                        session_id=session.id)).events) == 2

  # An agent loaded from a folder (as adk web/run/api_server do) names the app it expects.
  agents_dir = tmp_path / "agents"
  (agents_dir / "cafe_host").mkdir(parents=True)
  (agents_dir / "cafe_host" / "__init__.py").write_text("from . import agent\n")
  (agents_dir / "cafe_host" / "agent.py").write_text(textwrap.dedent("""\
      from google.adk.agents import LlmAgent
      from adkcourse.offline_model import OfflineModel, fallback
      root_agent = LlmAgent(name="cafe_host", model=OfflineModel(rules=[fallback("Hi")]))
      """))
  from google.adk.cli.utils.agent_loader import AgentLoader
  loaded = AgentLoader(str(agents_dir)).load_agent("cafe_host")
  caplog.set_level(logging.WARNING, logger="google_adk")
  mismatched = Runner(agent=loaded, app_name="cafe", session_service=service)
  [warning] = [r for r in logged(caplog) if "mismatch" in r.getMessage()]
  assert warning.levelname == "WARNING" and warning.name == "google_adk.google.adk.runners"
  produced.append(mask(warning.getMessage(), agents_dir=str(agents_dir)))
  other = await service.create_session(app_name="cafe_host", user_id="ana")
  with pytest.raises(SessionNotFoundError) as hinted:
    await drive(mismatched, "ana", other.id, "Hi")
  produced.append(mask(printed(hinted.value), agents_dir=str(agents_dir)))

  # The fix the message names: auto_create_session creates it, with the caller's id.
  creating = Runner(agent=offline_agent(), app_name="cafe", session_service=service,
                    auto_create_session=True)
  await drive(creating, "ben", "ben-table-4", "Hi")
  made = await service.get_session(app_name="cafe", user_id="ben", session_id="ben-table-4")
  assert made is not None and len(made.events) == 2
  assert_quoted("session-not-found", produced)


@entry("session-already-exists")
@pytest.mark.parametrize("store", STORES, indirect=True)
async def test_session_already_exists(store, tmp_path, own_imports):
  service = make_service(store, tmp_path)
  try:
    await service.create_session(app_name="cafe", user_id="ana", session_id="table-7")
    with pytest.raises(AlreadyExistsError) as twice:
      await service.create_session(app_name="cafe", user_id="ana", session_id="table-7")
    # The id is unique per app and user only: another user may have a table-7 of their own.
    await service.create_session(app_name="cafe", user_id="ben", session_id="table-7")
  finally:
    await close(service)
  produced = [printed(twice.value)]

  if store[0] == "memory":    # what `adk api_server` answers, through its real FastAPI app
    from fastapi.testclient import TestClient
    from google.adk.cli.fast_api import get_fast_api_app
    agents_dir = tmp_path / "agents"
    (agents_dir / "cafe").mkdir(parents=True)
    (agents_dir / "cafe" / "__init__.py").write_text(
        "from google.adk.agents import LlmAgent\n"
        "from adkcourse.offline_model import OfflineModel, fallback\n"
        "root_agent = LlmAgent(name='cafe', model=OfflineModel(rules=[fallback('Hi')]))\n")
    app = get_fast_api_app(agents_dir=str(agents_dir), session_service_uri="memory://",
                           use_local_storage=False, web=False)
    with TestClient(app) as client:
      first = client.post("/apps/cafe/users/ana/sessions", json={"session_id": "table-7"})
      again = client.post("/apps/cafe/users/ana/sessions", json={"session_id": "table-7"})
      by_path = client.post("/apps/cafe/users/ana/sessions/table-7", json={})
    assert first.status_code == 200 and first.json()["id"] == "table-7"
    assert by_path.status_code == again.status_code == 409 and by_path.text == again.text
    produced.append(f"HTTP/1.1 {again.status_code} {again.reason_phrase}\n{again.text}")
  else:
    produced += PAGE["session-already-exists"].blocks[1:]   # the API server is checked once
  assert_quoted("session-already-exists", produced)


class Order(BaseModel):
  item: str
  total: float


def brew() -> str:
  return "espresso"


# What each value is, read back: the table of the page (column 2: in memory, column 3: the
# other stores after a reload).
NON_JSON_VALUES = {
    "a Pydantic model": Order(item="latte", total=3.5),
    "a datetime": datetime.datetime(2026, 12, 1, 9, 30),
    "a set": {"oat"},
    "a function": brew,
}


def _non_json_rows() -> dict[str, tuple[str, str]]:
  rows = {}
  for line in PAGE["non-json-state"].text.splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) == 3 and cells[0] in NON_JSON_VALUES:
      rows[cells[0]] = (cells[1].strip("`"), cells[2].strip("`"))
  return rows


@entry("non-json-state")
@pytest.mark.parametrize("store", STORES, indirect=True)
async def test_non_json_state(store, tmp_path, caplog):
  caplog.set_level(logging.WARNING, logger="google_adk")
  service = make_service(store, tmp_path)
  read_back = {}
  try:
    for label, value in NON_JSON_VALUES.items():
      # Through create_session's state ...
      created = await service.create_session(app_name="cafe", user_id="ana",
                                             state={"value": value})
      reloaded = await service.get_session(app_name="cafe", user_id="ana", session_id=created.id)
      # ... and through an event's state_delta (a tool's tool_context.state[...] = value).
      session = await service.create_session(app_name="cafe", user_id="ana")
      await service.append_event(session, Event(author="cafe", invocation_id="i",
                                                actions=EventActions(state_delta={"v": value})))
      assert session.state["v"] is value     # the object in hand keeps the object, on every store
      again = await service.get_session(app_name="cafe", user_id="ana", session_id=session.id)
      assert mask(repr(again.state["v"])) == mask(repr(reloaded.state["value"])), label
      read_back[label] = mask(repr(reloaded.state["value"]))
  finally:
    await close(service)
  rows = _non_json_rows()
  assert set(rows) == set(NON_JSON_VALUES), "the page's table lists other values"
  column = 0 if store[0] == "memory" else 1
  assert {label: row[column] for label, row in rows.items()} == read_back
  warnings = [r for r in logged(caplog) if r.getMessage().startswith("Failed to serialize")]
  if store[0] == "memory":
    assert warnings == []          # the in-memory store keeps the objects: no warning at all
    return
  assert {r.name for r in warnings} == {"google_adk.google.adk.sessions._session_util",
                                        "google_adk.google.adk.events.event_actions"}
  assert all(r.levelname == "WARNING" and r.exc_info for r in warnings)
  produced = list(dict.fromkeys(r.getMessage() for r in warnings))
  produced.append(mask(printed(warnings[0].exc_info[1])))   # the traceback's last line
  assert_quoted("non-json-state", produced)


@entry("temp-state")
@pytest.mark.parametrize("store", ["memory", "sqlite"], indirect=True)
async def test_temp_state(store, tmp_path, caplog):
  service = make_service(store, tmp_path)
  seen = []
  host = LlmAgent(name="host", instruction="Table {temp:table}.",
                  model=OfflineModel(rules=[fallback(lambda t: seen.append(t.instruction) or "Hi")]),
                  output_key="temp:greeting")
  barista = LlmAgent(name="barista", instruction="The host said: {temp:greeting?}",
                     model=OfflineModel(rules=[fallback(lambda t: seen.append(t.instruction) or "Ok")]))
  runner = Runner(agent=SequentialAgent(name="cafe", sub_agents=[host, barista]),
                  app_name="cafe", session_service=service)
  session = await service.create_session(app_name="cafe", user_id="ana")
  events = await drive(runner, "ana", session.id, "Hi", state_delta={"temp:table": 7, "mood": "ok"})
  # Within the invocation, temp: works: the host sees run_async's state_delta, the barista
  # sees the host's output_key="temp:greeting" ...
  assert seen[0].startswith("Table 7.") and "The host said: [offline model] Hi" in seen[1]
  # ... but nothing temp: is stored, not even in the events run_async yields.
  assert all(not any(k.startswith("temp:") for k in e.actions.state_delta) for e in events)
  stored = await service.get_session(app_name="cafe", user_id="ana", session_id=session.id)
  assert stored.state == {"mood": "ok"}
  assert [e.actions.state_delta for e in stored.events] == [{"mood": "ok"}, {}, {}]
  # The next turn: {temp:table} without `?` is a missing key.
  caplog.set_level(logging.CRITICAL + 1, logger="google_adk")
  with pytest.raises(KeyError) as missing:
    await drive(runner, "ana", session.id, "Again")
  assert_quoted("temp-state", [printed(missing.value)])


@entry("vertex-needs-gcp-extra")
def test_vertex_needs_the_gcp_extra(monkeypatch):
  monkeypatch.setitem(sys.modules, "agentplatform", None)   # as without google-adk[gcp]
  from google.adk.sessions import VertexAiSessionService
  with pytest.raises(ImportError) as missing:
    VertexAiSessionService(project="my-project", location="us-central1")
  assert_quoted("vertex-needs-gcp-extra", [printed(missing.value)])


class _StubSessions:
  """What VertexAiSessionService calls on ``client.sessions``, answering as the API does: a
  created session resource; a 404 ClientError for an unknown one."""

  def __init__(self):
    self.created: dict[str, Any] = {}
    self.events = SimpleNamespace(list=self._list_events)

  async def create(self, *, name, user_id, config):
    from google.genai.errors import ClientError
    session_id = config.get("session_id", "4781239087123")
    if session_id in self.created:   # the stub refuses a duplicate, as a conflict (409)
      raise ClientError(409, {"error": {"code": 409, "status": "ALREADY_EXISTS",
                                        "message": "Session already exists."}})
    resource = SimpleNamespace(name=f"{name}/sessions/{session_id}", user_id=user_id,
                               session_state=config.get("session_state"),
                               update_time=datetime.datetime.now(datetime.timezone.utc))
    self.created[session_id] = resource
    return SimpleNamespace(response=resource)

  async def get(self, *, name):
    from google.genai.errors import ClientError
    session_id = name.rsplit("/", 1)[-1]
    if session_id not in self.created:
      raise ClientError(404, {"error": {"code": 404, "status": "NOT_FOUND",
                                        "message": f"{name} not found."}})
    return self.created[session_id]

  async def _list_events(self, *, name, **kwargs):
    async def nothing():
      return
      yield
    return nothing()


@entry("vertex-differences")
async def test_vertex_differences():
  from google.adk.sessions import VertexAiSessionService
  from google.genai.errors import ClientError

  class StubbedVertex(VertexAiSessionService):
    """The real service, with no agentplatform import and a stub for the API client."""

    def __init__(self):   # noqa: D107 (skips the import of google-cloud-agentplatform)
      self._project, self._location, self._agent_engine_id = "my-project", "us-central1", None
      self._express_mode_api_key = None
      self._stub = SimpleNamespace(sessions=_StubSessions())

    def _get_api_client(self):
      return self._stub

  vertex, produced = StubbedVertex(), []
  with pytest.raises(ValueError) as app_name:          # the app name is the Agent Engine
    await vertex.create_session(app_name="cafe", user_id="ana")
  produced.append(printed(app_name.value))
  engine = "1234567890"
  with pytest.raises(ValueError) as bad_id:            # ids: letters, digits, - and _ only
    await vertex.create_session(app_name=engine, user_id="ana", session_id="table.7")
  produced.append(printed(bad_id.value))
  with pytest.raises(ValueError) as both:
    await vertex.create_session(app_name=engine, user_id="ana", ttl="7200s",
                                expire_time="2026-12-31T00:00:00Z")
  produced.append(printed(both.value))
  chosen = await vertex.create_session(app_name=engine, user_id="ana", session_id="table-7",
                                       ttl="7200s")
  assert chosen.id == "table-7"                        # a caller-chosen id is passed on
  assert vertex._stub.sessions.created["table-7"].name.endswith("/sessions/table-7")
  with pytest.raises(ClientError) as conflict:         # not translated to AlreadyExistsError
    await vertex.create_session(app_name=engine, user_id="ana", session_id="table-7")
  assert not isinstance(conflict.value, AlreadyExistsError)
  assert await vertex.get_session(app_name=engine, user_id="ana", session_id="nope") is None
  with pytest.raises(ValueError) as not_hers:          # others return None for a wrong user
    await vertex.get_session(app_name=engine, user_id="ben", session_id="table-7")
  produced.append(printed(not_hers.value))
  with pytest.raises(TypeError) as no_ttl:             # the local stores take no ttl at all
    await InMemorySessionService().create_session(app_name="cafe", user_id="ana", ttl="7200s")
  produced.append(printed(no_ttl.value))
  memory = InMemorySessionService()
  await memory.create_session(app_name="cafe", user_id="ana", session_id="table-7")
  assert await memory.get_session(app_name="cafe", user_id="ben", session_id="table-7") is None
  assert_quoted("vertex-differences", produced)


@entry("stale-session")
@pytest.mark.parametrize("store", ["sqlite", "database-sqlite", "database-postgres"], indirect=True)
async def test_stale_session(store, tmp_path):
  first, second = (make_service(store, tmp_path) for _ in range(2))
  try:
    created = await first.create_session(app_name="cafe", user_id="ana")
    on_first = await first.get_session(app_name="cafe", user_id="ana", session_id=created.id)
    on_second = await second.get_session(app_name="cafe", user_id="ana", session_id=created.id)
    await asyncio.sleep(0.01)    # SQLite compares timestamps: let the clock move
    await first.append_event(on_first, Event(author="cafe", invocation_id="a"))
    with pytest.raises(StaleSessionError) as stale:
      await second.append_event(on_second, Event(author="cafe", invocation_id="b"))
    assert isinstance(stale.value, ValueError)
    fresh = await second.get_session(app_name="cafe", user_id="ana", session_id=created.id)
    await second.append_event(fresh, Event(author="cafe", invocation_id="b"))   # the fix
    stored = await first.get_session(app_name="cafe", user_id="ana", session_id=created.id)
    assert [e.invocation_id for e in stored.events] == ["a", "b"]
  finally:
    await close(first)
    await close(second)
  blocks = PAGE["stale-session"].blocks
  produced = [printed(stale.value)] + blocks[1:] if store[0] != "sqlite" else blocks[:1] + [
      printed(stale.value)]
  assert_quoted("stale-session", produced)


@entry("app-state-missing")
async def test_app_state_missing(tmp_path):
  native = SqliteSessionService(str(tmp_path / "tutor.db"))
  await native.create_session(app_name="tutor", user_id="ana", state={"level": 2})
  wrong = DatabaseSessionService(f"sqlite+aiosqlite:///{tmp_path / 'tutor.db'}")
  try:
    [session] = (await wrong.list_sessions(app_name="tutor", user_id="ana")).sessions
    with pytest.raises(ValueError) as missing:
      await wrong.append_event(session, Event(author="user", invocation_id="i"))
  finally:
    await wrong.close()
  assert_quoted("app-state-missing", [printed(missing.value)])


NO_SQLALCHEMY = """
import sys
class NoSqlalchemy:   # as after `pip install google-adk` without [db]
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] == "sqlalchemy":
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, NoSqlalchemy())
"""


@entry("missing-db-extra")
def test_missing_db_extra(tmp_path):
  agents_dir = tmp_path / "agents"
  (agents_dir / "cafe").mkdir(parents=True)
  (agents_dir / "cafe" / "__init__.py").write_text("")
  cli = NO_SQLALCHEMY + "from google.adk.cli import main\nsys.argv[0] = 'adk'\nsys.exit(main())\n"
  crashed = subprocess.run(
      [sys.executable, "-c", cli, "api_server", "--port", "0", "--session_service_uri",
       "postgresql+asyncpg://course@localhost/cafe", str(agents_dir)],
      capture_output=True, text=True, timeout=120, cwd=tmp_path)
  assert crashed.returncode == 1, crashed.stderr[-2000:]
  assert "create_session_service_from_options" in crashed.stderr
  in_python = subprocess.run(
      [sys.executable, "-c", NO_SQLALCHEMY + "from google.adk.sessions import DatabaseSessionService"],
      capture_output=True, text=True, timeout=120, cwd=tmp_path)
  assert in_python.returncode == 1
  assert_quoted("missing-db-extra", [crashed.stderr.strip().splitlines()[-1],
                                     in_python.stderr.strip().splitlines()[-1]])


@entry("wrong-database-url")
def test_wrong_database_url(tmp_path, monkeypatch):
  monkeypatch.chdir(tmp_path)
  produced = []
  for url in ["sqlite+pysqlite:///sessions.db", "postgresql://course@localhost/cafe"]:
    with pytest.raises(ValueError) as refused:
      DatabaseSessionService(url)
    produced.append(printed(refused.value))
  assert refused.value.__cause__.name == "psycopg"        # SQLAlchemy's async default driver
  assert list(tmp_path.iterdir()) == []                   # refused before any file is made
  assert_quoted("wrong-database-url", produced)


@entry("no-artifact-service")
async def test_no_artifact_service():
  async def save_note(text: str, tool_context) -> dict:
    """Keeps the customer's note as a file."""
    version = await tool_context.save_artifact("note.txt", types.Part(text=text))
    return {"version": version}

  agent = LlmAgent(name="cafe", instruction="Keep notes.", tools=[save_note],
                   model=OfflineModel(rules=[on_user("note", call="save_note",
                                                     args=lambda m, t: {"text": t.user_text}),
                                             fallback("Noted.")]))
  service = InMemorySessionService()
  session = await service.create_session(app_name="cafe", user_id="ana")
  bare = Runner(agent=agent, app_name="cafe", session_service=service)   # no artifact_service
  with pytest.raises(ValueError) as raised:
    await drive(bare, "ana", session.id, "A note: no sugar")
  from google.adk.artifacts import InMemoryArtifactService
  fixed = Runner(agent=agent, app_name="cafe", session_service=service,
                 artifact_service=InMemoryArtifactService())
  await drive(fixed, "ana", session.id, "A note: no sugar")
  assert await fixed.artifact_service.list_artifact_keys(
      app_name="cafe", user_id="ana", session_id=session.id) == ["note.txt"]
  assert_quoted("no-artifact-service", [printed(raised.value)])


@entry("missing-state-key")
async def test_missing_state_key(caplog):
  caplog.set_level(logging.CRITICAL + 1, logger="google_adk")
  service = InMemorySessionService()
  strict = Runner(agent=offline_agent("strict", "Greet the customer by nickname: {user:nickname}"),
                  app_name="cafe", session_service=service)
  session = await service.create_session(app_name="cafe", user_id="dan")
  with pytest.raises(KeyError) as missing:
    await drive(strict, "dan", session.id, "Hi")
  failed = await service.get_session(app_name="cafe", user_id="dan", session_id=session.id)
  assert failed.events[-1].error_code == "KeyError"     # an error event was stored first
  lenient = Runner(agent=offline_agent("lenient", "Greet the customer by nickname: {user:nickname?}"),
                   app_name="cafe", session_service=service)
  await drive(lenient, "dan", session.id, "Hi")                     # `?`: an empty string
  assert (await service.get_session(app_name="cafe", user_id="dan",
                                    session_id=session.id)).events[-1].author == "lenient"
  assert_quoted("missing-state-key", [printed(missing.value)])


@entry("uncached-transfer")
def test_uncached_transfer_warning(caplog, monkeypatch):
  from google.adk import runners
  from google.adk.agents.context_cache_config import ContextCacheConfig
  from google.adk.apps import App
  monkeypatch.setattr(runners, "_UNCACHED_TRANSFER_APPS", set())   # it warns once per app name

  def team():
    return offline_agent("host", sub_agents=[offline_agent("barista")])

  caplog.set_level(logging.WARNING, logger="google_adk")
  Runner(agent=team(), app_name="host", session_service=InMemorySessionService())
  [warning] = [r for r in logged(caplog) if "context_cache_config" in r.getMessage()]
  assert warning.levelname == "WARNING" and warning.name == "google_adk.google.adk.runners"
  caplog.clear()
  Runner(app=App(name="cached", root_agent=team(), context_cache_config=ContextCacheConfig()),
         session_service=InMemorySessionService())
  Runner(agent=offline_agent("alone"), app_name="alone", session_service=InMemorySessionService())
  assert [r for r in logged(caplog) if "context_cache_config" in r.getMessage()] == []
  assert_quoted("uncached-transfer", [warning.getMessage()])


@entry("event-appended-twice")
async def test_event_appended_twice(tmp_path):
  import sqlite3
  event = Event(author="cafe", invocation_id="twice", actions=EventActions(state_delta={"t": 5}))
  memory = InMemorySessionService()
  in_memory = await memory.create_session(app_name="cafe", user_id="ana")
  for _ in range(2):
    await memory.append_event(in_memory, event)
  stored = await memory.get_session(app_name="cafe", user_id="ana", session_id=in_memory.id)
  assert len(stored.events) == 1                        # dropped without a word
  sqlite_service = SqliteSessionService(str(tmp_path / "twice.db"))
  in_file = await sqlite_service.create_session(app_name="cafe", user_id="ana")
  await sqlite_service.append_event(in_file, event)
  with pytest.raises(sqlite3.IntegrityError) as refused:
    await sqlite_service.append_event(in_file, event)
  database = DatabaseSessionService(f"sqlite+aiosqlite:///{tmp_path / 'twice_db.db'}")
  try:
    in_db = await database.create_session(app_name="cafe", user_id="ana")
    await database.append_event(in_db, event)
    with pytest.raises(Exception) as refused_db:
      await database.append_event(in_db, event)
  finally:
    await database.close()
  db_line = printed(refused_db.value).splitlines()[0]
  assert_quoted("event-appended-twice", [printed(refused.value), db_line])


# --- the page itself -------------------------------------------------------------------------

def test_every_entry_has_a_test_and_every_test_an_entry():
  assert list(PAGE) and set(PAGE) == set(TESTED), (
      f"entries without a test: {sorted(set(PAGE) - set(TESTED))}; "
      f"tests without an entry: {sorted(set(TESTED) - set(PAGE))}")
  assert 10 <= len(PAGE) <= 14


@pytest.mark.parametrize("entry_id", sorted(PAGE))
def test_entry_shape(entry_id):
  """Symptom (a quoted message), cause (with the ADK source), fix, and the lesson."""
  text = PAGE[entry_id].text
  for part in ("Symptom", "Cause", "Fix", "Lesson"):
    assert re.search(rf"^\*\*{part}\b", text, re.MULTILINE), f"entry {entry_id!r} has no **{part}**"
  assert PAGE[entry_id].blocks, f"entry {entry_id!r} quotes no message"
  lessons = re.findall(r"\]\(\.\./notebooks/([0-9][0-9]_[a-z_]+\.ipynb)\)", text)
  assert lessons, f"entry {entry_id!r} links no lesson"
  for lesson in lessons:
    assert (ROOT / "notebooks" / lesson).is_file(), f"{entry_id}: no lesson {lesson}"


def test_the_adk_sources_named_exist():
  """Every `google/adk/...py` the page names exists in the installed ADK, and every function
  named right after it (`google/adk/x.py`, `Class.method`) is defined there."""
  pairs = re.findall(r"`(google/adk/[\w/]+\.py)`(?:, `([\w.]+)`)?", PAGE_TEXT)
  assert len(pairs) >= 10
  for path, name in pairs:
    source = SITE / path
    assert source.is_file(), f"the page names {path}, which ADK {google.adk.__version__} lacks"
    if name:
      last = name.split(".")[-1]
      assert re.search(rf"^\s*(async def|def|class) {re.escape(last)}\b|^{re.escape(last)} = ",
                       source.read_text(), re.MULTILINE), f"{path} defines no {name}"


def test_the_page_names_the_pinned_adk():
  assert f"ADK {google.adk.__version__}" in PAGE_TEXT
