"""The class grader end to end: a folder of mixed submissions (correct, partial, broken,
hostile) graded in one command, with the expected scores, files and exit statuses."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

from adkcourse.grade.__main__ import main
from adkcourse.grade.demo import KINDS, write_class, write_submission
from adkcourse.grade.runner import find_submissions, grade_all


def read_gradebook(path: Path) -> list[dict[str, str]]:
  with path.open(newline="") as stream:
    return list(csv.DictReader(stream))


def test_a_mixed_class_gets_the_expected_scores(tmp_path, capsys):
  expected = write_class(tmp_path / "submissions")
  out = tmp_path / "results" / "gradebook.csv"
  status = main(["forget_user", str(tmp_path / "submissions"), "--out", str(out),
                 "--timeout", "3", "--no-progress"])
  assert status == 0
  rows = read_gradebook(out)
  assert list(rows[0]) == ["student", "exercise", "score", "max_score", "feedback"]
  assert {r["student"]: float(r["score"]) for r in rows} == expected
  assert {r["exercise"] for r in rows} == {"forget_user"}
  assert {r["max_score"] for r in rows} == {"13"}
  feedback = {r["student"]: r["feedback"] for r in rows}
  # every way of failing says what happened
  assert "does not parse" in feedback["does_not_parse"]
  assert "no function named `forget_user`" in feedback["no_function"]
  assert "`async def`" in feedback["sync_def"]
  assert "RuntimeError: not finished" in feedback["raises"]
  assert "did not finish within" in feedback["loops_forever"]
  assert "stopped after 3 s (the time limit)" in feedback["ignores_the_alarm"]
  assert "sys.exit(1)" in feedback["calls_sys_exit"]
  assert "printed 10,050,000 characters" in feedback["prints_megabytes"]
  assert "exit status 3" in feedback["kills_its_process"]
  assert "MemoryError" in feedback["eats_memory"]
  assert "imported, not defined" in feedback["imports_the_solution"]
  assert "other_users_untouched (0/2)" in feedback["hostile_wipes_everyone"]
  assert "user_state_removed (0/3)" in feedback["api_only"]
  # the same table is printed
  printed = capsys.readouterr().out
  for student in expected:
    assert student in printed
  assert printed.splitlines()[0].split() == ["student", "exercise", "score", "max_score",
                                             "feedback"]
  assert f"{len(expected)} submissions graded" in printed
  # one feedback page per student, next to the gradebook by default
  pages = sorted((tmp_path / "results" / "gradebook-feedback").glob("*.md"))
  assert [p.stem for p in pages] == sorted(expected)
  page = (tmp_path / "results" / "gradebook-feedback" / "api_only.md").read_text()
  assert "**Score: 10 / 13**" in page and "| user_state_removed | 3 | 0 |" in page
  printed_page = (tmp_path / "results" / "gradebook-feedback" / "prints_megabytes.md").read_text()
  assert "What your code printed (first 4,000 of" in printed_page


def test_scratch_folders_are_removed_and_nothing_lands_elsewhere(tmp_path):
  write_class(tmp_path / "subs", ("correct_script", "hostile_wipes_everyone"))
  scratch = tmp_path / "scratch"
  scratch.mkdir()
  before = set(Path.cwd().iterdir())
  graded = grade_all("forget_user", find_submissions(tmp_path / "subs"), progress=False,
                     scratch=scratch)
  assert [g.report.score for g in graded] == [13, 8]
  assert list(scratch.iterdir()) == []
  assert set(Path.cwd().iterdir()) == before


def test_each_student_runs_in_its_own_folder_without_secrets(tmp_path, monkeypatch):
  monkeypatch.setenv("GOOGLE_API_KEY", "do-not-leak")
  spy = ("import os\n\nasync def forget_user(service, db_path, app_name, user_id):\n"
         "    print('cwd', os.getcwd())\n    print('home', os.environ['HOME'])\n"
         "    print('db', db_path)\n    print('key', 'GOOGLE_API_KEY' in os.environ)\n")
  for student in ("ann", "ben"):
    (tmp_path / f"{student}.py").write_text(spy)
  graded = grade_all("forget_user", find_submissions(tmp_path), progress=False)
  seen = {}
  for g in graded:
    lines = dict(line.split(" ", 1) for line in g.output.splitlines())
    assert lines["key"] == "False"
    assert lines["home"].startswith(lines["cwd"]) and lines["db"].startswith(lines["cwd"])
    seen[g.student] = lines["cwd"]
  assert seen["ann"] != seen["ben"]


PLANTED = {  # what an instructor's shell may hold; none of it may reach a feedback page
    "PGPASSWORD": "planted-pg-password",
    "AWS_SECRET_ACCESS_KEY": "planted-aws-secret",
    "GOOGLE_APPLICATION_CREDENTIALS": "/home/teacher/planted-service-account.json",
    "GITHUB_TOKEN": "planted-github-token",
    "ADKCOURSE_POSTGRES_URL": "postgresql://teacher:planted-url-password@db/course",
    "SOME_VENDOR_KEY_NOBODY_LISTED": "planted-unlisted-secret",
}


@pytest.mark.parametrize("fork", [True, False], ids=["fork", "spawn"])
def test_a_submission_printing_its_environment_leaks_no_secret(tmp_path, monkeypatch, fork):
  from adkcourse.grade.gradebook import feedback_page

  for name, value in PLANTED.items():
    monkeypatch.setenv(name, value)
  monkeypatch.setenv("LC_ALL", "C.UTF-8")
  spy = ("import os\n\nprint(sorted(os.environ.items()))\n\n"
         "async def forget_user(service, db_path, app_name, user_id):\n"
         "    for name, value in sorted(os.environ.items()):\n"
         "        print(f'{name}={value}')\n")
  (tmp_path / "subs").mkdir()
  (tmp_path / "subs" / "spy.py").write_text(spy)
  [graded] = grade_all("forget_user", find_submissions(tmp_path / "subs"), progress=False,
                       fork=fork, time_limit=20)
  page = feedback_page(graded)
  assert "PATH=" in graded.output and "LC_ALL=C.UTF-8" in graded.output  # it did print
  for name, value in PLANTED.items():
    assert value not in page and f"{name}=" not in graded.output, name
  printed = dict(line.split("=", 1) for line in graded.output.splitlines() if "=" in line
                 and not line.startswith("["))
  assert printed["PATH"] == os.environ["PATH"]
  assert printed["ADKCOURSE_OFFLINE"] == "1"


def test_spawn_mode_gives_the_same_scores(tmp_path):
  kinds = ("correct_notebook", "api_only", "raises", "kills_its_process")
  expected = write_class(tmp_path, kinds)
  graded = grade_all("forget_user", find_submissions(tmp_path), progress=False, fork=False,
                     time_limit=20)
  assert {g.student: g.report.score for g in graded} == expected


def test_other_exercises_grade_from_the_command_line(tmp_path):
  root = Path(__file__).resolve().parent.parent
  for name in ("remember_favorite_drink", "copy_user_to"):
    folder = tmp_path / name
    folder.mkdir()
    (folder / "reference.py").write_text((root / "solutions" / f"{name}.py").read_text())
    (folder / "stub.py").write_text((root / "labs" / "exercises" / f"{name}.py").read_text())
    out = tmp_path / f"{name}.csv"
    assert main([name, str(folder), "--out", str(out), "--no-progress"]) == 0
    rows = {r["student"]: r for r in read_gradebook(out)}
    assert rows["reference"]["score"] == rows["reference"]["max_score"]
    assert rows["stub"]["score"] == "0" and "NotImplementedError" in rows["stub"]["feedback"]


@pytest.mark.parametrize("args, message", [
    (["nope", "{subs}"], "unknown exercise 'nope': choose one of"),
    (["forget_user", "{missing}"], "submissions folder not found"),
    (["forget_user", "{empty}"], "no .ipynb or .py submissions in"),
    (["forget_user", "{dupes}"], "two submissions for student 'ann'"),
    (["forget_user", "{subs}", "--jobs", "0"], "--jobs must be at least 1"),
])
def test_usage_errors_exit_2_with_a_clear_message(tmp_path, capsys, args, message):
  folders = {name: tmp_path / name for name in ("subs", "missing", "empty", "dupes")}
  folders["empty"].mkdir()
  write_submission(folders["subs"].mkdir() or folders["subs"], "ann", "api_only")
  folders["dupes"].mkdir()
  write_submission(folders["dupes"], "ann", "api_only")  # ann.ipynb
  write_submission(folders["dupes"], "ann", "correct_script")  # ann.py
  argv = [a.format(**folders) for a in args] + ["--out", str(tmp_path / "gb.csv")]
  with pytest.raises(SystemExit) as stopped:
    main(argv)
  assert stopped.value.code == 2
  assert message in capsys.readouterr().err
  assert not (tmp_path / "gb.csv").exists()


def test_module_entry_point_and_exit_status(tmp_path):
  write_submission(tmp_path, "zero", "raises")
  command = [sys.executable, "-m", "adkcourse.grade"]
  bad = subprocess.run(command + ["forget_user", str(tmp_path / "nowhere"), "--out",
                                  str(tmp_path / "gb.csv")], capture_output=True, text=True)
  assert bad.returncode == 2 and "submissions folder not found" in bad.stderr
  good = subprocess.run(command + ["forget_user", str(tmp_path), "--out",
                                   str(tmp_path / "gb.csv")], capture_output=True, text=True,
                        env={**os.environ, "ADKCOURSE_OFFLINE": "1"})
  assert good.returncode == 0, good.stderr  # grading ran, even though every score is 0
  assert "grading forget_user" in good.stderr and "100%" in good.stderr  # the progress bar
  assert read_gradebook(tmp_path / "gb.csv")[0]["score"] == "0"


def test_demo_kinds_cover_the_issue_cases():
  for kind in ("does_not_parse", "no_function", "sync_def", "raises", "loops_forever",
               "calls_sys_exit", "prints_megabytes", "hostile_wipes_everyone", "moved_cells"):
    assert kind in KINDS
