"""The timeline's layout model against real sessions on ADK's three services, and its SVG.

Every expectation here comes from ADK itself: the events a service stored, and the state it
returns from ``get_session`` after each append (a snapshot per event). The model must agree
with both, on InMemorySessionService, SqliteSessionService and DatabaseSessionService on the
course's embedded PostgreSQL.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from google.adk.events import Event, EventActions
from google.adk.events._rewind_events import _apply_rewinds
from google.adk.events.event_actions import EventCompaction
from google.adk.sessions import DatabaseSessionService, InMemorySessionService
from google.adk.sessions._rewind_utils import rewind_session
from google.adk.sessions.sqlite_session_service import SqliteSessionService
from google.genai import types

from adkcourse.postgres import fresh_database
from adkcourse.timeline import UNSET, WORDS, build_layout, timeline
from adkcourse.timeline.model import scope_of

APP, USER = "cafe", "ana"
REPO = Path(__file__).resolve().parents[1]


def text_event(author: str, inv: str, text: str, **delta) -> Event:
  role = "user" if author == "user" else "model"
  return Event(author=author, invocation_id=inv,
               content=types.Content(role=role, parts=[types.Part(text=text)]),
               actions=EventActions(state_delta=dict(delta)))


def call_event(inv: str, name: str, args: dict) -> Event:
  part = types.Part(function_call=types.FunctionCall(name=name, args=args))
  return Event(author="cafe_concierge", invocation_id=inv,
               content=types.Content(role="model", parts=[part]))


def result_event(inv: str, name: str, response: dict, delta: dict) -> Event:
  part = types.Part(function_response=types.FunctionResponse(name=name, response=response))
  return Event(author="cafe_concierge", invocation_id=inv,
               content=types.Content(role="user", parts=[part]),
               actions=EventActions(state_delta=delta))


def script() -> list[tuple[Event, str]]:
  """A concierge's conversation, by hand: every kind the picture tells apart, every scope."""
  return [
    (text_event("user", "i1", "I'm vegan, an oat latte please"), "text"),
    (call_event("i1", "set_dietary_preference", {"preference": "vegan"}), "tool call"),
    (result_event("i1", "set_dietary_preference", {"saved": "vegan"},
                  {"user:dietary_preferences": ["vegan"], "temp:stock_note": "oat: 3 left"}),
     "tool result"),
    (call_event("i1", "place_order", {"items": ["oat latte"]}), "tool call"),
    (result_event("i1", "place_order", {"total": 4.5},
                  {"current_order": {"items": ["oat latte"], "total": 4.5},
                   "app:orders_today": 1}), "tool result"),
    (text_event("cafe_concierge", "i1", "Your oat latte is ordered."), "text"),
    (Event(author="cafe_concierge", invocation_id="i1",
           actions=EventActions(state_delta={"visits": 1, "temp:scratch": "x"})), "state update"),
    (text_event("user", "i2", "Make it two"), "text"),
    (Event(author="cafe_concierge", invocation_id="i2",
           actions=EventActions(transfer_to_agent="barista")), "transfer"),
    (text_event("barista", "i2", "Two oat lattes.",
                current_order={"items": ["oat latte"] * 2, "total": 9.0}), "text"),
    (Event(author="barista", invocation_id="i2", actions=EventActions(end_of_agent=True)),
     "control"),
  ]


@pytest.fixture(params=["memory", "sqlite", "postgres"])
async def service(request, tmp_path):
  if request.param == "memory":
    yield InMemorySessionService()
  elif request.param == "sqlite":
    yield SqliteSessionService(str(tmp_path / "timeline.db"))
  else:
    url = await fresh_database("test_timeline")
    opened = DatabaseSessionService(url)
    try:
      yield opened
    finally:
      await opened.close()


async def play(service, events, session=None, user=USER, state=None):
  """Append ``events`` one by one; return the session ADK stores, the events as written (copies
  taken before the append, which trims ``temp:`` keys in place) and ADK's state after each."""
  if session is None:
    session = await service.create_session(app_name=APP, user_id=user, state=state)
  written, snapshots = [], []
  for event in events:
    written.append(event.model_copy(deep=True))
    await service.append_event(session, event)
    again = await service.get_session(app_name=APP, user_id=user, session_id=session.id)
    snapshots.append(dict(again.state))
  stored = await service.get_session(app_name=APP, user_id=user, session_id=session.id)
  return session, stored, written, snapshots


async def test_every_mark_is_a_stored_event_with_its_kind_lane_and_writes(service):
  planned = script()
  _, stored, _, _ = await play(service, [e for e, _ in planned], state={"table": 4})
  layout = build_layout(stored)
  assert layout.mode == "single" and len(layout.marks) == len(stored.events) == len(planned)
  for mark, event, (_, kind) in zip(layout.marks, stored.events, planned):
    assert (mark.event_id, mark.author, mark.invocation_id) == (
      event.id, event.author, event.invocation_id)
    assert mark.kind == kind
    lane = layout.lanes[mark.lane]
    if kind == "tool result":
      assert (lane.role, lane.name) == ("tool", event.get_function_responses()[0].name)
    elif event.author == "user":
      assert lane.role == "user"
    else:
      assert (lane.role, lane.name) == ("agent", event.author)
    assert [w.key for w in mark.writes] == list(event.actions.state_delta)
    assert [w.value for w in mark.writes] == list(event.actions.state_delta.values())
    assert all(w.scope == scope_of(w.key) and not w.dropped for w in mark.writes)
  assert not any(k.startswith("temp:") for e in stored.events for k in e.actions.state_delta)
  assert [(l.role, l.name) for l in layout.lanes] == [
    ("user", ""), ("agent", "cafe_concierge"), ("agent", "barista"),
    ("tool", "set_dietary_preference"), ("tool", "place_order")]
  assert [(i.invocation_id, i.first, i.last) for i in layout.invocations] == [
    ("i1", 0, 6), ("i2", 7, 10)]
  assert layout.marks[8].label == "→ barista"
  assert {row.scope for row in layout.rows} == {"session", "user", "app"}


async def test_state_after_each_event_is_what_adk_returns(service):
  _, stored, _, snapshots = await play(service, [e for e, _ in script()],
                                       state={"table": 4, "user:nickname": "Ana"})
  layout = build_layout(stored)
  assert layout.state_after(-1) == {"table": 4, "user:nickname": "Ana"}  # no event wrote them
  for index, snapshot in enumerate(snapshots):
    assert layout.state_after(index) == snapshot, index
  assert layout.final_state() == stored.state and layout.mismatches == ()
  rows = {row.key: row for row in layout.rows}
  assert rows["table"].initial == 4 and rows["table"].values == (4,) * len(snapshots)
  assert rows["current_order"].values[3] is UNSET
  assert rows["current_order"].stored == stored.state["current_order"]


async def test_a_temp_write_shows_as_dropped_and_lasts_its_invocation(service):
  _, stored, written, snapshots = await play(service, [e for e, _ in script()])
  layout = build_layout(written)  # as written: ADK trimmed the originals in place
  dropped = [(m.index, w.key) for m in layout.marks for w in m.writes if w.dropped]
  assert dropped == [(2, "temp:stock_note"), (6, "temp:scratch")]
  note = next(r for r in layout.rows if r.key == "temp:stock_note")
  assert note.scope == "temp"
  assert note.values[:2] == (UNSET, UNSET) and set(note.values[2:7]) == {"oat: 3 left"}
  assert note.values[7:] == (UNSET,) * 4  # the next invocation reads the stored session
  assert layout.state_after(4, temp=True)["temp:stock_note"] == "oat: 3 left"
  for index, snapshot in enumerate(snapshots):
    assert layout.state_after(index) == snapshot, index
  assert layout.final_state() == stored.state
  assert "temp:stock_note" not in stored.state


async def test_a_live_session_temp_key_is_in_memory_only():
  service = InMemorySessionService()
  live = await service.create_session(app_name=APP, user_id=USER)
  await service.append_event(live, text_event("user", "i1", "hi", **{"temp:n": 1, "k": 2}))
  assert live.state == {"temp:n": 1, "k": 2} and live.events[0].actions.state_delta == {"k": 2}
  layout = build_layout(live)
  row = next(r for r in layout.rows if r.key == "temp:n")
  assert row.memory_only and row.stored == 1 and layout.mismatches == ()
  assert layout.final_state() == {"k": 2}


async def test_compare_two_sessions_shares_their_user_and_app_keys(service):
  first, _, _, _ = await play(service, [
    text_event("user", "a1", "I'm vegan"),
    result_event("a1", "set_dietary_preference", {}, {"user:diet": ["vegan"], "order": "latte",
                                                      "app:open": True})])
  second, _, _, _ = await play(service, [
    text_event("user", "b1", "What do you know?"),
    result_event("b1", "set_dietary_preference", {}, {"user:diet": ["nut allergy"],
                                                      "order": "tea"})])
  await play(service, [text_event("user", "a2", "Thanks")], session=first)
  a = await service.get_session(app_name=APP, user_id=USER, session_id=first.id)
  b = await service.get_session(app_name=APP, user_id=USER, session_id=second.id)
  layout = build_layout([a, b])
  assert layout.mode == "compare"
  assert [m.source for m in layout.marks] == [0, 0, 1, 1, 0]  # one time axis
  owners = {(r.key, r.owner) for r in layout.rows}
  assert owners == {("order", 0), ("order", 1), ("user:diet", None), ("app:open", None)}
  assert layout.final_state(0) == a.state and layout.final_state(1) == b.state
  assert layout.mismatches == ()
  # PostgreSQL's jsonb does not keep a delta's key order: find writes by key.
  second_write = {w.key: w for w in layout.marks[3].writes}["user:diet"]
  assert second_write.replaces == 0  # the lost update: B's value replaced A's
  assert {w.key: w.replaces for w in layout.marks[3].writes}["order"] is None  # own session
  assert sorted((l.key, l.from_mark, l.to_mark) for l in layout.links) == [
    ("app:open", 1, 2), ("user:diet", 1, 2), ("user:diet", 3, 4)]
  # Without the second session, the first one's stored user:diet is not what it wrote.
  alone = build_layout(a)
  assert alone.mismatches == ("user:diet",)
  assert [r.key for r in alone.rows if r.differs] == ["user:diet"]
  assert "≠ [\"nut allergy\"]" in timeline(a, lang="en").svg  # drawn in "stored now"


async def test_two_instances_appends_to_one_session_in_commit_order(service, tmp_path):
  other = type(service)(*_same_store(service, tmp_path))
  try:
    created = await service.create_session(app_name=APP, user_id=USER)
    on_a = await service.get_session(app_name=APP, user_id=USER, session_id=created.id)
    events_a = [text_event("user", "on-a", "An espresso", current_order=["espresso"])]
    await service.append_event(on_a, events_a[0])
    on_b = await other.get_session(app_name=APP, user_id=USER, session_id=created.id)
    events_b = [text_event("user", "on-b", "An americano", current_order=["americano"])]
    await other.append_event(on_b, events_b[0])
    events_a.append(text_event("cafe_concierge", "on-a", "Espresso ordered"))
    on_a = await service.get_session(app_name=APP, user_id=USER, session_id=created.id)
    await service.append_event(on_a, events_a[1])
    final = await service.get_session(app_name=APP, user_id=USER, session_id=created.id)
    layout = build_layout([events_a, events_b], labels=["instance A", "instance B"])
    assert layout.mode == "commit"
    assert [m.event_id for m in layout.marks] == [e.id for e in final.events]
    assert [m.source for m in layout.marks] == [0, 1, 0]
    assert layout.marks[1].writes[0].replaces == 0
    assert layout.final_state() == final.state == {"current_order": ["americano"]}
    # Two Session objects with one id are one session too; an event seen twice counts once.
    via_b = await other.get_session(app_name=APP, user_id=USER, session_id=created.id)
    both = build_layout([final, via_b])
    assert both.mode == "commit" and len(both.marks) == 3 and both.mismatches == ()
  finally:
    if hasattr(other, "close"):
      await other.close()


def _same_store(service, tmp_path):
  """The arguments that open a second instance on the same store."""
  if isinstance(service, InMemorySessionService):
    pytest.skip("two InMemorySessionService objects never share a store")
  if isinstance(service, SqliteSessionService):
    return (str(tmp_path / "timeline.db"),)
  return (service.db_engine.url.render_as_string(hide_password=False),)


async def test_compaction_and_rewind_cover_the_events_adk_says(service):
  session, _, _, _ = await play(service, [e for e, _ in script()])
  stored = await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
  start, end = stored.events[0].timestamp, stored.events[6].timestamp
  summary = Event(author="user", invocation_id="c1", actions=EventActions(
    compaction=EventCompaction(start_timestamp=start, end_timestamp=end,
                               compacted_content=types.Content(
                                 role="model", parts=[types.Part(text="Ana: vegan, a latte")]))))
  await service.append_event(stored, summary)
  stored = await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
  await rewind_session(session_service=service, session=stored, rewind_before_invocation_id="i2")
  stored = await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
  layout = build_layout(stored)
  kinds = [m.kind for m in layout.marks]
  assert kinds[-2:] == ["compaction", "rewind"]
  assert layout.marks[-2].span == (0, 6) and layout.marks[-2].label == "Ana: vegan, a latte"
  rewind = layout.marks[-1]
  kept = {e.id for e in _apply_rewinds(stored.events)}
  undone = {m.event_id for m in layout.marks[rewind.span[0]:rewind.span[1] + 1]}
  assert undone | {rewind.event_id} == {e.id for e in stored.events} - kept
  assert layout.final_state() == stored.state  # the rewind's own delta restores the state
  assert stored.state["current_order"] == {"items": ["oat latte"], "total": 4.5}


def long_events(count: int) -> list[Event]:
  """``count`` events in invocations of four, the third of each writing state."""
  out = []
  for i in range(count):
    inv = f"i{i // 4}"
    if i % 4 == 2:
      out.append(result_event(inv, "place_order", {"n": i}, {"orders": i // 4 + 1}))
    elif i % 4 == 1:
      out.append(call_event(inv, "place_order", {"n": i}))
    else:
      out.append(text_event("user" if i % 4 == 0 else "cafe_concierge", inv, f"message {i}"))
  return out


async def test_two_hundred_events_fold_their_plain_runs(tmp_path):
  service = SqliteSessionService(str(tmp_path / "long.db"))
  _, stored, _, snapshots = await play(service, long_events(200))
  layout = build_layout(stored)
  assert len(layout.marks) == 200 and layout.final_state() == stored.state == {"orders": 50}
  assert sum(c.size for c in layout.columns) == 200
  assert [c.first for c in layout.columns] == sorted(c.first for c in layout.columns)
  for column in layout.columns:
    inside = layout.marks[column.first:column.last + 1]
    if column.folded:
      assert all(not m.writes and m.kind in ("text", "tool call") for m in inside)
  writers = [c for c in layout.columns if layout.marks[c.first].writes]
  assert len(writers) == 50 and all(not c.folded for c in writers)
  assert layout.folded_runs == 50 and layout.folded_events == 149  # "2", then 49 of "3"
  for index in (0, 99, 199):
    assert layout.state_after(index) == snapshots[index]
  picture = timeline(stored, lang="en")
  assert "50 runs of events that write no state are folded: 149 events" in picture.svg
  assert "149 folded" in repr(picture)
  unfolded = build_layout(stored, fold_at=1000)
  assert len(unfolded.columns) == 200 and unfolded.folded_runs == 0
  small = build_layout(long_events(12))
  assert len(small.columns) == 12  # under the size nothing folds


def test_the_svg_parses_and_is_the_same_bytes_every_time():
  events = long_events(12)
  first = timeline(events, lang="en").svg
  assert first == timeline(events, lang="en").svg
  root = ET.fromstring(first)
  assert root.tag.endswith("svg") and root.get("width", "").endswith("pt")
  assert len(root.findall(".//{http://www.w3.org/2000/svg}path")) > 20
  assert "<dc:date>" not in first and "state after each event" in first
  assert timeline(events, lang="fr").svg != first
  # Another process, another hash seed, other global rc settings: the same bytes.
  code = ("import sys, matplotlib; matplotlib.rcParams['font.family'] = 'serif';"
          "matplotlib.rcParams['svg.hashsalt'] = 'other';"
          "from tests.test_timeline import long_events; from adkcourse.timeline import timeline;"
          "sys.stdout.write(timeline(long_events(12), lang='en').svg)")
  env = {**os.environ, "PYTHONHASHSEED": "123"}
  other = subprocess.run([sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True,
                         text=True, check=True).stdout
  assert other == first


def test_no_pyplot_figure_is_left_open_and_the_output_is_svg_with_a_png_beside_it(tmp_path):
  picture = timeline(long_events(8), lang="en")
  assert picture._repr_svg_() == picture.svg
  bundle = picture._repr_mimebundle_()
  assert set(bundle) == {"image/svg+xml", "image/png", "text/plain"}
  assert bundle["image/svg+xml"] == picture.svg and bundle["image/png"][:8] == b"\x89PNG\r\n\x1a\n"
  assert bundle["image/png"] == picture.to_png()  # no date or version in it either
  assert "image/png" not in timeline(long_events(8), lang="en", png=False)._repr_mimebundle_()
  assert "{stroke-linejoin" not in picture.svg  # no page-wide style rule when inlined
  assert "<title>8 events</title>" in picture.svg  # the heading, for a screen reader
  assert picture.save(tmp_path / "t.svg").read_text(encoding="utf-8") == picture.svg
  assert picture.save(tmp_path / "t.png").read_bytes() == bundle["image/png"]
  assert "matplotlib.pyplot" not in sys.modules or not sys.modules[
    "matplotlib.pyplot"].get_fignums()
  assert repr(picture) == "<timeline: 8 events, 3 lanes, 1 state keys>"


def test_rendering_takes_well_under_a_second_at_ten_and_two_hundred_events():
  for count, budget in ((10, 1.0), (200, 3.0)):
    events = long_events(count)
    started = time.perf_counter()
    ET.fromstring(timeline(events, lang="en").svg)
    assert time.perf_counter() - started < budget, count


async def test_an_empty_session_is_a_valid_picture_that_says_so():
  service = InMemorySessionService()
  empty = await service.create_session(app_name=APP, user_id=USER, state={"table": 4})
  picture = timeline(empty, lang="en")
  assert picture.layout.marks == () and picture.layout.final_state() == {"table": 4}
  ET.fromstring(picture.svg)
  assert "no events" in picture.svg and "table" in picture.svg
  ET.fromstring(timeline([], lang="en").svg)
  assert build_layout([empty]).mode == "single"  # a list of one session is that session


@pytest.mark.parametrize("bad", [42, "session", [1, 2], [Event(author="user"), "x"], None])
def test_what_is_not_a_session_or_events_is_refused_clearly(bad):
  with pytest.raises(TypeError, match="a Session, a list of Events"):
    timeline(bad, lang="en")


def test_labels_must_match_the_inputs_and_lang_must_be_a_course_language():
  with pytest.raises(ValueError, match="2 labels for 1 inputs"):
    build_layout(long_events(3), labels=["a", "b"])
  with pytest.raises(ValueError, match="unknown language"):
    timeline(long_events(3), lang="de")


def test_the_words_follow_the_notebook_language(tmp_path, monkeypatch):
  assert all(table.keys() == WORDS["en"].keys() for table in WORDS.values())
  assert set(WORDS) == {"en", "fr", "id"}
  monkeypatch.delenv("ADKCOURSE_LANG", raising=False)
  monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
  folder = tmp_path / "notebooks" / "fr"
  folder.mkdir(parents=True)
  monkeypatch.chdir(folder)
  picture = timeline(long_events(4))
  assert picture.lang == "fr" and "état après chaque événement" in picture.svg
  monkeypatch.chdir(tmp_path)
  monkeypatch.setenv("ADKCOURSE_LANG", "id")
  assert timeline(long_events(4)).lang == "id"
  assert timeline(long_events(4), lang="en").lang == "en"
