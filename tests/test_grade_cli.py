"""The class grader end to end: a folder of mixed submissions (correct, partial, broken,
hostile) graded in one command, with the expected scores, files and exit statuses; the
command's refusals (bad paths, no sandbox); and what reaches a submission's environment."""

from __future__ import annotations

import csv
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from adkcourse.grade.__main__ import main
from adkcourse.grade.checks import EXERCISES
from adkcourse.grade.demo import KINDS, write_class, write_submission
from adkcourse.grade.runner import find_submissions, grade_all

ROOT = Path(__file__).resolve().parent.parent


def read_gradebook(path: Path) -> list[dict[str, str]]:
  with path.open(newline="") as stream:
    return list(csv.DictReader(stream))



def grade_problems(rows: list[dict], expected: dict) -> list[str]:
  """Why each gradebook row does not fit its kind's expectation (full, zero, or partial
  with at least the named checks lost): empty when every row fits, and every kind graded."""
  problems = [f"{name}: not graded" for name in set(expected) - {r["student"] for r in rows}]
  for row in rows:
    failed = set(re.findall(r"([a-z_]+) \([\d.]+/", row["feedback"]))
    problem = expected[row["student"]].problem(float(row["score"]), float(row["max_score"]),
                                               failed)
    problems += [problem] if problem else []
  return problems

def test_a_mixed_class_gets_the_expected_scores(tmp_path, capsys, monkeypatch):
  scratch = tmp_path / "scratch"
  monkeypatch.setenv("ADKCOURSE_SCRATCH", str(scratch))
  expected = write_class(tmp_path / "submissions")
  out = tmp_path / "results" / "gradebook.csv"
  status = main(["forget_user", str(tmp_path / "submissions"), "--out", str(out),
                 "--timeout", "4", "--memory-mb", "1024", "--no-progress"])
  assert status == 0
  rows = read_gradebook(out)
  assert list(rows[0]) == ["student", "exercise", "score", "max_score", "feedback"]
  assert grade_problems(rows, expected) == []
  assert {r["exercise"] for r in rows} == {"forget_user"}
  assert {r["max_score"] for r in rows} == {"13"}
  feedback = {r["student"]: r["feedback"] for r in rows}
  # every way of failing says what happened
  assert "does not parse" in feedback["does_not_parse"]
  assert "no function named `forget_user`" in feedback["no_function"]
  assert "`async def`" in feedback["sync_def"]
  assert "RuntimeError: not finished" in feedback["raises"]
  assert "time limit (4 CPU s for the whole run)" in feedback["ignores_the_alarm"]
  assert "sys.exit(1)" in feedback["calls_sys_exit"]
  assert "exit status 3" in feedback["kills_its_process"]
  assert "MemoryError" in feedback["eats_memory"]
  assert "imported, not defined" in feedback["imports_the_solution"]
  assert "other_users_untouched (0/2)" in feedback["hostile_wipes_everyone"]
  assert "user_state_removed (0/2)" in feedback["api_only"]
  # the same table is printed, and how the submissions were isolated
  printed = capsys.readouterr().out
  for student in expected:
    assert student in printed
  assert printed.splitlines()[0].split() == ["student", "exercise", "score", "max_score",
                                             "feedback"]
  assert f"{len(expected)} submissions graded" in printed
  assert "isolation: bubblewrap" in printed
  # one feedback page per student, next to the gradebook by default
  pages = sorted((tmp_path / "results" / "gradebook-feedback").glob("*.md"))
  assert [p.stem for p in pages] == sorted(expected)
  page = (tmp_path / "results" / "gradebook-feedback" / "api_only.md").read_text()
  score = next(r["score"] for r in rows if r["student"] == "api_only")
  assert f"**Score: {score} / 13**" in page and "| user\\_state\\_removed | 2 | 0 |" in page
  printed_page = (tmp_path / "results" / "gradebook-feedback" / "prints_megabytes.md").read_text()
  printed_size = re.search(r"What your code printed \(first 4,000 of ([\d,]+) bytes\)",
                           printed_page)
  per_call = 50_000 * 201  # what one call prints
  assert printed_size and int(printed_size[1].replace(",", "")) % per_call == 0
  # nothing is left in the scratch folder, nothing lands in the working folder
  assert list(scratch.iterdir()) == []
  assert not (Path.cwd() / "checks").exists()


def test_without_sandbox_the_scores_are_the_same_and_every_page_says_so(tmp_path, capsys):
  kinds = ("correct_notebook", "api_only", "raises", "kills_its_process")
  expected = write_class(tmp_path / "subs", kinds)
  out = tmp_path / "gb.csv"
  assert main(["forget_user", str(tmp_path / "subs"), "--out", str(out), "--no-progress",
               "--sandbox", "none"]) == 0
  assert grade_problems(read_gradebook(out), expected) == []
  printed = capsys.readouterr().out
  assert "isolation: OFF" in printed and "WARNING: isolation was OFF" in printed
  assert all(r["feedback"].startswith("isolation was OFF") for r in read_gradebook(out))
  for page in (tmp_path / "gb-feedback").glob("*.md"):
    assert page.read_text().startswith("> **Isolation was OFF"), page.name


PLANTED = {  # what an instructor's shell may hold; none of it may reach a feedback page
    "PGPASSWORD": "planted-pg-password",
    "AWS_SECRET_ACCESS_KEY": "planted-aws-secret",
    "GOOGLE_APPLICATION_CREDENTIALS": "/home/teacher/planted-service-account.json",
    "GITHUB_TOKEN": "planted-github-token",
    "ADKCOURSE_POSTGRES_URL": "postgresql://teacher:planted-url-password@db/course",
    "SOME_VENDOR_KEY_NOBODY_LISTED": "planted-unlisted-secret",
}


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])
def test_a_submission_sees_only_its_own_folder_and_no_secret(tmp_path, monkeypatch, sandbox):
  from adkcourse.grade.gradebook import feedback_page

  for name, value in PLANTED.items():
    monkeypatch.setenv(name, value)
  monkeypatch.setenv("LC_ALL", "C.UTF-8")
  spy = ("import os\n\nprint(sorted(os.environ.items()))\n\n"
         "async def forget_user(service, db_path, app_name, user_id):\n"
         "    print('cwd', os.getcwd())\n    print('db', db_path)\n"
         "    for name, value in sorted(os.environ.items()):\n"
         "        print(f'{name}={value}')\n")
  (tmp_path / "subs").mkdir()
  for student in ("ann", "ben"):
    (tmp_path / "subs" / f"{student}.py").write_text(spy)
  graded = grade_all("forget_user", find_submissions(tmp_path / "subs"), progress=False,
                     sandbox=sandbox, time_limit=20)
  folders = set()
  for g in graded:
    page = feedback_page(g)
    assert "PATH=" in g.output and "LC_ALL=C.UTF-8" in g.output  # it did print
    for name, value in PLANTED.items():
      assert value not in page and f"{name}=" not in g.output, name
    printed = dict(line.split("=", 1) for line in g.output.splitlines() if "=" in line
                   and not line.startswith(("[", "cwd", "db")))
    assert printed["ADKCOURSE_OFFLINE"] == "1"
    lines = dict(line.split(" ", 1) for line in g.output.splitlines()
                 if line.startswith(("cwd ", "db ")))
    assert lines["db"].startswith(lines["cwd"])
    assert printed["HOME"] != os.environ["HOME"]
    folders.add(lines["cwd"])
  assert len(folders) == 2  # each student its own folder


@pytest.mark.parametrize("name", [e for e in EXERCISES if e != "forget_user"])
def test_other_exercises_grade_from_the_command_line(tmp_path, name):
  """Every other exercise, its PostgreSQL ones included (a private server per submission)."""
  folder = tmp_path / name
  folder.mkdir()
  (folder / "reference.py").write_text((ROOT / "solutions" / f"{name}.py").read_text())
  (folder / "stub.py").write_text((ROOT / "labs" / "exercises" / f"{name}.py").read_text())
  out = tmp_path / f"{name}.csv"
  assert main([name, str(folder), "--out", str(out), "--no-progress"]) == 0
  rows = {r["student"]: r for r in read_gradebook(out)}
  assert rows["reference"]["score"] == rows["reference"]["max_score"], rows["reference"]
  assert rows["stub"]["score"] == "0" and "NotImplementedError" in rows["stub"]["feedback"]


@pytest.mark.parametrize("args, message", [
    (["nope", "{subs}"], "unknown exercise 'nope': choose one of"),
    (["forget_user", "{missing}"], "submissions folder not found"),
    (["forget_user", "{empty}"], "no .ipynb or .py submissions in"),
    (["forget_user", "{subs}", "--jobs", "0"], "--jobs must be at least 1"),
    (["forget_user", "{subs}", "--out", "{link}"], "is a symbolic link"),
    (["forget_user", "{subs}", "--out", "{empty}"], "exists and is not a regular file"),
    (["forget_user", "{subs}", "--out", "{subs}/gb.csv"], "inside the submissions folder"),
    (["forget_user", "{subs}", "--feedback-dir", "{link}"], "is a symbolic link"),
])
def test_usage_errors_exit_2_with_a_clear_message(tmp_path, capsys, args, message):
  folders = {name: tmp_path / name for name in ("subs", "missing", "empty")}
  folders["empty"].mkdir()
  write_submission(folders["subs"].mkdir() or folders["subs"], "ann", "api_only")
  target = tmp_path / "course-file.txt"
  target.write_text("a course file")
  folders["link"] = tmp_path / "link.csv"
  folders["link"].symlink_to(target)
  argv = [a.format(**folders) for a in args]
  if "--out" not in argv:
    argv += ["--out", str(tmp_path / "gb.csv")]
  with pytest.raises(SystemExit) as stopped:
    main(argv)
  assert stopped.value.code == 2
  assert message in capsys.readouterr().err
  assert not (tmp_path / "gb.csv").exists()
  assert target.read_text() == "a course file"


def test_two_files_for_one_student_do_not_stop_the_class(tmp_path, capsys):
  """ann.ipynb + ann.py: ann gets 0 with a note naming both files; everyone else is graded."""
  subs = tmp_path / "subs"
  subs.mkdir()
  write_submission(subs, "ann", "api_only")  # ann.ipynb
  write_submission(subs, "ann", "correct_script")  # ann.py
  write_submission(subs, "bob", "correct_script")
  out = tmp_path / "gb.csv"
  assert main(["forget_user", str(subs), "--out", str(out), "--no-progress"]) == 0
  printed = capsys.readouterr().out
  rows = {r["student"]: r for r in read_gradebook(out)}
  assert set(rows) == {"ann", "bob"}
  assert rows["bob"]["score"] == rows["bob"]["max_score"]
  assert rows["ann"]["score"] == "0"
  note = "two submissions for student 'ann': ann.ipynb and ann.py"
  for text in (rows["ann"]["feedback"], printed,
               (tmp_path / "gb-feedback" / "ann.md").read_text(encoding="utf-8")):
    assert note in text and "keep one and re-submit" in text


def test_look_alike_ids_are_escaped_flagged_and_aligned(tmp_path, capsys):
  """A zero-width joiner, a decomposed accent: ids shown escaped, never two rows that look
  the same, each flagged (terminal, CSV, page) and graded on its own file; the table stays
  aligned with wide and combining characters."""
  subs = tmp_path / "subs"
  subs.mkdir()
  write_submission(subs, "bob", "correct_script")
  victim = (subs / "bob.py").read_text()
  files = ["ada", "ada\u200d", "jos\u00e9", "jose\u0301", "\u65e5\u672c"]
  for name in files:
    (subs / f"{name}.py").write_text(victim)
  (subs / "ada.py").write_text("def forget_user(): pass\n")  # the real ada: 0
  out = tmp_path / "gb.csv"
  assert main(["forget_user", str(subs), "--out", str(out), "--no-progress"]) == 0
  printed = capsys.readouterr().out
  rows = {r["student"]: r for r in read_gradebook(out)}
  assert set(rows) == {"bob", "ada", "ada\\u200d", "jos\u00e9", "jose\\u0301", "\u65e5\u672c"}
  assert rows["ada"]["score"] == "0" and rows["ada\\u200d"]["score"] == "13"
  assert rows["josé"]["score"] == rows["jose\\u0301"]["score"] == "13"
  for one, other in (("ada", "ada\\u200d"), ("josé", "jose\\u0301")):
    for a, b in ((one, other), (other, one)):
      note = f"the id '{a}' looks like '{b}'"
      assert note in rows[a]["feedback"] and note in printed
  assert "looks like" not in rows["bob"]["feedback"] + rows["日本"]["feedback"]
  pages = [p.read_text(encoding="utf-8") for p in (tmp_path / "gb-feedback").iterdir()]
  assert sum("looks like" in page for page in pages) == 4
  assert "\u200d" not in printed and "\u0301" not in printed  # escaped, never raw
  table = printed.split("\n\n")[0].splitlines()
  from adkcourse.grade.hygiene import display_width

  column = [display_width(line.split("forget_user")[0]) for line in table[2:]]
  assert len(set(column)) == 1, table  # every row's exercise starts in the same column
  assert table[2].startswith("ada ")  # the real ada sorts first, not the forged one


def test_unreadable_and_odd_files_are_listed_not_skipped_silently(tmp_path):
  folder = tmp_path / "subs"
  folder.mkdir()
  write_submission(folder, "ann", "correct_script")
  (folder / "notes.txt").write_text("not code")
  (folder / "BEN.PY").write_text("def forget_user(): pass\n")
  (folder / ".carol.ipynb").write_text("{}")
  (folder / "folder.py").mkdir()
  (folder / "link.py").symlink_to(folder / "ann.py")
  skipped: list[str] = []
  found = find_submissions(folder, skipped)
  assert [s.student for s in found] == [".carol", "BEN", "ann"]
  assert sorted(skipped) == ["folder.py: not a regular file",
                             "link.py: a symbolic link, not a file handed in",
                             "notes.txt: not a .ipynb or .py file"]


def test_a_page_that_cannot_be_written_does_not_stop_the_others(tmp_path, capsys):
  write_class(tmp_path / "subs", ("api_only", "no_function"))
  pages = tmp_path / "gb-feedback"
  (pages / "api_only.md").mkdir(parents=True)  # a folder where a page goes
  status = main(["forget_user", str(tmp_path / "subs"), "--out", str(tmp_path / "gb.csv"),
                 "--no-progress"])
  assert status == 1
  assert "feedback page of api_only" in capsys.readouterr().err
  assert (pages / "no_function.md").is_file() and (pages / "api_only.md").is_dir()
  assert len(read_gradebook(tmp_path / "gb.csv")) == 2


def test_without_bubblewrap_the_grader_refuses_with_instructions(tmp_path):
  (tmp_path / "subs").mkdir()
  write_submission(tmp_path / "subs", "zero", "raises")
  env = {**os.environ, "PATH": "/nonexistent"}
  done = subprocess.run([sys.executable, "-m", "adkcourse.grade", "forget_user",
                         str(tmp_path / "subs"), "--out", str(tmp_path / "gb.csv")],
                        capture_output=True, text=True, env=env)
  assert done.returncode == 2
  assert "bubblewrap cannot run here: `bwrap` is not installed" in done.stderr
  assert "apt-get install bubblewrap" in done.stderr and "--sandbox none" in done.stderr
  assert not (tmp_path / "gb.csv").exists()


def test_module_entry_point_and_exit_status(tmp_path):
  write_submission(tmp_path, "zero", "raises")
  command = [sys.executable, "-m", "adkcourse.grade"]
  bad = subprocess.run(command + ["forget_user", str(tmp_path / "nowhere"), "--out",
                                  str(tmp_path / "gb.csv")], capture_output=True, text=True)
  assert bad.returncode == 2 and "submissions folder not found" in bad.stderr
  out = tmp_path.parent / f"{tmp_path.name}-gb.csv"
  good = subprocess.run(command + ["forget_user", str(tmp_path), "--out", str(out)],
                        capture_output=True, text=True,
                        env={**os.environ, "ADKCOURSE_OFFLINE": "1"})
  assert good.returncode == 0, good.stderr  # grading ran, even though every score is 0
  assert "grading forget_user" in good.stderr and "100%" in good.stderr  # the progress bar
  assert read_gradebook(out)[0]["score"] == "0"


def test_demo_kinds_cover_the_issue_cases():
  for kind in ("does_not_parse", "no_function", "sync_def", "raises", "loops_forever",
               "calls_sys_exit", "prints_megabytes", "hostile_wipes_everyone", "moved_cells"):
    assert kind in KINDS


def test_a_seed_gives_the_same_feedback_on_every_run(tmp_path):
  write_class(tmp_path / "subs", ("raises",))
  pages = []
  for run in ("a", "b"):
    out = tmp_path / run / "gb.csv"
    assert main(["forget_user", str(tmp_path / "subs"), "--out", str(out), "--seed", "7",
                 "--no-progress"]) == 0
    pages.append((tmp_path / run / "gb-feedback" / "raises.md").read_text())
  assert pages[0] == pages[1] and "erasing" in pages[0]


def test_a_short_seed_is_warned_about_and_a_long_one_is_not(tmp_path, capsys):
  write_class(tmp_path / "subs", ("no_function",))
  for seed, warned in ((5, True), (2 ** 62 + 7, False)):
    assert main(["forget_user", str(tmp_path / "subs"), "--out", str(tmp_path / f"{seed}.csv"),
                 "--no-progress", "--sandbox", "none", "--seed", str(seed)]) == 0
    assert ("is short: a student can find it" in capsys.readouterr().err) == warned, seed
