"""The Gradescope autograder bundle (``python -m adkcourse.grade gradescope``), run offline as
the platform would: Gradescope's folder structure laid out in a throwaway root (standing for
``/autograder``, and for ``/opt/adkcourse`` where setup.sh installs), ``setup.sh`` run with
``ADKCOURSE_PYTHON`` (the part that matters for grading: the package, the student account,
the permissions; not apt and pip, this venv has the requirements), then ``run_autograder``
as root from that root's folder. Every ``results.json`` is validated against a schema written
from Gradescope's specification (``tests/data/gradescope_results.schema.json``).

The submissions run the platform's way: without bubblewrap, as an unprivileged uid (a fresh
uid per case, standing for the user ``student`` setup.sh creates), or with the grader's own
sandbox where the test cannot switch users. The cases run a few at a time; each grades one
``forget_user`` submission, as a container does.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
import time
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

jsonschema = pytest.importorskip("jsonschema")

from adkcourse.grade.__main__ import main
from adkcourse.grade.checks import EXERCISES, get_exercise
from adkcourse.grade.gradescope import bundle_requirements, uid_processes

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((ROOT / "tests" / "data" / "gradescope_results.schema.json").read_text())
EXERCISE = "forget_user"
CHECKS = [c.name for c in get_exercise(EXERCISE).checks]
TIMEOUT = 3  # CPU seconds the submission's calls may use, in the bundle the cases run

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="Gradescope runs Linux containers")


def validate(results: dict) -> None:
  jsonschema.Draft202012Validator(SCHEMA).validate(results)


# -- building ---------------------------------------------------------------------------------

@pytest.mark.parametrize("exercise", EXERCISES)
def test_the_bundle_of_every_exercise_holds_what_the_platform_needs(tmp_path, exercise, capsys):
  out = tmp_path / "autograder.zip"
  assert main(["gradescope", exercise, "--out", str(out)]) == 0
  assert f"Gradescope autograder for {exercise}" in capsys.readouterr().out
  with zipfile.ZipFile(out) as archive:
    infos = {i.filename: i for i in archive.infolist()}
    # the specification's two files, at the root of the archive, executable
    for name in ("setup.sh", "run_autograder"):
      assert name in infos
      assert (infos[name].external_attr >> 16) & 0o111 == 0o111
    assert archive.read("run_autograder").startswith(b"#!/usr/bin/env bash")
    config = json.loads(archive.read("config.json"))
    assert config["exercise"] == exercise and "seed" not in json.dumps(config)
    # the reference of this exercise only, and none of the repository's other folders
    solutions = sorted(n for n in infos if "solutions/" in n)
    assert solutions == ["judge/solutions/__init__.py", f"judge/solutions/{exercise}.py"]
    assert archive.read(f"judge/solutions/{exercise}.py") == \
        (ROOT / "solutions" / f"{exercise}.py").read_bytes()
    assert not [n for n in infos if n.startswith(("tests/", "exercises/", "labs/", "notebooks/"))
                or "__pycache__" in n or n.endswith(".pyc")]
    assert {"course/adkcourse/grade/runner.py", "course/adkcourse/grade/_act.py",
            f"course/adkcourse/grade/checks/{exercise}.py"} <= set(infos)
    # the course's own pins, without the notebook and test tools
    pins = archive.read("requirements.txt").decode().splitlines()
    course = (ROOT / "requirements.txt").read_text().splitlines()
    assert [p for p in pins if not p.startswith("#")]
    assert all(p in course for p in pins if not p.startswith("#"))
    assert not [p for p in pins if p.startswith(("-e", "pytest", "jupyterlab", "playwright"))]
  assert out.stat().st_size < 1_000_000  # small: source, not a virtual environment


def test_gradescope_is_a_command_not_an_exercise(tmp_path, capsys):
  with pytest.raises(SystemExit) as stopped:
    main(["gradescope", "no_such_exercise", "--out", str(tmp_path / "a.zip")])
  assert stopped.value.code == 2
  assert "unknown exercise 'no_such_exercise'" in capsys.readouterr().err
  assert not (tmp_path / "a.zip").exists()


def test_bundle_requirements_keep_pins_and_drop_tools():
  text = "# The course\nA==1\n-e .\n# notebooks\njupyterlab==4\nnbformat==5\n# tests\npytest==9\n"
  assert bundle_requirements(text).splitlines()[1:] == ["A==1", "nbformat==5"]


# -- the platform -----------------------------------------------------------------------------

def _crossable(path: Path) -> bool:
  """Can any user reach ``path`` (every folder above it open to others)?"""
  return all(os.stat(p).st_mode & 0o001 for p in [path, *path.parents] if p.exists())


def _platform_python(folder: Path) -> Path:
  """A virtual environment every user may run (as apt's Python on the platform), with this
  venv's packages (the requirements) but not its editable install of the repository: on the
  platform, nothing of solutions/ is importable."""
  version = f"python{sys.version_info.major}.{sys.version_info.minor}"
  candidates = [Path(sys.base_prefix) / "bin" / version, Path("/usr/bin") / version,
                Path("/usr/local/bin") / version]
  python = next((c for c in candidates if c.exists() and _crossable(c.resolve())), None)
  packages = [Path(p) for p in dict.fromkeys(sysconfig.get_paths()[k] for k in
                                             ("purelib", "platlib"))]
  if python is None or not all(_crossable(p) for p in packages):
    pytest.skip(f"no {version} (or site-packages) that an unprivileged user can run")
  subprocess.run([str(python), "-m", "venv", "--without-pip", str(folder)], check=True,
                 capture_output=True)
  site = subprocess.run([str(folder / "bin" / "python"), "-c",
                         "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                        check=True, capture_output=True, text=True).stdout.strip()
  Path(site, "course-requirements.pth").write_text("".join(f"{p}\n" for p in packages))
  return folder / "bin" / "python"


def _mode() -> str:
  """How the cases run their submissions: as an unprivileged uid (the platform's way)
  when this test runs as root, else in bubblewrap (which does not need root)."""
  if os.geteuid() == 0 and shutil.which("setpriv"):
    return "user"
  from adkcourse.grade.sandbox import SandboxUnavailable, detect

  try:
    detect("bwrap").close()
  except SandboxUnavailable:
    pytest.skip("neither root (to run submissions as another user) nor bubblewrap")
  return "bwrap"


def _free_uids(count: int) -> list[int]:
  found, uid = [], 1_790_000 + (os.getpid() % 997) * 50
  while len(found) < count:
    try:
      pwd.getpwuid(uid)
    except KeyError:
      if not uid_processes(uid):
        found.append(uid)
    uid += 1
  return found


def notebook(source: str) -> bytes:
  cell = {"cell_type": "code", "execution_count": None, "id": "c1", "metadata": {},
          "outputs": [], "source": source}
  return json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4,
                     "nbformat_minor": 5}).encode()


ATTACK = r'''"""A student's attack on run_autograder: read the judge's files (the reference, the
config, the judge's log and folders, other processes' environments), write results.json
itself, and leave a process behind that writes it again after grading. It does none of the
work: 0."""
import json, os, time

ROOT, PREFIX = __ROOT__, __PREFIX__
FAKE = {"score": 999, "tests": [{"name": "sessions_removed", "score": 999, "max_score": 2}]}


def _read(path):
    try:
        with open(path, "rb") as stream:
            print("FOUND", path, stream.read(300))
    except OSError as error:
        print("denied", path, error.strerror)


def _list(path):
    try:
        print("FOUND listing", path, os.listdir(path))
    except OSError as error:
        print("denied listing", path, error.strerror)


def _forge():
    for path in (ROOT + "/results/results.json", ROOT + "/results.json"):
        try:
            with open(path, "w") as stream:
                json.dump(FAKE, stream)
            print("FOUND wrote", path)
        except OSError as error:
            print("denied writing", path, error.strerror)


async def forget_user(service, db_path, app_name, user_id):
    for path in ("/source/judge/solutions/forget_user.py", "/source/config.json",
                 "/submission_metadata.json", "/run_autograder"):
        _read(ROOT + path)
    for path in (ROOT, ROOT + "/results", ROOT + "/source", PREFIX + "/run"):
        _list(path)
    grade = os.path.dirname(db_path)
    while grade != "/" and not os.path.basename(grade).startswith("grade-"):
        grade = os.path.dirname(grade)
    for name in ("judge-0.log", "judge", "judge-home", "s0001/judge", "submissions"):
        _list(os.path.join(grade, name))
        _read(os.path.join(grade, name))
    for pid in os.listdir("/proc"):
        if pid.isdigit() and pid != str(os.getpid()):
            try:
                with open(f"/proc/{pid}/environ", "rb") as stream:
                    if b"AUTOGRADER_ROOT" in stream.read():
                        print("FOUND environ of", pid)
            except OSError:
                pass
            try:  # the judge's command line names the reference (this platform's only)
                with open(f"/proc/{pid}/cmdline", "rb") as stream:
                    for arg in stream.read().split(b"\0"):
                        if b"solutions" in arg and arg.decode().startswith((ROOT, PREFIX)):
                            _read(arg.decode())
            except OSError:
                pass
    _forge()
    if os.fork() == 0:  # a process that outlives the call, forging again and again
        os.setsid()
        if os.fork() == 0:
            for _ in range(120):
                _forge()
                time.sleep(0.25)
        os._exit(0)
    time.sleep(0.2)
'''


class Platform:
  """A throwaway Gradescope: one folder per case with ``autograder/`` and ``opt/``."""

  def __init__(self, bundle: Path, python: Path, mode: str):
    self.bundle, self.python, self.mode = bundle, python, mode
    self.bases: list[Path] = []

  def layout(self) -> tuple[Path, Path]:
    base = Path(tempfile.mkdtemp(prefix="gradescope-", dir="/tmp"))
    base.chmod(0o755)  # as / is: the student's uid crosses it to /opt
    self.bases.append(base)
    root, prefix = base / "autograder", base / "opt"
    (root / "source").mkdir(parents=True)
    with zipfile.ZipFile(self.bundle) as archive:  # "the extracted contents of your zip"
      archive.extractall(root / "source")
      for info in archive.infolist():
        (root / "source" / info.filename).chmod((info.external_attr >> 16) & 0o777)
    shutil.copy2(root / "source" / "run_autograder", root / "run_autograder")
    (root / "submission").mkdir()
    (root / "results").mkdir()
    (root / "submission_metadata.json").write_text(json.dumps(
        {"users": [{"email": "ada@example.edu", "name": "Ada", "id": 1}]}))
    return root, prefix

  def run(self, files: dict[str, bytes], uid: int, deadline: int | None = None,
          isolation: str | None = None) -> dict:
    root, prefix = self.layout()
    for name, data in files.items():
      (root / "submission" / name).write_bytes(
          data.replace(b"__ROOT__", repr(str(root)).encode())
          .replace(b"__PREFIX__", repr(str(prefix)).encode()))
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
           "AUTOGRADER_ROOT": str(root), "ADKCOURSE_PREFIX": str(prefix),
           "ADKCOURSE_PYTHON": str(self.python), "ADKCOURSE_STUDENT_UID": str(uid),
           "ADKCOURSE_GRADESCOPE_ISOLATION": isolation or self.mode}
    if deadline is not None:
      env["ADKCOURSE_DEADLINE"] = str(deadline)
    setup = subprocess.run(["bash", str(root / "source" / "setup.sh")], cwd=root, env=env,
                           capture_output=True, text=True, timeout=120)
    assert setup.returncode == 0, setup.stdout + setup.stderr
    done = subprocess.run([str(root / "run_autograder")], cwd=root, env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stdout + done.stderr
    text = (root / "results" / "results.json").read_text()
    time.sleep(0.5)  # anything left behind would forge it now
    after = (root / "results" / "results.json").read_text()
    return {"results": json.loads(after), "changed": after != text, "stdout": done.stdout,
            "stderr": done.stderr, "root": root, "prefix": prefix, "uid": uid,
            "left": uid_processes(uid) if (isolation or self.mode) == "user" else [],
            "modes": {p: stat.S_IMODE(os.stat(root / p).st_mode)
                      for p in ("", "source", "results")}}

  def close(self) -> None:
    for base in self.bases:
      shutil.rmtree(base, ignore_errors=True)


REFERENCE = (ROOT / "solutions" / f"{EXERCISE}.py").read_bytes()
CASES = {
    "reference": ({"answer.py": REFERENCE}, None),
    "wrong": ({"Forget User (2).ipynb": notebook(
        (ROOT / "tests/exercise_cases/forget_user/wrong_backup_in_tmp.py").read_text())}, None),
    "crash": ({"crash.PY": b"async def forget_user(service, db_path, app_name, user_id)\n"
                           b"    pass\n"}, None),
    "timeout": ({"loop.py": b"async def forget_user(service, db_path, app_name, user_id):\n"
                            b"    while True:\n        pass\n"}, None),
    "hostile": ({"spoof_exit.py": (ROOT / "tests/hostile/spoof_exit.py").read_bytes()}, None),
    "attack": ({"attack.py": ATTACK.encode()}, None),
    "nothing": ({"README.txt": b"I forgot to attach it"}, None),
    "two_files": ({"a.py": b"x = 1\n", "b.ipynb": notebook("y = 2\n")}, None),
    "deadline": ({"answer.py": REFERENCE}, 1),
}


def _bubblewrap_runs() -> bool:
  from adkcourse.grade.sandbox import SandboxUnavailable, detect

  try:
    detect("bwrap").close()
    return True
  except SandboxUnavailable:
    return False


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
  mode = _mode()
  folder = Path(tempfile.mkdtemp(prefix="gradescope-python-", dir="/tmp"))
  folder.chmod(0o755)
  try:
    python = _platform_python(folder / "venv") if mode == "user" else Path(sys.executable)
    bundle = tmp_path_factory.mktemp("bundle") / "autograder.zip"
    assert main(["gradescope", EXERCISE, "--out", str(bundle), "--timeout", str(TIMEOUT),
                 "--memory-mb", "1024"]) == 0
    platform = Platform(bundle, python, mode)
    # bubblewrap's view holds the Python prefixes only: there, this venv itself (its
    # editable install's solutions/ is hidden by the sandbox)
    own = Platform(bundle, Path(sys.executable), "auto")
    uids = _free_uids(len(CASES))
    try:
      with ThreadPoolExecutor(max_workers=3) as pool:
        futures = {name: pool.submit(platform.run, files, uid, deadline)
                   for (name, (files, deadline)), uid in zip(CASES.items(), uids)}
        if mode == "user" and _bubblewrap_runs():  # where it runs, the grader's own sandbox
          futures["bwrap"] = pool.submit(own.run, {"Answer.ipynb": notebook(
              REFERENCE.decode())}, uids[0], None, "auto")
        yield {name: future.result() for name, future in futures.items()}
    finally:
      platform.close()
      own.close()
  finally:
    shutil.rmtree(folder, ignore_errors=True)


def _course_results(run: dict) -> dict:
  """The results file, valid, with one test per check and a total that adds up."""
  results = run["results"]
  validate(results)
  assert [t["name"] for t in results["tests"]] == CHECKS
  for test in results["tests"]:
    assert set(test) >= {"name", "score", "max_score", "output", "visibility"}
    assert 0 <= test["score"] <= test["max_score"]
  assert results["score"] == round(sum(t["score"] for t in results["tests"]), 2)
  assert sum(t["max_score"] for t in results["tests"]) == 13
  # never hidden data: nothing of the reference's code, no secret of the bundle
  text = json.dumps(results)
  source = (ROOT / "exercises" / f"{EXERCISE}.py").read_text()
  solution = source.split("### BEGIN SOLUTION")[1].split("### END SOLUTION")[0]
  body = [line.strip() for line in solution.splitlines() if len(line.strip()) > 25]
  assert body and not [line for line in body if line in text]
  assert not run["changed"] and not run["left"]
  if run["modes"]:
    assert run["modes"][""] == 0o700 and run["modes"]["results"] == 0o700
  return results


def test_the_reference_gets_full_marks(graded):
  results = _course_results(graded["reference"])
  assert results["score"] == 13 and all(t["score"] == t["max_score"] for t in results["tests"])
  assert "isolation" in graded["reference"]["stdout"]


def test_where_bubblewrap_runs_the_bundle_uses_the_graders_sandbox(graded):
  if "bwrap" not in graded:
    pytest.skip("bubblewrap does not run here (or it is what every case used)")
  results = _course_results(graded["bwrap"])
  assert results["score"] == 13
  assert results["extra_data"]["isolation"].startswith("bubblewrap")


def test_a_wrong_notebook_loses_points_and_says_why(graded):
  results = _course_results(graded["wrong"])
  assert 0 < results["score"] < 13
  lost = [t for t in results["tests"] if t["score"] < t["max_score"]]
  assert lost and all(t["output"] for t in lost)


def test_a_syntax_error_is_zero_with_its_line(graded):
  results = _course_results(graded["crash"])
  assert results["score"] == 0
  assert "does not parse" in results["output"] and "line 1" in results["output"]


def test_an_endless_loop_is_stopped_at_its_time_limit(graded):
  results = _course_results(graded["timeout"])
  assert results["score"] == 0
  assert "time limit" in results["output"]


def test_a_forged_score_never_reaches_the_results(graded):
  results = _course_results(graded["hostile"])
  assert results["score"] == 0
  assert "999" not in json.dumps(results["tests"])


def test_a_submission_cannot_read_the_judges_files_or_write_the_results(graded):
  run = graded["attack"]
  results = _course_results(run)
  assert results["score"] == 0
  printed = results["output"]
  assert "denied" in printed  # its attempts ran, and failed
  assert "FOUND" not in printed, printed


def test_no_file_or_several_files_get_zero_and_a_note(graded):
  nothing = _course_results(graded["nothing"])
  assert nothing["score"] == 0 and "no .py or .ipynb file was handed in" in nothing["output"]
  assert "README.txt" in nothing["output"]
  two = _course_results(graded["two_files"])
  assert two["score"] == 0 and "submit exactly one file" in two["output"]


def test_an_autograder_stopped_at_its_deadline_still_leaves_valid_results(graded):
  results = graded["deadline"]["results"]
  validate(results)
  assert results["score"] == 0 and "did not finish within 1 seconds" in results["output"]

