"""Every lesson keeps the course's shape, so that a new or edited lesson cannot quietly drift.

The style rules (README, "For contributors"): a lesson opens with what the reader will be able
to do, asks the reader to predict before running at least three times, ends with key points,
a quiz and an "I can" checklist, and keeps its core path (everything before "Going further")
to about 45 minutes: at most 60 cells and about 1,800 words of prose. Each lesson's own test
checks its content; this one checks the shape of all of them at once.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
MAX_CORE_CELLS = 60
MAX_CORE_WORDS = 1_800  # markdown words, headings included
GOING_FURTHER = re.compile(r"^#+ .*Going further", re.MULTILINE)


def _cells(lesson: Path) -> list:
  return nbformat.read(lesson, as_version=4).cells


def _core(cells: list) -> list:
  """The cells before the "Going further" heading (all of them when there is none)."""
  end = next((i for i, c in enumerate(cells)
              if c.cell_type == "markdown" and GOING_FURTHER.search(c.source)), len(cells))
  return cells[:end]


def test_every_lesson_is_found():
  assert len(LESSONS) >= 6, [p.name for p in LESSONS]


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_the_core_path_fits_45_minutes(lesson):
  core = _core(_cells(lesson))
  words = sum(len(c.source.split()) for c in core if c.cell_type == "markdown")
  assert len(core) <= MAX_CORE_CELLS, f"{len(core)} core cells: move tangents to Going further"
  assert words <= MAX_CORE_WORDS, f"{words} words of prose: move tangents to Going further"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_a_lesson_opens_with_its_outcomes_and_ends_with_quiz_and_checklist(lesson):
  cells = _cells(lesson)
  assert cells[0].cell_type == "markdown" and "able to" in cells[0].source, \
      "the first cell says what the reader will be able to do"
  code = "\n".join(c.source for c in cells if c.cell_type == "code")
  assert f'show_quiz("{lesson.stem}")' in code, "the lesson shows its own quiz bank"
  assert (ROOT / "quizzes" / f"{lesson.stem}.yaml").exists()
  text = "\n".join(c.source for c in cells if c.cell_type == "markdown")
  assert re.search(r"key points", text, re.IGNORECASE), "key points at the end"
  assert "I can" in text, 'an "I can" checklist'


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_a_lesson_asks_the_reader_to_predict(lesson):
  core = _core(_cells(lesson))
  prompts = sum(1 for c in core if c.cell_type == "markdown"
                and re.search(r"\bpredict", c.source, re.IGNORECASE))
  assert prompts >= 3, f"{prompts} predict-then-run prompts in the core path (at least 3)"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_claims_are_checked_by_visible_asserts(lesson):
  asserts = sum(len(re.findall(r"^\s*assert\b", c.source, re.MULTILINE))
                for c in _cells(lesson) if c.cell_type == "code")
  assert asserts >= 20, f"only {asserts} asserts: every claim about ADK needs one the reader sees"
