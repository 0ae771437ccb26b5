"""Lesson 2 (notebooks/02_sqlite_memory.ipynb): what issue 22 asked of it stays true.

The lesson's claims about ADK are asserted in its own cells (nbval runs them); this checks the
lesson's shape where a later edit could quietly undo a fix: the facts the exercise and the quiz
need come before the quiz, and the quiz asks about them.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import yaml

ROOT = Path(__file__).resolve().parent.parent
LESSON = ROOT / "notebooks" / "02_sqlite_memory.ipynb"
BANK = ROOT / "quizzes" / "02_sqlite_memory.yaml"


def _cells():
  return nbformat.read(LESSON, as_version=4).cells


def _index(cells, cell_id: str) -> int:
  return next(i for i, c in enumerate(cells) if c.get("id") == cell_id)


def test_the_trap_the_url_classes_and_wal_come_before_the_exercise_and_the_quiz():
  cells = _cells()
  quiz = next(i for i, c in enumerate(cells) if 'show_quiz("02_sqlite_memory")' in c.source)
  exercise = next(i for i, c in enumerate(cells) if c.cell_type == "code"
                  and "def forget_user(" in c.source and "NotImplementedError" in c.source)
  for cell_id in ("cli-urls", "two-schemas", "trap", "wal", "secure-delete-demo"):
    assert _index(cells, cell_id) < exercise < quiz, cell_id
  going_further = next(i for i, c in enumerate(cells) if c.cell_type == "markdown"
                       and c.source.startswith("## Going further"))
  assert quiz < going_further


def test_the_quiz_asks_about_deleted_bytes_the_two_classes_and_the_url():
  ids = [q["id"] for q in yaml.safe_load(BANK.read_text())]
  assert {"deleted-row-bytes", "one-file-two-classes", "cli-url-class"} <= set(ids)
  list_sessions = next(q for q in yaml.safe_load(BANK.read_text()) if q["id"] == "list-sessions-2-13")
  assert "2.13" not in list_sessions["question"]          # no implied version change
  assert "ListSessionsResponse" in list_sessions["explanation"]


def test_the_live_cell_reports_gemini_token_counts():
  cells = _cells()
  live = "\n".join(c.source for c in cells if c.get("id", "").startswith("live-tutor"))
  assert "prompt_token_count" in live and "cached_content_token_count" in live
  assert all(c.source.startswith("# NBVAL_IGNORE_OUTPUT\n") for c in cells
             if c.cell_type == "code" and c.get("id", "").startswith("live-tutor"))
