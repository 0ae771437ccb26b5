"""Lesson 5 (long-term memory): its quiz, the shape of its notebook, and the ADK behaviour it
relies on, checked here too so that an ADK upgrade that changes it fails fast with a clear
message (the notebook itself runs under nbval)."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from functools import partial
from pathlib import Path

from google.adk.cli.utils.service_factory import create_memory_service_from_options
from google.adk.events import Event
from google.adk.memory import InMemoryMemoryService, SqliteMemoryService
from google.genai import types

from adkcourse.quiz.bank import check_file

import lesson_source  # tests/lesson_source.py

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "05_long_term_memory.ipynb"
_cells = partial(lesson_source.cells, NOTEBOOK)
_code = partial(lesson_source.code, NOTEBOOK)
BANK = ROOT / "quizzes" / "05_long_term_memory.yaml"


def _event(text: str, author: str = "user") -> Event:
  return Event(author=author, invocation_id="t",
               content=types.Content(role="user", parts=[types.Part(text=text)]))


def test_quiz_bank_is_valid_and_long_enough():
  bank, problems = check_file(BANK)
  assert not problems, "\n".join(map(str, problems))
  assert len(bank.questions) >= 8
  assert 'show_quiz("05_long_term_memory")' in _code()


def test_lesson_shows_each_topic_with_adk_calls_visible():
  code = _code()
  for shown in ["after_agent_callback=save_to_memory", "callback_context.add_session_to_memory()",
                "load_memory]", "PreloadMemoryTool()", "RequestRecorder()", "SqliteMemoryService(",
                "add_events_to_memory(", "delete_memory(", "delete_session(", "VALUES('optimize')",
                "VACUUM", "wal_checkpoint(TRUNCATE)", "create_memory_service_from_options(",
                "--memory_service_uri", "/memory\"", "run_exercise_checks(\"remember_with_consent\""]:
    assert shown in code, f"the lesson should show {shown}"
  assert "asyncio.run(" not in code and "Agent(" not in code


def test_lesson_stays_within_its_budget():
  from adkcourse import reading_time
  cells = _cells()
  core, further = reading_time.split_core(cells)
  assert len(core) <= 60 and further, "Going further holds the expert material"
  predicts = sum("Predict, then run" in "".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
  assert predicts >= 3


async def test_sqlite_memory_keeps_deleted_words_until_fts_optimize(tmp_path):
  """The lesson's erasure step: DELETE + VACUUM leaves the words in the FTS5 index."""
  path = tmp_path / "memory.db"
  memory = SqliteMemoryService(str(path))
  await memory.add_events_to_memory(app_name="a", user_id="u", events=[_event("zanzibarish tea")])
  await memory.add_events_to_memory(app_name="a", user_id="v", events=[_event("plain tea")])
  with closing(sqlite3.connect(path)) as c:
    c.execute("PRAGMA secure_delete = OFF")
    c.execute("DELETE FROM memory_events WHERE user_id = 'u'")
    c.commit()
    c.execute("VACUUM")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    assert b"zanzibarish" in path.read_bytes()
    c.execute("INSERT INTO memory_events_fts(memory_events_fts) VALUES('optimize')")
    c.commit()
    c.execute("VACUUM")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
  assert b"zanzibarish" not in path.read_bytes()
  assert len((await memory.search_memory(app_name="a", user_id="v", query="tea")).memories) == 1


async def test_delete_memory_in_memory_only_and_remembered():
  memory = InMemoryMemoryService()
  event = _event("hazelnut mocha")
  await memory.add_events_to_memory(app_name="a", user_id="u", events=[event], session_id="s")
  await memory.delete_memory(app_name="a", user_id="u", memory_id=event.id)
  await memory.add_events_to_memory(app_name="a", user_id="u", events=[event], session_id="s")
  assert (await memory.search_memory(app_name="a", user_id="u", query="mocha")).memories == []


def test_two_slash_memory_uri_is_a_file_path(tmp_path, monkeypatch):
  monkeypatch.chdir(tmp_path)
  three = create_memory_service_from_options(base_dir=tmp_path, memory_service_uri="sqlite:///m.db")
  two = create_memory_service_from_options(base_dir=tmp_path, memory_service_uri="sqlite://m.db")
  assert isinstance(three, SqliteMemoryService) and three._db_path == "m.db"
  assert two._db_path == "sqlite://m.db"


async def test_search_accents_limits_and_inmemory_keeps_state(tmp_path):
  """Section 7's exceptions: SQLite ignores accents, InMemory does not; 10 vs 50 results; InMemory
  keeps the whole event (state_delta included)."""
  from google.adk.events import EventActions
  sqlite, in_memory = SqliteMemoryService(str(tmp_path / "m.db")), InMemoryMemoryService()
  events = [_event("a café au lait")] + [_event(f"latte {n}") for n in range(60)]
  events[0].actions = EventActions(state_delta={"temp:draft": "hazelnut"})
  for service in (sqlite, in_memory):
    await service.add_events_to_memory(app_name="a", user_id="u", events=events, session_id="s")
  async def hits(service, query):
    return len((await service.search_memory(app_name="a", user_id="u", query=query)).memories)
  assert await hits(sqlite, "cafe") == 1 and await hits(in_memory, "cafe") == 0
  assert await hits(sqlite, "latte") == 50 and await hits(in_memory, "latte") == 10
  assert in_memory._session_events[("a", "u")]["s"][0].actions.state_delta == {"temp:draft": "hazelnut"}


async def test_add_semantics_replace_append_upsert(tmp_path):
  """Going further: InMemory add_session_to_memory replaces and add_events_to_memory appends
  without updating; SQLite upserts with both and never removes a row."""
  from google.adk.sessions import Session
  tea = [_event(f"tea {n}") for n in ("one", "two", "three")]
  edited = tea[0].model_copy(deep=True)
  edited.content.parts[0].text = "tea edited"
  results = {}
  for name, store in {"mem": InMemoryMemoryService(), "sql": SqliteMemoryService(str(tmp_path / "m.db"))}.items():
    await store.add_session_to_memory(Session(id="s", app_name="a", user_id="u", events=tea))
    await store.add_session_to_memory(Session(id="s", app_name="a", user_id="u", events=tea[:1]))
    await store.add_events_to_memory(app_name="a", user_id="u", events=[edited], session_id="s")
    found = await store.search_memory(app_name="a", user_id="u", query="tea")
    results[name] = sorted(m.content.parts[0].text for m in found.memories)
  assert results == {"mem": ["tea one"], "sql": ["tea edited", "tea three", "tea two"]}


async def test_sqlite_bm25_counts_other_apps_and_ids_are_row_ids(tmp_path):
  memory = SqliteMemoryService(str(tmp_path / "m.db"))
  mine = [_event("mocha please"), _event("latte please")]
  mine[0].timestamp, mine[1].timestamp = 1.0, 2.0
  await memory.add_events_to_memory(app_name="a", user_id="u", events=mine, session_id="s")
  async def order():
    found = (await memory.search_memory(app_name="a", user_id="u", query="latte mocha")).memories
    return [m.content.parts[0].text for m in found]
  assert await order() == ["latte please", "mocha please"]        # a bm25 tie: newest first
  await memory.add_events_to_memory(app_name="other", user_id="z", events=[_event(f"latte {n}") for n in range(20)])
  assert await order() == ["mocha please", "latte please"]        # latte became common in the file
  entry = (await memory.search_memory(app_name="a", user_id="u", query="mocha")).memories[0]
  assert entry.id.isdigit() and entry.custom_metadata == {"session_id": "s", "event_id": mine[0].id}
  assert SqliteMemoryService.__module__ == "google.adk.memory._sqlite_memory_service"


async def test_sqlite_content_json_keeps_function_call_arguments(tmp_path):
  memory = SqliteMemoryService(str(tmp_path / "m.db"))
  mixed = Event(author="m", invocation_id="t", content=types.Content(role="model", parts=[
      types.Part(text="noted"), types.Part(function_call=types.FunctionCall(name="f", args={"x": "secretword"}))]))
  await memory.add_events_to_memory(app_name="a", user_id="u", events=[mixed])
  (entry,) = (await memory.search_memory(app_name="a", user_id="u", query="noted")).memories
  assert entry.content.parts[1].function_call.args == {"x": "secretword"}
  assert (await memory.search_memory(app_name="a", user_id="u", query="secretword")).memories == []


def test_cli_memory_defaults_to_in_memory_and_uri_forms(tmp_path, monkeypatch):
  for key in [k for k in __import__("os").environ if k.startswith("GOOGLE_CLOUD")]:
    monkeypatch.delenv(key)
  monkeypatch.setenv("ADK_DISABLE_LOAD_DOTENV", "1")
  monkeypatch.chdir(tmp_path)
  assert isinstance(create_memory_service_from_options(base_dir=tmp_path), InMemoryMemoryService)
  in_ram = create_memory_service_from_options(base_dir=tmp_path, memory_service_uri="sqlite:///:memory:")
  assert isinstance(in_ram, SqliteMemoryService) and in_ram._db_path == ":memory:"
  for uri in ["agentengine://123", "rag://corpus", "redis://x", "sqlite+aiosqlite:///m.db"]:
    try:
      create_memory_service_from_options(base_dir=tmp_path, memory_service_uri=uri)
    except ValueError:
      continue
    raise AssertionError(f"{uri} should be refused without a Google Cloud project")


async def test_memory_entry_timestamp_is_local_time_without_zone(monkeypatch):
  """Section 4: a MemoryEntry's timestamp is local time with no zone, on both services (a
  check under UTC could not tell local time from UTC, so this one runs under Tokyo's zone)."""
  import time
  monkeypatch.setenv("TZ", "Asia/Tokyo")
  time.tzset()
  try:
    event = _event("latte at the epoch")
    event.timestamp = 0.0
    found = []
    for service in (InMemoryMemoryService(), SqliteMemoryService(":memory:")):
      await service.add_events_to_memory(app_name="a", user_id="u", events=[event], session_id="s")
      found.append((await service.search_memory(app_name="a", user_id="u", query="latte")).memories[0].timestamp)
      if isinstance(service, SqliteMemoryService):
        await service.close()
  finally:
    monkeypatch.undo()
    time.tzset()
  assert found == ["1970-01-01T09:00:00", "1970-01-01T09:00:00"]


async def test_in_memory_delete_memory_removes_every_copy_and_remembers_only_real_deletions():
  """Section 8: one delete_memory removes the event from every session of the (app, user); an
  id that matched nothing is not remembered, so a later add of that event is kept."""
  memory = InMemoryMemoryService()
  kept, deleted = _event("plain tea"), _event("hazelnut tea")
  await memory.delete_memory(app_name="a", user_id="u", memory_id=kept.id)      # nothing to delete yet
  for session_id in ("s1", "s2"):
    await memory.add_events_to_memory(app_name="a", user_id="u", events=[kept, deleted], session_id=session_id)
  await memory.delete_memory(app_name="a", user_id="u", memory_id=deleted.id)
  await memory.add_events_to_memory(app_name="a", user_id="u", events=[deleted], session_id="s3")
  found = (await memory.search_memory(app_name="a", user_id="u", query="tea")).memories
  assert [m.id for m in found] == [kept.id, kept.id]


def test_cli_sessions_are_in_memory_on_cloud_run(tmp_path, monkeypatch):
  """Section 9: the per-agent SQLite session file is the default on a workstation only."""
  from google.adk.cli.utils.service_factory import create_session_service_from_options
  from google.adk.sessions import InMemorySessionService
  (tmp_path / "app").mkdir()
  for key in ("K_SERVICE", "KUBERNETES_SERVICE_HOST", "ADK_DISABLE_LOCAL_STORAGE", "ADK_FORCE_LOCAL_STORAGE",
              "GOOGLE_CLOUD_AGENT_ENGINE_ID"):
    monkeypatch.delenv(key, raising=False)
  assert not isinstance(create_session_service_from_options(base_dir=tmp_path), InMemorySessionService)
  monkeypatch.setenv("K_SERVICE", "cafe")
  assert isinstance(create_session_service_from_options(base_dir=tmp_path), InMemorySessionService)
