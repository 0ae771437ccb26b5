"""Class analytics: students' exports merged, per-question statistics that agree with the
score students saw (scoring.py), and a CSV for 40 generated students. (How long that takes is
benchmarks/quiz_analytics.py's job: CI does not time things.)"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from adkcourse.quiz import cli
from adkcourse.quiz.analytics import STATS_COLUMNS, generate_class, merge, question_stats
from adkcourse.quiz.bank import load_bank
from adkcourse.quiz.export import export_text
from adkcourse.quiz.progress import ProgressStore

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "quiz"


def _attempts(*items: tuple) -> list[dict]:
  """(question, response, correct) triples as history rows, a minute apart."""
  rows, counts = [], {}
  for minute, (question, response, correct) in enumerate(items):
    counts[question] = counts.get(question, 0) + 1
    rows.append({"time": f"2026-01-12T09:{minute:02d}:00.000+00:00", "bank": "two_questions",
                 "question": question, "attempt": counts[question], "response": response,
                 "correct": correct})
  return rows


@pytest.fixture()
def exports(tmp_path):
  """Three students, CSV and JSON, one of them exported twice."""
  students = {
      "ann": _attempts(("temp-prefix", 0, False), ("temp-prefix", 1, True),
                       ("user-table", "user_states", True)),
      "bob": _attempts(("temp-prefix", 1, True), ("user-table", "Sessions", False),
                       ("user-table", "sessions.", False)),
      "cy": _attempts(("temp-prefix", 2, False), ("temp-prefix", 0, False),
                      ("temp-prefix", 1, True)),  # right only after it was shown
  }
  folder = tmp_path / "exports"
  folder.mkdir()
  for user, fmt in (("ann", "csv"), ("bob", "json"), ("cy", "csv")):
    (folder / f"{user}.{fmt}").write_text(export_text(students[user], user, fmt))
  (folder / "ann-again.json").write_text(export_text(students["ann"], "ann", "json"))
  return folder


def test_statistics_per_question(exports):
  attempts = merge([exports])
  assert len(attempts) == 9  # ann's second export adds nothing
  stats = question_stats(attempts, {"two_questions": load_bank(DATA / "two_questions.yaml")})
  assert list(stats.columns) == STATS_COLUMNS
  rows = stats.to_dict("records")
  assert rows[0] == {"bank": "two_questions", "question": "temp-prefix", "students": 3,
                     "first_try_rate": 1 / 3, "right_rate": 2 / 3, "mean_attempts": 2.0,
                     "top_wrong": "0: In later sessions of the same user",
                     "top_wrong_times": 2}
  assert rows[1] == {"bank": "two_questions", "question": "user-table", "students": 2,
                     "first_try_rate": 0.5, "right_rate": 0.5, "mean_attempts": 1.5,
                     "top_wrong": "Sessions", "top_wrong_times": 2}  # "sessions." is the same


def test_command_prints_the_table_and_writes_the_csv(exports, tmp_path, capsys):
  out_csv = tmp_path / "class.csv"
  code = cli.main(["analytics", str(exports), "--csv", str(out_csv),
                   "--quizzes", str(DATA)])
  out, err = capsys.readouterr()
  assert code == 0, err
  lines = out.splitlines()
  assert lines[0].split() == ["question", "students", "1st", "try", "right", "attempts", "most",
                              "chosen", "wrong", "answer"]
  assert lines[1].split() == ["two_questions:temp-prefix", "3", "33%", "67%", "2.00", "0:",
                              "In", "later", "sessions", "of", "the", "same", "user", "(2x)"]
  assert "3 students, 9 attempts, 4 files" in err
  with out_csv.open() as handle:
    table = list(csv.DictReader(handle))
  assert [r["question"] for r in table] == ["temp-prefix", "user-table"]
  assert table[0]["right_rate"] == "0.6667"
  assert cli.main(["analytics", str(tmp_path / "nothing.csv")]) == 1
  assert "no such file" in capsys.readouterr().err


def test_exports_from_real_progress_files_are_read_back(tmp_path, monkeypatch, capsys):
  monkeypatch.setenv("ADKCOURSE_HOME", str(tmp_path / "home"))
  store = ProgressStore()
  store.record("ann", "sentinels", "sentinel-multiple", [0, 1], False)
  store.record("ann", "sentinels", "sentinel-multiple", [0, 2], True)
  store.record("ann", "sentinels", "sentinel-numeric", 73619.7, True)
  for fmt in ("csv", "json"):
    assert cli.main(["export", "--user", "ann", "--format", fmt,
                     "--out", str(tmp_path / "in" / f"ann.{fmt}")]) == 0
  capsys.readouterr()
  attempts = merge([tmp_path / "in"])
  assert len(attempts) == 3
  assert attempts["response"].tolist() == [[0, 1], [0, 2], 73619.7]
  stats = question_stats(attempts, {"sentinels": load_bank(DATA / "sentinels.yaml")})
  assert stats[["question", "top_wrong", "top_wrong_times"]].values.tolist() == [
      ["sentinel-multiple", "1: VISIBLE-OPTION-M1", 1], ["sentinel-numeric", "", 0]]


def test_forty_generated_students_through_the_command(tmp_path):
  files = generate_class(tmp_path / "class", students=40, seed=14)
  assert len(files) == 40 and {f.suffix for f in files} == {".csv", ".json"}
  again = generate_class(tmp_path / "again", students=40, seed=14)
  assert [f.read_bytes() for f in files] == [f.read_bytes() for f in again]  # reproducible
  out_csv = tmp_path / "class.csv"
  result = subprocess.run([sys.executable, "-m", "adkcourse.quiz", "analytics",
                           str(tmp_path / "class"), "--csv", str(out_csv)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=60,
                          env=os.environ.copy())
  assert result.returncode == 0, result.stderr
  questions = sum(len(load_bank(p)) for p in sorted((ROOT / "quizzes").glob("*.yaml")))
  with out_csv.open() as handle:
    table = list(csv.DictReader(handle))
  assert len(table) == questions == len(result.stdout.splitlines()) - 1
  assert all(20 <= int(r["students"]) <= 40 for r in table)
  assert all(0 <= float(r["first_try_rate"]) <= float(r["right_rate"]) <= 1 for r in table)
  assert "40 students" in result.stderr
  json.loads(files[1].read_text())  # the JSON half is what export --format json writes
