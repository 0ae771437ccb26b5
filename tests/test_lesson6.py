"""Lesson 6 (long conversations): its quiz, the shape of its notebook, and the plumbing it uses.

The notebook itself runs under nbval (twice in ``scripts/test.sh``: on the embedded PostgreSQL and
on Debian's). Here: what nbval cannot see.
"""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path

from google.adk.sessions import InMemorySessionService
from google.adk.sessions.sqlite_session_service import SqliteSessionService

from adkcourse.long_sessions import (chat_events, fill_session, median_and_spread, raw_sqlite_read,
                                     timing_cell)
from adkcourse.quiz.bank import check_file

import lesson_source  # tests/lesson_source.py

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK = ROOT / "notebooks" / "06_long_conversations.ipynb"
_cells = partial(lesson_source.cells, NOTEBOOK)
_code = partial(lesson_source.code, NOTEBOOK)
BANK = ROOT / "quizzes" / "06_long_conversations.yaml"


def test_quiz_bank_is_valid_and_long_enough():
  bank, problems = check_file(BANK)
  assert not problems, "\n".join(map(str, problems))
  assert len(bank.questions) >= 8
  assert 'show_quiz("06_long_conversations")' in _code()


def test_lesson_shows_the_adk_calls_it_teaches():
  code = _code()
  for shown in ["GetSessionConfig(num_recent_events=", "after_timestamp=", "RunConfig(get_session_config=",
                "EventsCompactionConfig(", "LlmEventSummarizer(llm=", "App(name=", "rewind_async(",
                'include_contents="none"', "raw_sqlite_read(", "DatabaseSessionService(",
                "SqliteSessionService(", "InMemorySessionService()", "estimate_tokens(",
                "compaction_interval=2, overlap_size=1", "token_threshold=120, event_retention_size=2",
                "artifact_service=artifacts", 'state={"greeted": True}', "repeat_seconds(",
                'run_exercise_checks("fit_the_budget", fit_the_budget, seed=1)']:
    assert shown in code, f"the lesson should show {shown}"
  assert "asyncio.run(" not in code


def test_lesson_size_and_predictions():
  cells = _cells()
  assert len(cells) <= 60
  markdown = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
  core = markdown.split("## Going further")[0]
  assert len(re.findall(r"\S+", core)) <= 1800
  assert markdown.count("Predict, then run") >= 3


def test_plots_are_committed_as_images():
  images = [o for c in _cells() if c["cell_type"] == "code" for o in c.get("outputs", [])
            if "image/png" in o.get("data", {})]
  assert len(images) >= 1


def test_timings_are_reported_never_asserted():
  """A wall-clock timing cell ignores its output and holds no assert (no verdict on luck)."""
  for cell in _cells():
    source = "".join(cell["source"])
    if cell["cell_type"] == "code" and "repeat_seconds(" in source:
      assert source.startswith("# NBVAL_IGNORE_OUTPUT\n#"), source[:80]
      assert not re.search(r"^\s*assert\b", source, re.MULTILINE)


def test_median_and_spread():
  assert median_and_spread([0.3, 0.1, 0.2, 5.0]) == (0.25, 0.1, 5.0)
  assert timing_cell([0.001, 0.002, 0.010]) == "2.0 (1.0-10.0)"


def test_no_solution_before_the_attempt():
  code = _code()
  assert "raise NotImplementedError" in code
  assert "compaction_interval=3, overlap_size=1)\n    return" not in code
  # the reference set-up (solutions/fit_the_budget.py) is not demonstrated anywhere in the lesson
  assert not re.search(r"compaction_interval=3,\s*overlap_size=1", code)


async def test_fill_session_matches_append_event_on_sqlite(tmp_path):
  """The bulk plumbing stores what ``append_event`` would: ADK reads the events back in order."""
  service = SqliteSessionService(str(tmp_path / "s.db"))
  session = await service.create_session(app_name="a", user_id="u")
  await fill_session(service, session, 7)
  loaded = await service.get_session(app_name="a", user_id="u", session_id=session.id)
  assert len(loaded.events) == 7
  assert [e.author for e in loaded.events] == ["user", "barista"] * 3 + ["user"]
  assert len(raw_sqlite_read(str(tmp_path / "s.db"), session)) == 7


async def test_fill_session_in_memory():
  service = InMemorySessionService()
  session = await service.create_session(app_name="a", user_id="u")
  await fill_session(service, session, 4)
  loaded = await service.get_session(app_name="a", user_id="u", session_id=session.id)
  assert len(loaded.events) == 4 and len({e.invocation_id for e in loaded.events}) == 2
