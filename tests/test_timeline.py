"""The timeline's layout model against real sessions on ADK's three services, and its SVG.

Every expectation here comes from ADK itself: the events a service stored, and the state it
returns from ``get_session`` after each append (a snapshot per event). The model must agree
with both, on InMemorySessionService, SqliteSessionService and DatabaseSessionService on the
course's embedded PostgreSQL.
"""

from __future__ import annotations

import base64
import datetime
import json
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path

import nbformat
import pytest
from google.adk.events import Event, EventActions
from google.adk.events._rewind_events import _apply_rewinds
from google.adk.events.event_actions import EventCompaction
from google.adk.sessions import DatabaseSessionService, InMemorySessionService
from google.adk.sessions._rewind_utils import rewind_session
from google.adk.sessions.sqlite_session_service import SqliteSessionService
from google.genai import types

from adkcourse.postgres import fresh_database
from adkcourse.timeline import (LANGUAGE_MIMES, METADATA_KEY, UNSET, WORDS, Shown, build_layout,
                                layout_from_json, layout_to_json, render_outputs,
                                rerender_output, timeline)
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


# Two InMemorySessionService objects never share a store: the stores two instances can share.
@pytest.mark.parametrize("service", ["sqlite", "postgres"], indirect=True)
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
  assert "folded=149" in repr(picture)
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
  bundle, metadata = picture._repr_mimebundle_()
  assert set(bundle) == {"image/svg+xml", "image/png", "text/plain"} and set(metadata) == {
    METADATA_KEY}
  png = base64.b64decode(bundle["image/png"])  # as ipykernel writes bytes
  assert bundle["image/svg+xml"] == picture.svg and png[:8] == b"\x89PNG\r\n\x1a\n"
  assert png == picture.to_png()  # no date or version in it either
  assert "image/png" not in timeline(long_events(8), lang="en", png=False)._repr_mimebundle_()[0]
  assert "{stroke-linejoin" not in picture.svg  # no page-wide style rule when inlined
  assert "<title>8 events</title>" in picture.svg  # the heading, for a screen reader
  assert picture.save(tmp_path / "t.svg").read_text(encoding="utf-8") == picture.svg
  assert picture.save(tmp_path / "t.png").read_bytes() == png
  assert "matplotlib.pyplot" not in sys.modules or not sys.modules[
    "matplotlib.pyplot"].get_fignums()
  assert repr(picture) == "Timeline(events=8, lanes=3, state_keys=1)"  # no word of a language
  assert bundle["text/plain"] == "<timeline: 8 events, 3 lanes, 1 state keys>"


def test_rendering_costs_little_cpu_at_ten_and_two_hundred_events():
  """CPU time, not wall time: the same verdict on a busy machine (benchmarks time the rest)."""
  for count, budget in ((10, 5.0), (200, 15.0)):
    events = long_events(count)
    started = time.process_time()
    ET.fromstring(timeline(events, lang="en").svg)
    assert time.process_time() - started < budget, count


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


# -- the layout as JSON, and the picture drawn again in another language -------------------------

def _words_drawn(svg: str) -> list[str]:
  """Every text the SVG draws (matplotlib writes each text drawn as paths in a comment)."""
  return re.findall(r"<!-- (.*?) -->", svg)


def _english_only(lang: str) -> set[str]:
  """The English words of the picture that no word of ``lang`` is or contains."""
  other = WORDS[lang].values()
  return {w for k, w in WORDS["en"].items()
          if "{" not in w and w != WORDS[lang][k] and not any(w in x for x in other)}


def _through_a_notebook(data: dict, metadata: dict) -> nbformat.NotebookNode:
  """The output as a committed notebook holds it: written by nbformat (sorted keys, split
  lines) and read back."""
  notebook = nbformat.v4.new_notebook()
  cell = nbformat.v4.new_code_cell("timeline(session)")
  cell.outputs = [nbformat.v4.new_output("display_data", data=data,
                                         metadata=json.loads(json.dumps(metadata)))]
  notebook.cells = [cell]
  return nbformat.reads(nbformat.writes(notebook), as_version=4).cells[0].outputs[0]


def _assert_round_trip(layout) -> None:
  text = layout_to_json(layout)
  back = layout_from_json(text)
  assert back == layout
  assert layout_to_json(back) == text  # a fixed point: what generate reads, it would write
  assert layout_from_json(json.loads(text)) == layout
  assert [s.from_session for s in back.sources] == [s.session is not None
                                                    for s in layout.sources]
  assert all(s.session is None for s in back.sources)
  # Through a notebook, whose writer sorts every key (a state dict's too) and indents.
  output = _through_a_notebook({"text/plain": "x"}, {METADATA_KEY: {"layout": json.loads(text)}})
  assert layout_from_json(output.metadata[METADATA_KEY]["layout"]) == layout
  for lang in ("en", "fr"):
    assert render_outputs(back, lang) == render_outputs(layout, lang), lang
  # What an output carries: the same picture, without what changes on every run.
  stable_text = layout_to_json(layout, stable=True)
  stable = layout_from_json(stable_text)
  assert layout_to_json(stable, stable=True) == stable_text
  assert render_outputs(stable, "en") == render_outputs(layout, "en")
  assert [m.event_id for m in stable.marks] == [f"e{i + 1}" for i in range(len(layout.marks))]
  assert [m.timestamp for m in stable.marks] == [float(m.index) for m in layout.marks]
  assert len({i.invocation_id for i in stable.invocations}) == len(
    {i.invocation_id for i in layout.invocations})
  assert stable == replace(layout, marks=stable.marks, invocations=stable.invocations)


async def test_the_layout_json_round_trip_is_exact_on_real_sessions(service):
  planned = [e for e, _ in script()]
  session, stored, written, _ = await play(service, planned,
                                           state={"table": 4, "user:nickname": "Ana"})
  _assert_round_trip(build_layout(stored))
  _assert_round_trip(build_layout(written))  # temp: writes, dropped
  start, end = stored.events[0].timestamp, stored.events[6].timestamp
  summary = Event(author="user", invocation_id="c1", actions=EventActions(
    compaction=EventCompaction(start_timestamp=start, end_timestamp=end,
                               compacted_content=types.Content(
                                 role="model", parts=[types.Part(text="Ana: vegan")]))))
  await service.append_event(stored, summary)
  stored = await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
  await rewind_session(session_service=service, session=stored, rewind_before_invocation_id="i2")
  rewound = await service.get_session(app_name=APP, user_id=USER, session_id=session.id)
  layout = build_layout(rewound)
  assert layout.marks[-1].span is not None and layout.marks[-2].span is not None
  _assert_round_trip(layout)
  other, _, _, _ = await play(service, [
    text_event("user", "b1", "What do you know?"),
    result_event("b1", "set_dietary_preference", {}, {"user:dietary_preferences": ["nuts"]})])
  other = await service.get_session(app_name=APP, user_id=USER, session_id=other.id)
  compared = build_layout([rewound, other], labels=["phone", "laptop"])
  assert compared.mode == "compare" and compared.links
  _assert_round_trip(compared)
  assert layout_from_json(layout_to_json(compared)).mismatches == compared.mismatches


async def test_the_round_trip_of_two_hundred_folded_events_and_of_an_empty_session(tmp_path):
  service = SqliteSessionService(str(tmp_path / "long.db"))
  _, stored, _, _ = await play(service, long_events(200))
  layout = build_layout(stored)
  assert layout.folded_runs
  _assert_round_trip(layout)
  text = layout_to_json(layout)
  assert len(text) < 60_000  # one copy of each value, however many events hold it
  empty = await InMemorySessionService().create_session(app_name=APP, user_id=USER,
                                                       state={"table": 4})
  _assert_round_trip(build_layout(empty))
  _assert_round_trip(build_layout([]))


async def test_a_value_json_cannot_hold_keeps_the_text_the_picture_shows():
  """Only an in-memory session holds such values (the other services store JSON)."""
  service = InMemorySessionService()
  odd = {"pair": ("oat", 2), "when": datetime.datetime(2026, 1, 2, 3, 4), "ratio": float("nan"),
         "by_table": {4: "latte"}, "flag": True, "count": 1, "price": 1.0, "none": None}
  live = await service.create_session(app_name=APP, user_id=USER)
  await service.append_event(live, text_event("user", "i1", "hi", **odd))
  layout = build_layout(live)
  back = layout_from_json(layout_to_json(layout))
  rows = {r.key: r for r in back.rows}
  for key in ("pair", "when", "ratio", "by_table"):
    assert isinstance(rows[key].values[0], Shown), key
  assert rows["pair"].values[0].text == '["oat", 2]'
  assert rows["when"].values[0].text == '"2026-01-02 03:04:00"'
  for key in ("flag", "count", "price", "none"):  # True, 1 and 1.0 stay apart
    assert rows[key].values[0] == odd[key] and type(rows[key].values[0]) is type(odd[key])
  def refuse(constant):
    raise AssertionError(f"{constant} is not JSON")

  json.loads(layout_to_json(layout), parse_constant=refuse)  # strict JSON: every reader takes it
  assert render_outputs(back, "en") == render_outputs(layout, "en")
  assert layout_from_json(layout_to_json(back)) == back


def test_a_layout_of_another_version_is_refused():
  doc = json.loads(layout_to_json(build_layout(long_events(3))))
  doc["version"] = 99
  with pytest.raises(ValueError, match="version 99.*re-run the notebook"):
    layout_from_json(doc)


async def test_generate_draws_the_english_output_again_as_the_kernel_draws_it_in_french(
    monkeypatch, tmp_path):
  """The English output, as committed, drawn again in French, is the French kernel's output,
  byte for byte: SVG, PNG, text and metadata (nbval compares the SVG and the text)."""
  service = InMemorySessionService()
  _, stored, _, _ = await play(service, [e for e, _ in script()], state={"table": 4})
  monkeypatch.chdir(tmp_path)
  monkeypatch.delenv("JPY_SESSION_NAME", raising=False)
  monkeypatch.setenv("ADKCOURSE_LANG", "en")
  english = timeline(stored)
  assert english.lang == "en" and english.follows_notebook
  output = _through_a_notebook(*english._repr_mimebundle_())
  assert output.metadata[METADATA_KEY]["lang"] is None
  english_data = dict(output.data)
  monkeypatch.setenv("ADKCOURSE_LANG", "fr")
  kernel_data, kernel_metadata = timeline(stored)._repr_mimebundle_()  # a notebooks/fr kernel
  assert rerender_output(output, "fr")
  assert set(output.data) == set(LANGUAGE_MIMES)
  assert output.data["image/svg+xml"] == kernel_data["image/svg+xml"]
  assert output.data == kernel_data
  assert output.metadata == json.loads(json.dumps(kernel_metadata))  # no language in it
  assert timeline(stored, lang="fr")._repr_mimebundle_()[0] == kernel_data
  assert output.data != english_data
  svg = output.data["image/svg+xml"]
  drawn = _words_drawn(svg)
  assert WORDS["fr"]["state"] in drawn and WORDS["fr"]["stored"] in drawn
  assert not _english_only("fr") & set(drawn), _english_only("fr") & set(drawn)
  assert WORDS["en"]["state"] not in svg and not re.search(r"\bevents\b", svg)
  assert output.data["text/plain"] == "<frise : 11 événements, 5 lignes, 5 clés d'état>"
  # Indonesian too, from the same English output.
  again = _through_a_notebook(english_data, output.metadata)
  assert rerender_output(again, "id")
  monkeypatch.setenv("ADKCOURSE_LANG", "id")
  assert again.data == timeline(stored)._repr_mimebundle_()[0]
  assert WORDS["id"]["state"] in _words_drawn(again.data["image/svg+xml"])


def test_a_picture_whose_code_names_its_language_and_other_outputs_stay_as_they_are():
  data, metadata = timeline(long_events(6), lang="en")._repr_mimebundle_()
  assert metadata[METADATA_KEY]["lang"] == "en"  # the French kernel draws it in English too
  output = _through_a_notebook(data, metadata)
  assert not rerender_output(output, "fr") and output.data == data
  table = nbformat.v4.new_output("execute_result", data={"text/plain": "a table"})
  assert not rerender_output(table, "fr") and table.data == {"text/plain": "a table"}
  # A language the picture has no words for is drawn in English, as the kernel does.
  follows = timeline(long_events(6), lang="en")
  follows.follows_notebook = True
  output = _through_a_notebook(*follows._repr_mimebundle_())
  assert rerender_output(output, "de") and output.data == follows._repr_mimebundle_()[0]


def test_only_the_drawn_forms_are_in_a_language_and_generate_redraws_them():
  """What generate does not redraw (the metadata, and ``repr``, which a print copies) holds
  no word of a language; the text form is drawn again like the picture."""
  events = long_events(80)
  outputs = {lang: timeline(events, lang=lang) for lang in WORDS}
  reprs = {repr(t) for t in outputs.values()}
  assert reprs == {"Timeline(events=80, folded=59, lanes=3, state_keys=1)"}
  bundles = {lang: t._repr_mimebundle_() for lang, t in outputs.items()}
  entries = [{k: v for k, v in m[METADATA_KEY].items() if k != "lang"}
             for _, m in bundles.values()]
  assert all(e == entries[0] for e in entries)
  texts = {lang: b[0]["text/plain"] for lang, b in bundles.items()}
  assert len(set(texts.values())) == 3
  assert texts["fr"] == "<frise : 80 événements, 59 repliés, 3 lignes, 1 clés d'état>"


def _run_in_kernel(folder: Path, source: str) -> nbformat.NotebookNode:
  """``source`` run by a real kernel started in ``folder``, as nbval and run_notebooks.py do;
  its outputs as the saved notebook holds them."""
  from nbclient import NotebookClient

  notebook = nbformat.v4.new_notebook()
  notebook.cells = [nbformat.v4.new_code_cell(source)]
  folder.mkdir(parents=True, exist_ok=True)
  NotebookClient(notebook, timeout=120, kernel_name="python3",
                 resources={"metadata": {"path": str(folder)}}).execute()
  return nbformat.reads(nbformat.writes(notebook), as_version=4).cells[0]


def test_a_kernel_in_the_french_folder_draws_what_generate_draws_from_the_english(tmp_path):
  """End to end, with real kernels: IPython writes the bundle as it is (the PNG in base64, the
  metadata untouched), and the English notebook's output drawn again in French is the French
  kernel's output."""
  source = (
    "from google.adk.events import Event, EventActions\n"
    "from adkcourse.timeline import timeline\n"
    "events = [Event(author='user', invocation_id='i1', actions=EventActions(state_delta={\n"
    "  'user:diet': ['vegan'], 'order': {'items': ['oat latte'], 'total': 4.5}}))]\n"
    "display(timeline(events))\n"
    "timeline(events)\n")
  env = {k: os.environ.pop(k) for k in ("ADKCOURSE_LANG", "JPY_SESSION_NAME") if k in os.environ}
  try:
    english = _run_in_kernel(tmp_path / "notebooks", source)
    french = _run_in_kernel(tmp_path / "notebooks" / "fr", source)
  finally:
    os.environ.update(env)
  assert [o.output_type for o in english.outputs] == ["display_data", "execute_result"]
  # Two runs, other event ids and timestamps: the same metadata (stand-ins, see layout_to_json).
  assert english.outputs[0].metadata == french.outputs[1].metadata
  for ours, theirs in zip(english.outputs, french.outputs):
    assert set(ours.data) == set(LANGUAGE_MIMES) and ours.metadata == theirs.metadata
    assert WORDS["en"]["state"] in ours.data["image/svg+xml"]
    assert ours.data != theirs.data
    assert rerender_output(ours, "fr")
    assert ours.data == theirs.data


async def test_an_output_is_the_same_on_every_run_under_a_title():
  """A lesson's session gets a new id, its events new ids and timestamps, on every run: under a
  title none of them is drawn, and the output (metadata too) stays byte for byte."""
  outputs = []
  for _ in range(2):
    service = InMemorySessionService()
    _, stored, _, _ = await play(service, [e for e, _ in script()])
    picture = timeline(stored, lang="en", title="Ana's first visit")
    data, metadata = picture._repr_mimebundle_()
    assert data["image/svg+xml"] == picture.svg  # drawn from the stand-ins: the same picture
    assert metadata[METADATA_KEY]["layout"]["sources"][0]["session_id"] == "s1"
    outputs.append(json.dumps([data, metadata], sort_keys=True))
  assert outputs[0] == outputs[1]
  untitled = timeline(stored, lang="en")._repr_mimebundle_()[1]
  assert untitled[METADATA_KEY]["layout"]["sources"][0]["session_id"] == stored.id  # drawn


async def _two_visits_and_a_rewind() -> tuple[list, object]:
  """Fresh sessions, events and invocation ids (new on every call), with the same content."""
  service = InMemorySessionService()
  visits = []
  for number in (1, 2):
    session = await service.create_session(app_name=APP, user_id=USER)
    for turn in ("one", "two"):
      await service.append_event(session, Event(
          author="user", invocation_id=f"e-{os.urandom(8).hex()}", timestamp=number * 10 + len(turn),
          content=types.Content(role="user", parts=[types.Part(text=turn)]),
          actions=EventActions(state_delta={"user:seen": turn})))
    visits.append(await service.get_session(app_name=APP, user_id=USER, session_id=session.id))
  first = visits[0]
  rewind = Event(author="user", invocation_id=f"e-{os.urandom(8).hex()}", timestamp=30,
                 actions=EventActions(rewind_before_invocation_id=first.events[1].invocation_id))
  await service.append_event(first, rewind)
  return visits, await service.get_session(app_name=APP, user_id=USER, session_id=first.id)


async def test_a_titled_picture_draws_the_same_whatever_the_ids():
  """A lesson's picture is a committed output compared byte for byte: no id that is new on
  every run (session, invocation, event) may reach the drawing once a title is given."""
  drawn = []
  for _ in range(2):
    visits, rewound = await _two_visits_and_a_rewind()
    drawn.append((timeline(visits, labels=["phone", "laptop"], title="Two visits", lang="en").svg,
                  timeline(rewound, title="A rewind", lang="en").svg))
  assert drawn[0] == drawn[1]
  assert "&lt; 2" in drawn[0][1]  # the rewind names the invocation by its number in the picture
