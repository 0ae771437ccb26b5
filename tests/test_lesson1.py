"""Lesson 1 (notebooks/01_sessions_events_state.ipynb): what issue 22 asked of it stays true.

The lesson's claims about ADK are asserted in its own cells (nbval runs them). Its prose also
points the reader at lines and functions of ADK's source; an ADK upgrade moves them silently, so
each pointer the lesson prints is checked here against the installed package. The rest checks
the lesson's shape where a later edit could quietly undo a fix of issue 22.
"""

from __future__ import annotations

from pathlib import Path

import google.adk
import nbformat
import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
LESSON = ROOT / "notebooks" / "01_sessions_events_state.ipynb"
BANK = ROOT / "quizzes" / "01_sessions_events_state.yaml"
ADK = Path(google.adk.__file__).resolve().parent


def _cells():
  return nbformat.read(LESSON, as_version=4).cells


def _markdown() -> str:
  return "\n".join(c.source for c in _cells() if c.cell_type == "markdown")


def _lines(relative: str, first: int, last: int) -> str:
  return "\n".join((ADK / relative).read_text().splitlines()[first - 1:last])


# (what the lesson prints, file under google/adk/, first line, last line, text those lines hold)
LINE_CITATIONS = [
    ("(`in_memory_session_service.py`, lines 361-363)", "sessions/in_memory_session_service.py",
     361, 363, "storage_session.events.append(event)"),
    ("(`in_memory_session_service.py`, lines\n353-355)", "sessions/in_memory_session_service.py",
     353, 355, "if any(e == event for e in storage_session.events if e.id == event.id):"),
    ("(`agents/context.py` lines 178-183,", "agents/context.py", 178, 183,
     "value=invocation_context.session.state,"),
    ("`sessions/state.py` line 137", "sessions/state.py", 137, 137, "self._value[key] = value"),
    ("(`base_session_service.py` lines 178-179)", "sessions/base_session_service.py", 178, 179,
     "event = self._trim_temp_delta_state(event)"),
]


@pytest.mark.parametrize("printed, relative, first, last, held", LINE_CITATIONS,
                         ids=[c[1] + f":{c[2]}" for c in LINE_CITATIONS])
def test_each_source_line_the_lesson_cites_holds_what_it_says(printed, relative, first, last, held):
  assert printed in _markdown(), f"the lesson no longer prints {printed!r}: update this table"
  assert held in _lines(relative, first, last), f"{relative}:{first}-{last} moved in this ADK"


# (function the lesson names, file under google/adk/ that defines it)
FUNCTION_CITATIONS = [
    ("_delete_session_impl", "sessions/in_memory_session_service.py"),
    ("_consume_event_queue", "runners.py"),
    ("_get_output_event", "runners.py"),
    ("handle_before_model_callback", "flows/llm_flows/core/_finalizer.py"),
    ("merge_parallel_function_response_events", "flows/llm_flows/tools/_batch_executor.py"),
    ("create_session_service_from_options", "cli/utils/service_factory.py"),
]


@pytest.mark.parametrize("name, relative", FUNCTION_CITATIONS, ids=[c[0] for c in FUNCTION_CITATIONS])
def test_each_function_the_lesson_names_is_defined_where_it_says(name, relative):
  assert f"`{name}`" in _markdown()
  source = (ADK / relative).read_text()
  assert f"def {name}(" in source


def test_the_root_llm_agent_path_appends_only_complete_events():
  """The streaming cell cites _consume_event_queue: a root LlmAgent's events go through it."""
  runners = (ADK / "runners.py").read_text()
  queue = runners[runners.index("async def _consume_event_queue("):]
  queue = queue[:queue.index("\n  async def ", 1)]
  assert "if not output_event.partial:" in queue and "append_event(" in queue
  assert "_consume_event_queue(" in (ADK / "workflow" / "_node_runner_utils.py").read_text()


def test_no_cell_of_the_lesson_orders_steps_with_sleeps():
  for cell in _cells():
    if cell.cell_type == "code":
      assert "sleep(" not in cell.source, cell.get("id")


def test_the_after_prefix_assert_of_the_second_edition_is_gone():
  """Issue 22: `after[:len(before)] == before` could not fail; the lesson edits a yielded event."""
  sources = "\n".join(c.source for c in _cells() if c.cell_type == "code")
  assert "[:len(before)] == before" not in sources
  assert "edited by the caller" in sources


def test_the_quiz_asks_what_issue_22_added_and_says_partial_is_false():
  bank = {q["id"]: q for q in yaml.safe_load(BANK.read_text())}
  for question_id in ("temp-within-an-invocation", "output-key-and-callback-writes",
                      "tool-context-injection", "streaming-partial-events"):
    assert question_id in bank, question_id
  streaming = yaml.safe_dump(bank["streaming-partial-events"])
  assert "unset" not in streaming and "partial=False" in streaming
