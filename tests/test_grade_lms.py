"""Gradebooks an LMS imports (``--format canvas`` and ``--format moodle``): the columns each
system documents for its import, matching against a roster (a plain CSV, or the LMS's own
gradebook export), and nobody dropped silently (a submission missing from the roster and a
roster entry without a submission are both reported, on stderr and in the notes file).

Grading itself is not what is tested here (tests/test_grade_cli.py does it): the command's
tests replace it with ready-made results, so that this file costs no sandbox."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

import adkcourse.grade.__main__ as cli
from adkcourse.grade.lms import (RosterError, check_roster_for, load_roster, match,
                                 notes_path, write_lms)
from adkcourse.grade.report import CheckResult, Report
from adkcourse.grade.runner import Graded

CANVAS_HEADER = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]


def graded(student: str, score: float, suffix: str = ".py") -> Graded:
  report = Report("forget_user", [CheckResult("sessions_removed", 13, score, "ok"),
                                  CheckResult("no_trace_left", 0, 0, "=HYPERLINK(x)")],
                  ["a note"])
  return Graded(student, Path(f"/submissions/{student}{suffix}"), report)


def rows(text: str) -> list[list[str]]:
  return list(csv.reader(io.StringIO(text)))


def write(path: Path, text: str) -> Path:
  path.write_text(text, encoding="utf-8")
  return path


@pytest.fixture
def roster(tmp_path):
  return write(tmp_path / "roster.csv",
               "student_id,email,name\n"
               "ada,Ada@Example.edu,Ada Lovelace\n"
               "s002,grace@example.edu,Grace Hopper\n"
               "s003,alan@example.edu,Alan Turing\n")


def test_canvas_columns_points_row_and_matching(tmp_path, roster):
  class_ = [graded("ada", 8), graded("grace@example.edu", 13), graded("mallory", 5)]
  out = tmp_path / "canvas.csv"
  notes = write_lms("canvas", class_, load_roster(roster), out, assignment="Forget a user",
                    assignment_id="4711")
  table = rows(out.read_text())
  assert table[0] == CANVAS_HEADER + ["Forget a user (4711)"]
  assert table[1][0].strip() == "Points Possible" and table[1][-1] == "13"
  body = {r[2]: r for r in table[2:]}
  assert body["ada"] == ["Ada Lovelace", "", "ada", "", "", "8"]  # by id
  assert body["s002"][-1] == "13"  # by email, whatever its case
  assert body["s003"][-1] == ""  # no submission: an empty cell, which changes nothing
  assert len(table) == 2 + 3  # one row per roster entry, none for mallory
  # both kinds of gaps are said, never dropped silently
  assert any("mallory" in n and "not in the roster" in n for n in notes)
  assert any("Alan Turing" in n and "no submission" in n for n in notes)
  written = notes_path(out).read_text()
  assert "mallory" in written and "Alan Turing" in written
  assert written.startswith("2 of 3 roster entries graded; 1 submission(s) not in the roster")


def test_a_canvas_export_serves_as_the_roster(tmp_path):
  export = write(tmp_path / "export.csv",
                 "Student,ID,SIS User ID,SIS Login ID,Section,Quiz 1 (12)\n"
                 "    Points Possible,,,,,10\n"
                 '"Lovelace, Ada",101,S001,ada,Lab A,9\n'
                 '"Hopper, Grace",102,S002,ghopper,Lab B,7\n')
  roster = load_roster(export)
  assert roster.source == "canvas export" and len(roster.entries) == 2  # points row skipped
  out = tmp_path / "canvas.csv"
  notes = write_lms("canvas", [graded("ghopper", 11), graded("S001", 4)], roster, out,
                    assignment="forget_user")
  table = rows(out.read_text())
  assert table[0] == CANVAS_HEADER + ["forget_user"]
  assert table[2] == ["Lovelace, Ada", "101", "S001", "ada", "Lab A", "4"]
  assert table[3] == ["Hopper, Grace", "102", "S002", "ghopper", "Lab B", "11"]
  assert notes == []


def test_moodle_columns_feedback_and_a_moodle_export_as_roster(tmp_path):
  export = write(tmp_path / "moodle.csv",
                 "First name,Last name,ID number,Institution,Department,Email address\n"
                 "Ada,Lovelace,1001,,,ada@example.edu\n"
                 "Grace,Hopper,1002,,,grace@example.edu\n")
  roster = load_roster(export)
  assert roster.source == "moodle export"
  out = tmp_path / "moodle.csv"
  notes = write_lms("moodle", [graded("ADA@example.edu", 12), graded("1002", 3, ".ipynb")],
                    roster, out, assignment="Forget a user")
  table = rows(out.read_text())
  assert table[0] == ["ID number", "Email address", "Full name", "Forget a user",
                      "Forget a user feedback"]
  assert table[1][:4] == ["1001", "ada@example.edu", "Ada Lovelace", "12"]
  assert table[2][:4] == ["1002", "grace@example.edu", "Grace Hopper", "3"]
  # the feedback is the gradebook's, a formula defused
  assert "a note" in table[1][4] and not table[1][4].startswith("=")
  assert notes == []


def test_an_unsubmitted_entry_keeps_its_row_with_an_empty_grade_in_moodle(tmp_path, roster):
  out = tmp_path / "moodle.csv"
  notes = write_lms("moodle", [graded("ada", 1)], load_roster(roster), out, assignment="x")
  table = rows(out.read_text())
  assert [r[3] for r in table[1:]] == ["1", "", ""] and [r[4] for r in table[2:]] == ["", ""]
  assert sum("no submission" in n for n in notes) == 2


def test_ambiguous_matches_are_reported_not_guessed(tmp_path, roster):
  # two files for Ada (her id and her email): no grade for her, and a note
  matched = match([graded("ada", 3), graded("ada@example.edu", 9)], load_roster(roster))
  assert 2 not in matched.by_entry
  assert any("2 submissions" in n for n in matched.notes())
  # a file whose name is one student's id and another's login
  clash = write(tmp_path / "clash.csv", "id,login,name\nbob,x1,Bob\nx2,bob,Rob\n")
  matched = match([graded("bob", 3)], load_roster(clash))
  assert not matched.by_entry and "matches several roster entries" in matched.notes()[0]


def test_rosters_that_cannot_be_matched_are_refused(tmp_path):
  with pytest.raises(RosterError, match="no column of student ids or emails"):
    load_roster(write(tmp_path / "a.csv", "name,grade\nAda,3\n"))
  with pytest.raises(RosterError, match="same id 'ada'"):
    load_roster(write(tmp_path / "b.csv", "id,name\nada,Ada\nada,Ada again\n"))
  with pytest.raises(RosterError, match="same email"):
    load_roster(write(tmp_path / "c.csv", "email\nA@x.org\na@X.org\n"))
  with pytest.raises(RosterError, match="line 3: no id and no email"):
    load_roster(write(tmp_path / "d.csv", "id,email,name\nada,,Ada\n,,Nobody\n"))
  # Canvas matches by ID, SIS User ID or SIS Login ID: an email alone cannot be imported
  only_emails = load_roster(write(tmp_path / "e.csv", "email,name\nada@x.org,Ada\n"))
  with pytest.raises(RosterError, match="Canvas matches rows"):
    check_roster_for("canvas", only_emails)
  check_roster_for("moodle", only_emails)
  semicolons = load_roster(write(tmp_path / "f.csv", "\ufeffid;name\nada;Ada\n"))
  assert semicolons.entries[0].id == "ada"  # Excel's BOM and ; separators


# -- the command ------------------------------------------------------------------------------

@pytest.fixture
def fake_grading(monkeypatch, tmp_path):
  """The command with grading replaced by ready-made results (and no sandbox probe)."""
  from adkcourse.grade.sandbox import Isolation

  submissions = tmp_path / "submissions"
  submissions.mkdir()
  for name in ("ada.py", "mallory.ipynb"):
    (submissions / name).write_text("x = 1\n")
  scores = {"ada": 8, "mallory": 2}
  monkeypatch.setattr(cli, "detect", lambda mode: Isolation(enabled=False))
  monkeypatch.setattr(cli, "grade_all", lambda exercise, subs, **kw: [
      graded(s.student, scores[s.student], s.path.suffix) for s in subs])
  return submissions


def test_the_command_writes_canvas_and_reports_both_gaps(tmp_path, roster, fake_grading,
                                                         capsys):
  out = tmp_path / "grades" / "canvas.csv"
  status = cli.main(["forget_user", str(fake_grading), "--out", str(out), "--no-progress",
                     "--format", "canvas", "--roster", str(roster)])
  assert status == 0
  table = rows(out.read_text())
  assert table[0] == CANVAS_HEADER + ["forget_user"]
  assert [r[-1] for r in table[2:]] == ["8", "", ""]
  err = capsys.readouterr().err
  assert "mallory" in err and "not in the roster" in err
  assert "Grace Hopper" in err and "Alan Turing" in err
  assert "mallory" in notes_path(out).read_text()
  assert (tmp_path / "grades" / "canvas-feedback" / "mallory.md").exists()  # still graded


def test_the_command_writes_moodle(tmp_path, roster, fake_grading):
  out = tmp_path / "moodle.csv"
  assert cli.main(["forget_user", str(fake_grading), "--out", str(out), "--no-progress",
                   "--format", "moodle", "--roster", str(roster),
                   "--assignment", "Week 2"]) == 0
  assert rows(out.read_text())[0][3:] == ["Week 2", "Week 2 feedback"]


def test_the_default_stays_the_courses_csv(tmp_path, fake_grading):
  out = tmp_path / "gradebook.csv"
  assert cli.main(["forget_user", str(fake_grading), "--out", str(out), "--no-progress"]) == 0
  assert rows(out.read_text())[0] == ["student", "exercise", "score", "max_score", "feedback"]
  assert not notes_path(out).exists()


@pytest.mark.parametrize("extra, message", [
    (["--format", "canvas"], "--format canvas needs --roster"),
    (["--roster", "r.csv"], "--roster r.csv: no such file"),  # read for its languages too
    (["--assignment-id", "3"], "--assignment-id is for --format canvas"),
    (["--format", "moodle", "--roster", "ROSTER", "--assignment-id", "3"],
     "--assignment-id is for --format canvas"),
    (["--format", "canvas", "--roster", "missing.csv"], "no such file"),
])
def test_usage_errors(tmp_path, roster, fake_grading, capsys, extra, message):
  extra = [str(roster) if e == "ROSTER" else e for e in extra]
  with pytest.raises(SystemExit) as stopped:
    cli.main(["forget_user", str(fake_grading), "--out", str(tmp_path / "o.csv"), *extra])
  assert stopped.value.code == 2
  assert message in capsys.readouterr().err
