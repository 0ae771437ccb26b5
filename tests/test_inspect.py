"""Table inspection: the SQLite file as DataFrames, JSON parsed, and the compact event view."""

from __future__ import annotations

from google.adk.events import Event, EventActions
from google.adk.sessions import DatabaseSessionService
from google.adk.sessions.sqlite_session_service import SqliteSessionService
from google.genai import types

from adkcourse.inspect import classify_event, event_table, read_tables


def call_event() -> Event:
  part = types.Part(function_call=types.FunctionCall(name="place_order", args={"items": ["latte"]}))
  return Event(author="cafe", invocation_id="i", content=types.Content(role="model", parts=[part]))


def result_event() -> Event:
  part = types.Part(function_response=types.FunctionResponse(name="place_order",
                                                             response={"order": {"total": 4}}))
  return Event(author="cafe", invocation_id="i",
               content=types.Content(role="user", parts=[part]),
               actions=EventActions(state_delta={"current_order": {"total": 4}}))


def test_classification_of_each_kind():
  text = Event(author="user", invocation_id="i",
               content=types.Content(role="user", parts=[types.Part(text="hi")]))
  state = Event(author="user", invocation_id="i", actions=EventActions(state_delta={"a": 1}))
  control = Event(author="cafe", invocation_id="i")
  kinds = [classify_event(e) for e in (text, call_event(), result_event(), state, control)]
  assert kinds == ["text", "tool call", "tool result", "state update", "control"]


def test_event_table_summaries_and_deltas():
  frame = event_table([call_event(), result_event()])
  assert list(frame.columns) == ["invocation_id", "author", "kind", "summary", "state_delta"]
  assert list(frame["invocation_id"]) == ["i", "i"]
  assert frame.loc[0, "summary"] == 'place_order({"items": ["latte"]})'
  assert frame.loc[1, "summary"].startswith("place_order -> ")
  assert frame.loc[1, "state_delta"] == {"current_order": {"total": 4}}
  assert frame.loc[0, "state_delta"] == ""


async def _fill(service):
  session = await service.create_session(app_name="app", user_id="ana")
  await service.append_event(session, result_event().model_copy(
      update={"actions": EventActions(state_delta={"user:diet": ["vegan"], "n": 1})}))
  return session


async def test_sqlite_file_tables_with_json_parsed(tmp_path):
  path = tmp_path / "s.db"
  await _fill(SqliteSessionService(str(path)))
  tables = await read_tables(path)
  assert set(tables) == {"app_states", "user_states", "sessions", "events"}
  user = tables["user_states"]
  assert user.loc[0, "state"] == {"diet": ["vegan"]}  # stored without the "user:" prefix
  assert tables["sessions"].loc[0, "state"] == {"n": 1}
  events = tables["events"]
  assert isinstance(events.loc[0, "event_data"], dict)
  view = event_table(events["event_data"])
  assert view.loc[0, "kind"] == "tool result"


async def test_database_url_tables(tmp_path):
  url = f"sqlite+aiosqlite:///{tmp_path / 'd.db'}"
  service = DatabaseSessionService(url)
  await _fill(service)
  await service.close()
  tables = await read_tables(url)
  assert {"adk_internal_metadata", "app_states", "user_states", "sessions", "events"} <= set(tables)
  assert tables["user_states"].loc[0, "state"] == {"diet": ["vegan"]}


def test_missing_file_is_a_clear_error(tmp_path):
  import pytest

  from adkcourse.inspect import sqlite_tables
  with pytest.raises(FileNotFoundError, match="has the service written anything"):
    sqlite_tables(tmp_path / "nope.db")
