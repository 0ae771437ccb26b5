"""How a Report shows in a notebook: every feedback line whole, in text/plain and text/html,
the same bytes run after run; the numbers and the DataFrame stay as lessons use them."""

from __future__ import annotations

import re

import pytest
from IPython.core.formatters import DisplayFormatter

from adkcourse.grade import CheckResult, Report, run_exercise_checks
from labs.exercises.forget_user import forget_user as forget_user_stub


def flat(text: str) -> str:
  return " ".join(text.split())


@pytest.fixture
async def stub_report(tmp_path) -> Report:
  return await run_exercise_checks("forget_user", forget_user_stub, workdir=tmp_path, seed=7)


def test_a_notebook_gets_plain_text_and_html_and_nothing_else(stub_report):
  bundle, _ = DisplayFormatter().format(stub_report)
  assert set(bundle) == {"text/plain", "text/html"}
  assert bundle["text/plain"] == stub_report.to_text()
  assert bundle["text/html"] == stub_report.to_html()


async def test_plain_text_holds_every_feedback_line_in_full(stub_report):
  text = stub_report.to_text()
  assert text.splitlines()[0] == "forget_user: 0 / 13 points (0 of 7 checks passed)"
  assert "`forget_user` raised NotImplementedError" in text
  joined = flat(text)
  for result in stub_report.results:
    assert flat(result.feedback) in joined, result.check  # wrapped, never cut
    assert re.search(rf"^{result.check} +{result.earned:g} / {result.points:g}  ", text, re.M)
  # a DataFrame once cut such a line at "proves nothi...": the lines are long enough to wrap
  assert max(len(result.feedback) for result in stub_report.results) > 200
  assert "nothi..." not in text and "…" not in text
  for line in text.splitlines():
    assert len(line) <= 100 or " " not in line.strip()


def test_long_words_are_never_split_and_nothing_is_dropped():
  word = "x" * 150
  report = Report("demo", [CheckResult("a_check", 2, 1, f"start {word} end: {'y ' * 80}")])
  text = report.to_text(width=60)
  assert word in text
  assert flat(text).endswith(flat(f"start {word} end: {'y ' * 80}"))
  assert all(len(line) <= 60 for line in text.splitlines() if word not in line)


async def test_html_escapes_and_shows_code(stub_report):
  page = stub_report.to_html()
  assert "<code>forget_user</code> raised NotImplementedError" in page
  for result in stub_report.results:
    assert flat(result.feedback) in flat(page), result.check
  tricky = Report("demo", [CheckResult("c", 1, 0, "<script>alert(1)</script> & `x < y`")])
  assert "<script>" not in tricky.to_html()
  assert "&lt;script&gt;" in tricky.to_html() and "<code>x &lt; y</code>" in tricky.to_html()


async def test_the_display_is_the_same_every_run(tmp_path):
  first = await run_exercise_checks("forget_user", forget_user_stub, workdir=tmp_path / "a",
                                    seed=7)
  second = await run_exercise_checks("forget_user", forget_user_stub, workdir=tmp_path / "b",
                                     seed=7)
  assert first.to_text() == second.to_text() and first.to_html() == second.to_html()


async def test_numbers_rows_and_table_are_unchanged(stub_report):
  assert (stub_report.score, stub_report.max_score) == (0, 13)
  assert list(stub_report.rows[0]) == ["check", "points", "earned", "feedback"]
  table = stub_report.table()
  assert list(table.columns) == ["points", "earned", "feedback"]
  assert table.index.name == "check" and len(table) == 7
  assert "report.table()" not in stub_report.to_text()


def test_a_passing_report_without_notes_has_no_what_happened_section():
  report = Report("demo", [CheckResult("ok", 1, 1, "fine")])
  assert report.to_text().splitlines()[:2] == ["demo: 1 / 1 points (1 of 1 checks passed)", ""]
  assert "What happened" not in report.to_text() and "What happened" not in report.to_html()
