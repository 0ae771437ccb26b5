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
from adkcourse.grade import gradescope
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
    base = root.parent
    for name, data in files.items():
      (root / "submission" / name).parent.mkdir(parents=True, exist_ok=True)
      (root / "submission" / name).write_bytes(
          data.replace(b"__ROOT__", repr(str(root)).encode())
          .replace(b"__PREFIX__", repr(str(prefix)).encode())
          .replace(b"__STRAY__", str(base.name).encode()))
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
            "ipc": _ipc_of(uid), "base": base,
            "modes": {p: stat.S_IMODE(os.stat(root / p).st_mode)
                      for p in ("", "source", "results")}}

  def close(self) -> None:
    for base in self.bases:
      shutil.rmtree(base, ignore_errors=True)


def _ipc_of(uid: int) -> list[str]:
  """The System V IPC objects ``uid`` owns or created, as /proc/sysvipc lists them."""
  found = []
  for kind in ("shm", "msg", "sem"):
    try:
      lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()
    except OSError:
      continue
    header = lines[0].split() if lines else []
    for line in lines[1:]:
      values = dict(zip(header, line.split()))
      if str(uid) in (values.get("uid"), values.get("cuid")):
        found.append(f"{kind} {line.split()[1]}")
  return found


REFERENCE = (ROOT / "solutions" / f"{EXERCISE}.py").read_bytes()
WRONG_BACKUP = (ROOT / "tests/exercise_cases/forget_user/wrong_backup_in_tmp.py").read_text()
TEMP_COPY = 'os.path.join(tempfile.gettempdir(), "tutor-before-erasure.db")'
assert TEMP_COPY in WRONG_BACKUP


def backup_at(folder: str, pad: int = 0) -> bytes:
  """``wrong_backup_in_tmp`` with its copy at ``folder``/<this case's own name>.db (not in
  $TMPDIR, which the harness points into the work folder), padded with ``pad`` bytes."""
  code = WRONG_BACKUP.replace(TEMP_COPY, repr(folder + "/") + ' + "__STRAY__-backup.db"')
  if pad:
    code = code.replace("    c.backup(b)\n", "    c.backup(b)\n"
                        "  with open(backup, 'ab') as padding:\n"
                        f"    padding.write(bytes({pad}))\n", 1)
  assert code != WRONG_BACKUP and "__STRAY__" in code and (not pad or "padding" in code)
  return code.encode()


# The reference, calling System V IPC first (a place for a copy no judge looks at): the
# lock-down denies it, and whatever would be left is removed
SIGNATURE = b"async def forget_user(service, db_path: str, app_name: str, user_id: str) -> None:\n"
assert REFERENCE.count(SIGNATURE) == 1
SYSV = REFERENCE.replace(SIGNATURE, SIGNATURE + b'''\
  import ctypes, os
  libc = ctypes.CDLL(None, use_errno=True)
  key = 0x41000000 + os.getpid() % 0xFFFF
  for name, args in (("shmget", (key, 1 << 16, 0o1000 | 0o666)),
                     ("msgget", (key, 0o1000 | 0o666)), ("semget", (key, 1, 0o1000 | 0o666))):
    made = getattr(libc, name)(*args)
    print(name.upper(), made, ctypes.get_errno() if made < 0 else 0)
''')
CONTROL_NAME = "a\n\x1b[31mb\u202e.py"  # a newline, an ANSI colour, a right-to-left override
CONTROL_SHOWN = "a\\x0a\\x1b[31mb\\u202e.py"
_RUN_LOCK = os.path.isdir("/run/lock") and bool(os.stat("/run/lock").st_mode & 0o002)
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
    # what it leaves outside its work folder reaches the judge, whatever its size or place
    "padded": ({"backup.py": backup_at("/tmp", pad=gradescope.STRAY_CAP + (1 << 20))}, None),
    **({"run_lock": ({"backup.py": backup_at("/run/lock")}, None)} if _RUN_LOCK else {}),
    "sysv": ({"answer.py": SYSV}, None),
    "control_name": ({CONTROL_NAME: REFERENCE}, None),
    "control_two": ({"x\n\x1b[2J.py": b"x = 1\n", "y\u202eyp.py": b"y = 2\n"}, None),
    "hidden": ({".x.py": b"x = 1\n", "sub dir/real.py": REFERENCE,
                "__MACOSX/sub dir/._real.py": b"\x00\x05\x16\x07junk",
                ".ipynb_checkpoints/real-checkpoint.py": b"y = 2\n"}, None),
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
  # every test's numbers are the judge's own (a string search for "999" also matched a seed)
  assert all(type(t["score"]) in (int, float) and 0 <= t["score"] <= t["max_score"] <= 13
             for t in results["tests"]), results["tests"]
  assert not any(999 in (t["score"], t.get("max_score")) for t in results["tests"])  # its forgery


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




# -- what a submission leaves outside its work folder -----------------------------------------

def _lost_no_trace(results: dict) -> dict:
  return next(t for t in results["tests"] if t["name"] == "no_trace_left")


def test_a_copy_padded_past_the_stray_cap_still_reaches_the_judge(graded):
  """``wrong_backup_in_tmp``, its copy in /tmp made larger than the bytes of strays handed to
  the judge: the copy still reaches it (an empty entry of its name), and costs points."""
  run = graded["padded"]
  copy = Path("/tmp", f"{run['base'].name}-backup.db")
  left = copy.exists()
  copy.unlink(missing_ok=True)  # (if the test fails: never left on the machine)
  results = _course_results(run)
  if run["results"]["extra_data"]["isolation"].startswith("bubblewrap"):
    pytest.skip("graded in bubblewrap: its /tmp is the sandbox's (_act.keep_leftovers)")
  assert results["score"] < 13
  lost = _lost_no_trace(results)
  assert lost["score"] < lost["max_score"] and "backup.db" in lost["output"]
  assert "outside its work folder" in results["output"] and "empty entry" in results["output"]
  assert not left  # removed, too


def test_a_copy_in_run_lock_is_found_and_removed(graded):
  """Any folder the submission's user may write is looked in, not only /tmp: /run/lock."""
  if "run_lock" not in graded:
    pytest.skip("no world-writable /run/lock here")
  run = graded["run_lock"]
  copy = Path("/run/lock", f"{run['base'].name}-backup.db")
  left = copy.exists()
  copy.unlink(missing_ok=True)  # (if the test fails: never left on the machine)
  results = _course_results(run)
  if run["results"]["extra_data"]["isolation"].startswith("bubblewrap"):
    pytest.skip("graded in bubblewrap (its own view of /run)")
  assert results["score"] < 13
  lost = _lost_no_trace(results)
  assert lost["score"] < lost["max_score"] and "run_lock" in lost["output"]
  assert "“/run/lock”" in results["output"]
  assert not left


def test_system_v_ipc_is_denied_and_nothing_of_it_outlives_the_run(graded):
  run = graded["sysv"]
  results = _course_results(run)
  assert results["score"] == 13  # the lock-down breaks nothing the reference does
  printed = results["output"]
  for kind, ident in (item.split() for item in run["ipc"]):  # (the test failing) none kept
    subprocess.run(["ipcrm", {"shm": "-m", "msg": "-q", "sem": "-s"}[kind], ident],
                   capture_output=True)
  for name in ("SHMGET", "MSGGET", "SEMGET"):
    assert f"{name} -1 1" in printed, printed  # EPERM
  assert run["ipc"] == []


def test_a_file_name_with_control_characters_is_escaped_in_the_log(graded):
  run = graded["control_name"]
  results = _course_results(run)
  assert results["score"] == 13
  log = run["stdout"] + run["stderr"]
  assert CONTROL_SHOWN in log
  for raw in ("\x1b", "\u202e", "a\n"):
    assert raw not in log and raw not in json.dumps(results, ensure_ascii=False)


def test_file_names_with_control_characters_are_escaped_in_the_results(graded):
  run = graded["control_two"]
  results = _course_results(run)
  assert results["score"] == 0 and "submit exactly one file" in results["output"]
  text = json.dumps(results, ensure_ascii=False)
  assert "x\\\\x0a\\\\x1b[2J.py" in text and "y\\\\u202eyp.py" in text
  assert "x\\\\x0a\\\\x1b[2J.py" not in run["stdout"]  # (JSON doubles the backslashes)
  assert "x\\x0a\\x1b[2J.py" in run["stdout"] and "y\\u202eyp.py" in run["stdout"]
  for raw in ("\x1b", "\u202e", "x\n"):
    assert raw not in results["output"] and raw not in run["stdout"] + run["stderr"]


def test_hidden_files_and_folders_are_ignored_with_a_note(graded):
  results = _course_results(graded["hidden"])
  assert results["score"] == 13
  assert "3 hidden file(s) or folder(s) ignored" in results["output"]
  assert "“.x.py”" in results["output"]


# -- the pieces, alone --------------------------------------------------------------------------

def test_names_are_shown_with_visible_escapes():
  assert gradescope.shown_name(CONTROL_NAME) == f"“{CONTROL_SHOWN}”"
  assert gradescope.shown_name("ada.py") == "“ada.py”"
  assert gradescope.visible_text("line one\n  \x1b[2Jtwo\u202e") == \
      "line one\n  \\x1b[2Jtwo\\u202e"
  flat = gradescope.flat_name("/tmp/" + "é" * 300 + "/x\ny.db")
  assert len(flat.encode()) <= 200 and flat.endswith("_x\\x0ay.db")


def test_find_submission_ignores_hidden_files_and_folders(tmp_path):
  for name in (".x.py", "real.ipynb", "__MACOSX/._real.ipynb", ".ipynb_checkpoints/a.py",
               ".git/hooks/b.py", "__pycache__/c.py"):
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text("{}")
  notes: list[str] = []
  path, problem = gradescope.find_submission(tmp_path, notes)
  assert path == tmp_path / "real.ipynb" and problem is None
  assert notes and notes[0].startswith("5 hidden file(s) or folder(s) ignored")
  (tmp_path / "real.ipynb").unlink()
  path, problem = gradescope.find_submission(tmp_path)
  assert path is None and "no .py or .ipynb file" in problem and "hidden" in problem


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (files of another uid)")


def _owned_tree(folder: Path, uid: int) -> None:
  os.lchown(folder, uid, uid)
  for current, dirs, names in os.walk(folder):
    for name in dirs + names:
      os.lchown(os.path.join(current, name), uid, uid)


@needs_root
def test_every_stray_is_handed_over_at_least_as_an_entry(tmp_path):
  """Files beyond the cap, FIFOs, sockets, links: an empty entry each, under its flat name;
  beyond the count, one entry saying how many more; all removed, the folders it made too;
  what is not the uid's, or was before (unchanged), left alone."""
  import socket

  uid = _free_uids(1)[0]
  folder = Path(tempfile.mkdtemp(prefix="strays-", dir="/tmp"))
  folder.chmod(0o1777)
  try:
    (folder / "a.db").write_bytes(b"SECRET" * 10)
    with open(folder / "big.db", "wb") as stream:
      stream.truncate(200)
    os.mkfifo(folder / "fifo")
    (folder / "link").symlink_to("/etc/passwd")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(folder / "sock"))
    listener.close()
    (folder / "deep" / "er").mkdir(parents=True)
    (folder / "deep" / "er" / "x.txt").write_bytes(b"deep")
    (folder / "many").mkdir()
    for number in range(30):
      (folder / "many" / f"f{number:02d}").write_bytes(b"m")
    (folder / "before.txt").write_bytes(b"kept")
    (folder / "changed.txt").write_bytes(b"before")
    _owned_tree(folder, uid)
    os.lchown(folder, 0, 0)
    (folder / "roots.txt").write_bytes(b"root's")  # not the uid's: never touched
    before = gradescope.survey(uid, tops=[str(folder)])
    assert before.complete and len(before.owned) == 41  # all below the folder but the root's
    assert before.writable[0] == str(folder)
    # say only these two were there before the submission ran
    before.owned = {gradescope._identity(os.lstat(folder / n))
                    for n in ("before.txt", "changed.txt")}
    (folder / "changed.txt").write_bytes(b"after")  # a new ctime: the submission's now
    strays = gradescope.collect_strays(uid, before=before, cap=100, count=20,
                                       folders=[str(folder)])
    handed = dict(strays.handed())
    assert len(handed) == 20
    flat = gradescope.flat_name
    assert handed[flat(str(folder / "a.db"))] == b"SECRET" * 10
    for name in ("big.db", "fifo", "link", "sock"):  # beyond the cap, or no regular file
      assert handed[flat(str(folder / name))] == b""
    assert handed[flat(str(folder / "changed.txt"))] in (b"after", b"")
    assert flat(str(folder / "before.txt")) not in handed
    assert strays.found == 37 and handed[gradescope.MORE_STRAYS] == b""  # for the 18 more
    assert sorted(p.name for p in folder.iterdir()) == ["before.txt", "roots.txt"]
    notes = " ".join(strays.notes())
    assert "it left 37 file(s)" in notes and "empty entry" in notes and "18 beyond" in notes
  finally:
    shutil.rmtree(folder, ignore_errors=True)


@needs_root
@pytest.mark.parametrize("surveyed", [False, True], ids=["walked-after", "surveyed-before"])
def test_strays_are_looked_for_in_every_folder_the_uid_could_write(surveyed):
  """Not a list of folders: every folder of the machine's file systems the uid could write
  (/run/lock, a world-writable folder deep in a tree, a folder it owns), never its work
  folder. Either the whole machine is walked afterwards, or (as the platform does) before
  the submission runs, for the folders it could write, and afterwards only those. Prints
  how long each walk takes here."""
  uid = _free_uids(1)[0]
  outer = Path(tempfile.mkdtemp(prefix="strays-walk-", dir="/tmp"))
  outer.chmod(0o755)
  places = [outer / "a" / "b" / "open", outer / "home", outer / "work"]
  lock = Path("/run/lock", f"{outer.name}.db")
  try:
    places[0].mkdir(parents=True)
    (outer / "a").chmod(0o711)  # crossed, not listed
    places[0].chmod(0o777)
    before, took = None, 0.0
    if surveyed:
      before = gradescope.survey(uid)
      took = before.seconds
      assert before.complete and str(places[0]) in before.writable
    for place in places[1:]:  # made for it, as the grader makes its folders
      place.mkdir()
      os.chown(place, uid, uid)
    made = [places[0] / "x.db", places[1] / "y.db", places[2] / "judged-in-place.db"]
    if _RUN_LOCK:
      made.append(lock)
    for path in made:
      path.write_bytes(b"data")
      os.chown(path, uid, uid)
    strays = gradescope.collect_strays(uid, exclude=[places[2]], before=before,
                                       folders=gradescope.STRAY_FOLDERS + (str(places[1]),))
    print(f"\nsurvey {took:.2f} s, walk afterwards {strays.seconds:.2f} s")
    names = {n for n, _ in strays.handed()}
    assert names == {gradescope.flat_name(str(p)) for p in made[:2] + made[3:]}
    assert (places[2] / "judged-in-place.db").exists()
    assert not [p for p in made if p.exists() and p.parent != places[2]]
  finally:
    shutil.rmtree(outer, ignore_errors=True)
    lock.unlink(missing_ok=True)


def _python_anyone_runs() -> str:
  version = f"python{sys.version_info.major}.{sys.version_info.minor}"
  for candidate in (Path(sys.base_prefix) / "bin" / version, Path("/usr/bin") / version,
                    Path("/usr/bin/python3"), Path("/usr/local/bin") / version):
    if candidate.exists() and _crossable(candidate.resolve()):
      return str(candidate)
  pytest.skip("no Python that an unprivileged user can run")


MAKE_IPC = r"""
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
IPC_PRIVATE, IPC_CREAT = 0, 0o1000
segment = libc.shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0o600)
address = libc.shmat(segment, None, 0)
ctypes.memmove(address, b"SECRET-IN-SHM", 13)
queue = libc.msgget(IPC_PRIVATE, IPC_CREAT | 0o600)
semaphores = libc.semget(IPC_PRIVATE, 2, IPC_CREAT | 0o600)
print(segment, queue, semaphores)
"""


@needs_root
def test_system_v_ipc_objects_the_uid_left_are_handed_over_and_removed():
  """Where the lock-down could not be applied: a segment, a queue and a semaphore set made
  by the uid outlive it; afterwards they are gone, each an entry for the judge (the
  segment with its bytes)."""
  uid = _free_uids(1)[0]
  made = subprocess.run([_python_anyone_runs(), "-I", "-c", MAKE_IPC], user=uid, group=uid,
                        capture_output=True, text=True, timeout=60, cwd="/")
  assert made.returncode == 0, made.stderr
  segment, queue, semaphores = (int(v) for v in made.stdout.split())
  assert min(segment, queue, semaphores) >= 0
  try:
    assert sorted(_ipc_of(uid)) == sorted([f"shm {segment}", f"msg {queue}",
                                           f"sem {semaphores}"])
    before = gradescope.survey(uid, tops=())
    assert gradescope.collect_ipc(uid, keep=before.owned).found == 0  # there before: kept
    strays = gradescope.collect_ipc(uid)
    handed = dict(strays.handed())
    assert len(handed) == 3 and _ipc_of(uid) == []
    shm = next(v for k, v in handed.items() if k.startswith("sysvipc-shm-"))
    assert shm.startswith(b"SECRET-IN-SHM") and len(shm) == 4096
    assert "3 System V IPC object(s)" in " ".join(strays.notes())
  finally:
    for kind, ident in (("-m", segment), ("-q", queue), ("-s", semaphores)):
      subprocess.run(["ipcrm", kind, str(ident)], capture_output=True)


def test_strays_beyond_what_a_result_holds_become_one_entry():
  from adkcourse.grade.runner import MAX_RETURNED_FILES, parse_result

  theirs = [[f"world-0/f{n}", 1] for n in range(900)]
  result = json.dumps({"files": theirs, "file_notes": ["theirs"]}).encode() + b"\n" + b"x" * 900
  extra = [(f"tmp_s{n}", b"") for n in range(300)]
  header, files = parse_result(gradescope._add_files(result, extra, "elsewhere-sandbox",
                                                     ["ours"]))
  assert len(files) == MAX_RETURNED_FILES
  assert str(files[-1][0]) == f"elsewhere-sandbox/{gradescope.MORE_STRAYS}"
  assert header["file_notes"] == ["ours", "theirs"]
