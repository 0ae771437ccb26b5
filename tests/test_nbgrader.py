"""nbgrader on JupyterHub (``python -m adkcourse.grade nbgrader``, docs/instructors.md section
10): the course folder it writes, the cells' behaviour, and the whole flow with the real
nbgrader.

The end-to-end test installs nbgrader (``NBGRADER``, from PyPI) into a virtual environment of
its own, ``~/.cache/adkcourse/nbgrader-venv-VERSION-pyX.Y-KEY`` (``$XDG_CACHE_HOME`` instead of
``~/.cache`` when set; KEY: this checkout's venv and its requirements), so that a second run
installs nothing. That environment sees this venv's packages through a ``.pth`` file (pip then
adds only what nbgrader needs on top, a few seconds); the notebooks' kernel is this venv's
Python, registered as ``python3`` in a private ``JUPYTER_PATH``, as on a hub whose kernel is
the course's environment. It generates the course folder with our command, runs
``nbgrader generate_assignment`` (and ``release_assignment``, into a private exchange), hands
in two students per exercise (the reference and a wrong solution from
``tests/exercise_cases``), runs ``nbgrader autograde``, reads nbgrader's gradebook
(``nbgrader.api.Gradebook``, and ``nbgrader export``) and asserts that every check's points
and every total are the course grader's: ``python -m adkcourse.grade`` on the same files, with
the same seed, run at the same time as nbgrader.

The first run needs PyPI: without it the test fails and says so, unless ``ADKCOURSE_NO_PYPI=1``
says this machine has no access to it (then it is skipped, unless the environment is cached).
"""

from __future__ import annotations

import csv
import fcntl
import hashlib
import io
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

from adkcourse.grade import nbgrader as nbg
from adkcourse.grade.__main__ import main
from adkcourse.grade.checks import EXERCISES, get_exercise
from adkcourse.grade.report import CheckResult, Report

ROOT = Path(__file__).resolve().parent.parent
NBGRADER = "0.9.6"
NO_PYPI = "ADKCOURSE_NO_PYPI"
SEED = 7_310_448_195_662_017_733  # long: the grade command warns below 2**60
# (exercise, the wrong solution the second student hands in)
CASES = (("forget_user", "wrong_app_glob"), ("remember_favorite_drink", "wrong_lstrip"))
STUDENTS = ("ada", "bob")  # ada hands in the reference, bob the wrong solution

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the grader's sandbox and this test's venv are Linux's")


# -- the course folder ------------------------------------------------------------------------

def test_every_exercise_exports_a_notebook_worth_its_points(tmp_path, capsys):
  assert main(["nbgrader", str(tmp_path / "course")]) == 0
  assert "nbgrader generate_assignment" in capsys.readouterr().out
  for name in EXERCISES:
    notebook = json.loads((tmp_path / "course" / "source" / name / f"{name}.ipynb").read_text())
    cells = notebook["cells"]
    tests = [c for c in cells if c["metadata"].get("nbgrader", {}).get("grade")]
    checks = get_exercise(name).checks
    assert [c["metadata"]["nbgrader"]["points"] for c in tests] == [k.points for k in checks]
    assert ["".join(c["source"]).splitlines()[-1] for c in tests] == [
        f"adkcourse_nbgrader.earned({name!r}, {k.name!r}, {k.points!r})" for k in checks]
    solutions = [c for c in cells if c["metadata"].get("nbgrader", {}).get("solution")]
    code = "\n".join("".join(c["source"]) for c in solutions)
    assert code.count("### BEGIN SOLUTION") == code.count("### END SOLUTION") >= 1
    assert "### HINT" not in code  # hints are comments above the region, kept in the release
    grading = [c for c in cells if c["id"] == f"{name}{nbg.GRADING_SUFFIX}"]
    assert len(grading) == 1 and grading[0]["metadata"]["nbgrader"]["locked"]
    assert notebook["metadata"]["kernelspec"]["name"] == "python3"
  settings = tmp_path / "course" / nbg.SETTINGS_FILE
  assert json.loads(settings.read_text())["seed"] is None
  assert stat.S_IMODE(settings.stat().st_mode) == 0o600  # the seed is a secret


SOURCE = '''"""Exercise: double it."""
import os


### HINT: a helper
### HINT: may help
### BEGIN SOLUTION
def _twice(x):
  return 2 * x
### END SOLUTION


def double(x):
  """Twice x."""
  ### HINT: call it
  ### BEGIN SOLUTION
  return _twice(x)
  ### END SOLUTION
'''


def test_a_module_level_block_becomes_a_helpers_cell():
  """Helpers the reference defines at module level get an answer cell of their own (so the
  function's cell runs without them, once nbgrader has put its stub there), after the code
  before them and before the function; hints become one comment above each region."""
  text, segments = nbg.code_segments("double", SOURCE, "exercises/double.py")
  assert text == "Exercise: double it."
  assert [kind for kind, _ in segments] == ["code", "helpers", "solution"]
  assert segments[0][1] == "import os"
  helpers = segments[1][1].splitlines()
  assert helpers[2:] == ["# Hint: a helper may help", "### BEGIN SOLUTION", "def _twice(x):",
                         "  return 2 * x", "### END SOLUTION"]
  assert segments[2][1].splitlines()[2:] == ["  # Hint: call it", "  ### BEGIN SOLUTION",
                                             "  return _twice(x)", "  ### END SOLUTION"]


def test_a_line_nbgrader_would_take_for_a_marker_is_refused():
  cells = [{"id": "x-text", "metadata": {}, "source": ["Write ### BEGIN HIDDEN TESTS here"]}]
  with pytest.raises(nbg.ExportError, match="x-text"):
    nbg._check_markers(cells, "exercises/x.py", ("### BEGIN SOLUTION", "### END SOLUTION"))


def test_the_export_is_stable_and_never_overwrites_a_change_silently(tmp_path, capsys):
  out = tmp_path / "course"
  args = ["nbgrader", str(out), "--exercise", "forget_user", "--seed", str(SEED)]
  assert main(args) == 0
  assert main(args) == 0
  assert "3 file(s) already up to date" in capsys.readouterr().out
  config = out / "nbgrader_config.py"
  config.write_text(config.read_text() + "c.Exchange.root = '/srv/exchange'\n")
  with pytest.raises(SystemExit) as stopped:
    main(args)
  assert stopped.value.code == 2
  assert "nbgrader_config.py" in capsys.readouterr().err and "Exchange" in config.read_text()
  assert main(args + ["--force"]) == 0
  assert "Exchange" not in config.read_text()
  assert json.loads((out / nbg.SETTINGS_FILE).read_text())["seed"] == SEED


@pytest.mark.parametrize("args, message", [
    (["--exercise", "nope"], "unknown exercise 'nope'"),
    (["--timeout", "0"], "--timeout must be a positive"),
    (["--memory-mb", "10"], "--memory-mb must be at least 256"),
    (["--course-id", "a/b"], "--course-id must be a plain name"),
])
def test_usage_errors_exit_2(tmp_path, capsys, args, message):
  with pytest.raises(SystemExit) as stopped:
    main(["nbgrader", str(tmp_path / "course"), *args])
  assert stopped.value.code == 2 and message in capsys.readouterr().err
  assert not (tmp_path / "course").exists()


def test_a_short_seed_is_warned_about(tmp_path, capsys):
  assert main(["nbgrader", str(tmp_path), "--exercise", "forget_user", "--seed", "42"]) == 0
  assert "--seed 42 is short" in capsys.readouterr().err


def test_the_grading_cells_add_nothing_a_grader_would_run(tmp_path):
  """The grade command, given a handed-in notebook as it is, keeps imports and assignments and
  drops expression statements: the course's own cells add one harmless import, nothing else
  (so grading the ``submitted/`` files directly gives the same points)."""
  from adkcourse.grade.extract import extract

  whole = json.loads(nbg.source_notebook("forget_user"))
  (tmp_path / "whole.ipynb").write_text(json.dumps(whole))
  (tmp_path / "students.ipynb").write_text(json.dumps(nbg.student_cells(whole)))
  lines = {name: set(extract(tmp_path / f"{name}.ipynb", "forget_user").code.splitlines())
           for name in ("whole", "students")}
  assert {line for line in lines["whole"] - lines["students"]
          if line.strip() and not line.startswith("# --- cell")} == {
      "import adkcourse.grade.nbgrader as adkcourse_nbgrader"}


# -- the cells, in a kernel ------------------------------------------------------------------

def _report(earned: float) -> Report:
  return Report("forget_user", [CheckResult("sessions_removed", 2, earned, "feedback words"),
                                CheckResult("events_removed", 2, 2, "fine")])


def test_a_test_cell_returns_the_points_as_a_number(capsys, monkeypatch):
  monkeypatch.setitem(nbg._REPORTS, "forget_user", _report(1.5))
  assert nbg.earned("forget_user", "sessions_removed", 2) == 1.5
  assert nbg.earned("forget_user", "events_removed", 2) == 2.0
  printed = capsys.readouterr()
  assert "sessions_removed: 1.5 / 2. feedback words" in printed.out and printed.err == ""


def test_a_test_cell_stays_within_its_points(capsys, monkeypatch):
  """A notebook exported when a check was worth 2 points, graded now that it is worth 4: the
  cell's share of its own points (nbgrader refuses more than the cell's maximum)."""
  report = Report("forget_user", [CheckResult("sessions_removed", 4, 3, "x")])
  monkeypatch.setitem(nbg._REPORTS, "forget_user", report)
  assert nbg.earned("forget_user", "sessions_removed", 2) == 1.5
  assert nbg.earned("forget_user", "no_such_check", 2) == 0.0
  assert "export the notebooks again" in capsys.readouterr().out


def test_a_test_cell_before_grading_earns_nothing(capsys, monkeypatch):
  monkeypatch.delitem(nbg._REPORTS, "forget_user", raising=False)
  assert nbg.earned("forget_user", "sessions_removed", 2) == 0.0
  assert "run the grading cell above first" in capsys.readouterr().out


def test_only_the_students_cells_are_graded():
  notebook = {"nbformat": 4, "cells": [
      {"cell_type": "markdown", "metadata": {}, "source": "# text"},
      {"cell_type": "code", "metadata": {}, "source": "import os"},
      {"cell_type": "code", "metadata": {"nbgrader": {"solution": True, "grade": False}},
       "source": "def f(): pass"},
      {"cell_type": "code", "metadata": {"nbgrader": {"locked": True}}, "source": "SEED = 1"},
      {"cell_type": "code", "metadata": {"nbgrader": {"grade": True, "points": 2}},
       "source": "check()"},
      {"cell_type": "code", "metadata": {"nbgrader": {"solution": True, "grade": True}},
       "source": "def g(): pass"}]}
  kept = nbg.student_cells(notebook)["cells"]
  assert [c["source"] for c in kept] == ["import os", "def f(): pass", "def g(): pass"]


def test_autograde_settings_come_from_the_course_folder_only(tmp_path, monkeypatch):
  """At autograde the kernel's folder is autograded/STUDENT/ASSIGNMENT, which also holds what
  the student handed in: a settings file there (a seed of their choosing, no sandbox) is
  never read, only the course folder's."""
  folder = tmp_path / "autograded" / "ada" / "forget_user"
  folder.mkdir(parents=True)
  (folder / nbg.SETTINGS_FILE).write_text(json.dumps({"seed": 1, "sandbox": "none"}))
  monkeypatch.chdir(folder)
  monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
  settings, note = nbg._settings()
  assert settings["seed"] is None and settings["sandbox"] == "auto"
  assert "could not be read" in note
  (tmp_path / nbg.SETTINGS_FILE).write_text(nbg.settings_text(SEED, 12, 1024, "bwrap"))
  settings, note = nbg._settings()
  assert settings == {"seed": SEED, "timeout": 12.0, "memory_mb": 1024, "sandbox": "bwrap"}
  assert note is None and nbg._student() == "ada"


def test_without_bubblewrap_the_grading_says_it_ran_without_isolation(monkeypatch, capsys):
  """``--sandbox auto`` grades as ``--sandbox none`` where bubblewrap cannot run, and says so;
  ``--sandbox bwrap`` refuses."""
  from adkcourse.grade import runner, sandbox

  class Off:
    enabled = False

    def describe(self):
      return "OFF"

    def close(self):
      pass

  def no_bwrap(mode="bwrap"):
    if mode == "bwrap":
      raise sandbox.SandboxUnavailable("bwrap: not installed")
    return Off()

  def graded(exercise, submissions, **options):
    assert options["isolation"].enabled is False
    return [runner.Graded(submissions[0].student, submissions[0].path,
                          get_exercise(exercise).zero_report("stand-in"), isolation_off=True)]

  monkeypatch.setattr(sandbox, "detect", no_bwrap)
  monkeypatch.setattr(runner, "grade_all", graded)
  request = {"exercise": "forget_user", "path": "x.ipynb", "student": "ada", "seed": None,
             "timeout": 30.0, "memory_mb": 2048, "sandbox": "auto"}
  nbg._grade_main(json.dumps(request))
  answer = json.loads(capsys.readouterr().out)
  assert answer["fallback"] == "bwrap: not installed" and answer["isolation_off"] is True
  nbg._grade_main(json.dumps({**request, "sandbox": "bwrap"}))
  assert "bubblewrap cannot grade here" in json.loads(capsys.readouterr().out)["error"]


# -- the real nbgrader ------------------------------------------------------------------------

def _cache_root() -> Path:
  base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
  return Path(base) / "adkcourse"


def _course_site_packages() -> list[str]:
  return list(dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib")))


def _venv_key() -> str:
  """This checkout's venv and its requirements: a cached environment made for another one
  (other packages, another path in its .pth) is never used."""
  text = "\n".join([sys.prefix, *_course_site_packages(),
                    (ROOT / "requirements.txt").read_text(encoding="utf-8")])
  return hashlib.sha256(text.encode()).hexdigest()[:12]


def _run(command, *, cwd=None, env=None, timeout=1800) -> subprocess.CompletedProcess:
  done = subprocess.run([str(part) for part in command], cwd=cwd, env=env, timeout=timeout,
                        capture_output=True, text=True, stdin=subprocess.DEVNULL)
  assert done.returncode == 0, (f"{' '.join(map(str, command))} exited {done.returncode}:\n"
                                f"{done.stdout[-3000:]}\n{done.stderr[-6000:]}")
  return done


@pytest.fixture(scope="module")
def nbgrader_venv() -> Path:
  """The cached virtual environment with nbgrader ``NBGRADER`` (made, under a lock, if
  missing). Its ``.pth`` makes this venv's packages importable there, ``site.addsitedir`` so
  that their own ``.pth`` files (this checkout's editable install) work too; pip installs only
  what this venv lacks (nbgrader and rapidfuzz, a few seconds)."""
  venv = _cache_root() / f"nbgrader-venv-{NBGRADER}-py{sys.version_info.major}." \
                         f"{sys.version_info.minor}-{_venv_key()}"
  ready = venv / ".adkcourse-ready"
  marker = f"nbgrader=={NBGRADER}, bin/alembic\n"
  venv.parent.mkdir(parents=True, exist_ok=True)
  with open(venv.parent / f".{venv.name}.lock", "w") as lock:
    fcntl.flock(lock, fcntl.LOCK_EX)  # two test runs at once: one installs, the other waits
    if ready.is_file() and ready.read_text() == marker:
      return venv
    if os.environ.get(NO_PYPI, "").strip() not in ("", "0"):
      pytest.skip(f"{NO_PYPI} is set and nbgrader {NBGRADER} is not cached in {venv}")
    shutil.rmtree(venv, ignore_errors=True)
    _run([sys.executable, "-m", "venv", "--without-pip", venv])
    site = subprocess.run([venv / "bin" / "python", "-c",
                           "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          check=True, capture_output=True, text=True).stdout.strip()
    Path(site, "adkcourse-course.pth").write_text(
        "".join(f"import site; site.addsitedir({p!r})\n" for p in _course_site_packages()))
    started = time.monotonic()
    install = subprocess.run(
        [venv / "bin" / "python", "-m", "pip", "install", "--disable-pip-version-check",
         "--no-input", f"nbgrader=={NBGRADER}"], capture_output=True, text=True, timeout=900)
    if install.returncode != 0:
      shutil.rmtree(venv, ignore_errors=True)
      pytest.fail(f"pip could not install nbgrader=={NBGRADER} from PyPI (is PyPI reachable "
                  f"from here? On a machine without it, set {NO_PYPI}=1 to skip this test):\n"
                  f"{install.stdout[-2000:]}\n{install.stderr[-3000:]}")
    # nbgrader runs the program `alembic` to stamp a new gradebook; pip made no such program
    # here (alembic is this venv's), and this venv's own would run without nbgrader
    alembic = venv / "bin" / "alembic"
    alembic.write_text(f"#!{venv / 'bin' / 'python'}\nimport sys\n"
                       "from alembic.config import main\nsys.exit(main())\n")
    alembic.chmod(0o755)
    print(f"installed nbgrader {NBGRADER} in {venv} in {time.monotonic() - started:.0f} s")
    ready.write_text(marker)
  return venv


def _nbgrader_env(venv: Path, folder: Path) -> dict[str, str]:
  """nbgrader's environment: its venv's and this venv's programs first (nbgrader calls
  ``alembic``), a private Jupyter (no user config) whose ``python3`` kernel is this venv's
  Python, the course's own Python (as a hub whose kernel is the course's environment)."""
  kernel = folder / "jupyter" / "kernels" / "python3"
  kernel.mkdir(parents=True)
  (kernel / "kernel.json").write_text(json.dumps({
      "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
      "display_name": "Python 3 (the course)", "language": "python"}))
  env = dict(os.environ)
  env.update(PATH=os.pathsep.join([str(venv / "bin"), str(Path(sys.executable).parent),
                                   env.get("PATH", "/usr/bin:/bin")]),
             JUPYTER_PATH=str(folder / "jupyter"), JUPYTER_CONFIG_DIR=str(folder / "config"),
             JUPYTER_DATA_DIR=str(folder / "data"), JUPYTER_RUNTIME_DIR=str(folder / "runtime"),
             IPYTHONDIR=str(folder / "ipython"), JUPYTER_PLATFORM_DIRS="1")
  env.pop("NBGRADER_EXECUTION", None)
  return env


def _hand_in(course: Path, exercise: str, student: str, code: str) -> Path:
  """The released notebook with ``code`` in its solution cell, as a student saves it."""
  notebook = json.loads((course / "release" / exercise / f"{exercise}.ipynb").read_text())
  (cell,) = [c for c in notebook["cells"]
             if c["metadata"].get("nbgrader", {}).get("grade_id") == f"{exercise}-solution"]
  cell["source"] = code
  path = course / "submitted" / student / exercise / f"{exercise}.ipynb"
  path.parent.mkdir(parents=True)
  path.write_text(json.dumps(notebook, indent=1))
  return path


def _page_rows(page: Path) -> dict[str, tuple[float, float]]:
  """check -> (earned, points) from a feedback page's check table."""
  rows = {}
  for line in page.read_text(encoding="utf-8").splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) >= 4 and re.fullmatch(r"[\d.]+", cells[1]) and re.fullmatch(r"[\d.]+",
                                                                               cells[2]):
      rows[cells[0].replace("\\", "")] = (float(cells[2]), float(cells[1]))
  return rows


GRADEBOOK = """
import json, sys
from nbgrader.api import Gradebook
found = {}
with Gradebook(sys.argv[1]) as gradebook:
  for name in sys.argv[2:]:
    for submission in gradebook.find_assignment(name).submissions:
      cells = {g.name: [g.score, g.max_score, g.auto_score]
               for notebook in submission.notebooks for g in notebook.grades}
      found.setdefault(name, {})[submission.student.id] = {
          "score": submission.score, "max_score": submission.max_score, "cells": cells}
print(json.dumps(found))
"""


def test_nbgrader_gives_every_check_the_course_graders_points(nbgrader_venv, tmp_path):
  timings: dict[str, float] = {}
  clock = time.monotonic()

  def lap(what: str) -> None:
    nonlocal clock
    timings[what] = time.monotonic() - clock
    clock = time.monotonic()

  env = _nbgrader_env(nbgrader_venv, tmp_path)
  nbgrader = nbgrader_venv / "bin" / "nbgrader"
  course = tmp_path / "course"
  exercises = [name for name, _ in CASES]
  _run([sys.executable, "-m", "adkcourse.grade", "nbgrader", course, "--seed", SEED,
        *[arg for name in exercises for arg in ("--exercise", name)]])
  exchange = tmp_path / "exchange"  # nbgrader's exchange, private to this test
  exchange.mkdir()
  for name in exercises:
    _run([nbgrader, "generate_assignment", name], cwd=course, env=env)
  _run([nbgrader, "release_assignment", exercises[0], f"--Exchange.root={exchange}"],
       cwd=course, env=env)
  assert (exchange / "adkcourse" / "outbound" / exercises[0] / f"{exercises[0]}.ipynb").is_file()
  lap("export + generate_assignment + release_assignment")

  handed_in: dict[tuple[str, str], Path] = {}
  for name, wrong in CASES:
    release = (course / "release" / name / f"{name}.ipynb").read_text()
    reference = (ROOT / "solutions" / f"{name}.py").read_text()
    body = [line for line in reference.splitlines()[-12:] if line.strip()][-1]
    assert body not in release and "raise NotImplementedError()" in release
    assert str(SEED) not in release and not (course / "release" / name / nbg.SETTINGS_FILE
                                             ).exists()
    sources = {"ada": reference,
               "bob": (ROOT / "tests" / "exercise_cases" / name / f"{wrong}.py").read_text()}
    for student in STUDENTS:
      handed_in[name, student] = _hand_in(course, name, student, sources[student])

  # The course grader on the same files (the docs' recipe: one file per student, named after
  # them), at the same time as nbgrader: separate processes, separate folders.
  cli = {}
  for name in exercises:
    flat = tmp_path / "flat" / name
    flat.mkdir(parents=True)
    for student in STUDENTS:
      shutil.copyfile(handed_in[name, student], flat / f"{student}.ipynb")
    cli[name] = subprocess.Popen(
        [sys.executable, "-m", "adkcourse.grade", name, str(flat), "--out",
         str(tmp_path / "grades" / f"{name}.csv"), "--seed", str(SEED), "--no-progress"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
  try:
    for name in exercises:
      _run([nbgrader, "autograde", name], cwd=course, env=env)
    lap("nbgrader autograde (4 notebooks)")
  finally:
    outputs = {name: process.communicate(timeout=1800)[0] for name, process in cli.items()}
  for name, process in cli.items():
    assert process.returncode == 0, outputs[name]
  lap("the grade command, waited for after autograde")

  _run([nbgrader, "export", "--to", tmp_path / "nbgrader-grades.csv"], cwd=course, env=env)
  found = json.loads(_run([nbgrader_venv / "bin" / "python", "-c", GRADEBOOK,
                           f"sqlite:///{course / 'gradebook.db'}", *exercises]).stdout)
  lap("nbgrader export + reading the gradebook")
  exported = list(csv.DictReader(io.StringIO((tmp_path / "nbgrader-grades.csv").read_text())))

  partial, totals = [], []
  for name, _ in CASES:
    checks = get_exercise(name).checks
    maximum = sum(check.points for check in checks)
    with open(tmp_path / "grades" / f"{name}.csv", encoding="utf-8") as stream:
      course_scores = {row["student"]: float(row["score"]) for row in csv.DictReader(stream)}
    for student in STUDENTS:
      mine = found[name][student]
      rows = _page_rows(tmp_path / "grades" / f"{name}-feedback" / f"{student}.md")
      assert set(rows) == {check.name for check in checks}
      for check in checks:
        score, points, auto = mine["cells"][f"{name}-check-{check.name}"]
        assert points == check.points == rows[check.name][1]
        assert score == auto == pytest.approx(rows[check.name][0], abs=1e-9), (name, student,
                                                                                check.name)
        if 0 < score < points:
          partial.append((name, student, check.name, score, points))
      assert set(mine["cells"]) == {f"{name}-check-{check.name}" for check in checks}
      assert mine["max_score"] == maximum
      assert mine["score"] == pytest.approx(course_scores[student], abs=1e-9), (name, student)
      totals.append(f"{name}/{student}: nbgrader {mine['score']:g}, course "
                    f"{course_scores[student]:g} of {maximum:g}")
      (row,) = [r for r in exported if r["assignment"] == name and r["student_id"] == student]
      assert float(row["score"]) == pytest.approx(course_scores[student], abs=1e-9)
    assert course_scores["ada"] == maximum > course_scores["bob"]
  assert partial, "no check met in only some worlds: partial credit was not exercised"

  from adkcourse.grade.sandbox import SandboxUnavailable, detect

  try:
    detect("bwrap").close()
    isolated = True
  except SandboxUnavailable:
    isolated = False
  for name in exercises:
    for student in STUDENTS:
      autograded = (course / "autograded" / student / name / f"{name}.ipynb").read_text()
      assert str(SEED) not in autograded  # the seed never reaches a notebook (or feedback)
      assert ("isolation: bubblewrap" in autograded) == isolated
      assert ("graded WITHOUT isolation" in autograded) == (not isolated)
  print("\n" + "; ".join(f"{what}: {seconds:.0f} s" for what, seconds in timings.items()))
  print("scores:", "; ".join(totals))
  print("partial credit:", partial)
