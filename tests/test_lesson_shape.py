"""Every lesson keeps the course's shape, so that a new or edited lesson cannot quietly drift.

The style rules (README, "For contributors"): a lesson opens with what the reader will be able
to do, asks the reader to predict before running at least three times, ends with key points,
a quiz and an "I can" checklist, and keeps its core path (everything before "Going further")
within 45 minutes by the course's reading-time rule (adkcourse/reading_time.py), which the
lesson states; no core code cell is longer than 15 lines. Each lesson's own test checks its
content; this one checks the shape of all of them at once.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from adkcourse import reading_time

ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
MAX_CORE_CELLS = 60


def _cells(lesson: Path) -> list:
  return nbformat.read(lesson, as_version=4).cells


def _core(cells: list) -> list:
  """The cells before the "Going further" heading (all of them when there is none)."""
  return reading_time.split_core(cells)[0]


def test_every_lesson_is_found():
  assert len(LESSONS) >= 6, [p.name for p in LESSONS]


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_the_core_path_fits_45_minutes_by_the_rule_and_says_so(lesson):
  cells = _cells(lesson)
  core = _core(cells)
  time = reading_time.measure(core)
  assert len(core) <= MAX_CORE_CELLS, f"{len(core)} core cells: move tangents to Going further"
  assert time.minutes <= reading_time.CORE_LIMIT_MINUTES, (
      f"{time.minutes:.1f} minutes by the rule ({time}): move tangents to Going further")
  assert reading_time.stated_minutes(cells) == time.stated, (
      f"the first cell must say 'About {time.stated} minutes' ({time.minutes:.1f} by the rule)")


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.stem)
def test_every_core_code_cell_does_one_thing(lesson):
  long_cells = [(c.get("id"), reading_time.code_lines(c)) for c in _core(_cells(lesson))
                if c.cell_type == "code"
                and reading_time.code_lines(c) > reading_time.MAX_CORE_CELL_LINES]
  assert not long_cells, (f"core code cells over {reading_time.MAX_CORE_CELL_LINES} lines "
                          f"(cell id, lines): {long_cells}")


def test_the_rule_counts_what_it_says():
  cells = [nbformat.v4.new_markdown_cell(" ".join(["word"] * 400) + "\n\nPredict, then run."),
           nbformat.v4.new_code_cell("a = 1\n\n# a comment counts\nb = 2"),
           nbformat.v4.new_markdown_cell("## Going further"),
           nbformat.v4.new_code_cell("\n".join(["x = 1"] * 50))]
  core, further = reading_time.split_core(cells)
  time = reading_time.measure(core)
  assert (time.words, time.code_lines, time.code_cells, time.predictions) == (403, 3, 1, 1)
  # 403 words at 200 a minute, 3 lines at 6 s, one cell at 20 s, one prediction at 60 s
  assert time.minutes == pytest.approx(403 / 200 + (18 + 20 + 60) / 60)
  assert time.stated == 5
  assert reading_time.measure(further).code_lines == 50
  assert reading_time.stated_minutes(
      [nbformat.v4.new_markdown_cell("About 35 minutes (the rule: ...).")]) == 35


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
  assert f'show_checklist("{lesson.stem}")' in code, 'the "I can" boxes can be ticked'


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
