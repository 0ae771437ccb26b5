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
  cells = _cells()
  assert len(cells) <= 60
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
