"""The sandbox and the trust boundary, piece by piece: what a sandbox sees and may do, that
nothing outlives it, and that nothing the sandbox sends can break or bend the judge."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path, PurePosixPath

import pytest

from adkcourse.grade.checks import get_exercise
from adkcourse.grade.hygiene import clean, csv_cell, escape_id, md, safe_filename
from adkcourse.grade.report import CheckResult, Report
from adkcourse.grade.runner import Malformed, parse_result, rebuild_report, restore_files
from adkcourse.grade.sandbox import Sandbox, SandboxUnavailable, detect

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def sandbox():
  try:
    isolation = detect("bwrap")
  except SandboxUnavailable as error:
    pytest.fail(f"bubblewrap is required: {error}")
  yield Sandbox(isolation)
  isolation.close()


PROBE = r"""
import os, socket, subprocess, sys
def can(action):
    try:
        action()
        return "yes"
    except Exception as error:
        return type(error).__name__
print("uid", os.getuid())
print("pids", sorted(int(p) for p in os.listdir("/proc") if p.isdigit()))
print("repo", sorted(os.listdir(os.path.dirname(list(__import__("adkcourse").__path__)[0]))))
print("solutions", can(lambda: __import__("solutions")))
print("env", sorted(os.environ))
print("net", can(lambda: socket.create_connection(("1.1.1.1", 53), timeout=2)))
print("write-course", can(lambda: open(os.path.join(__import__("adkcourse").__path__[0], "x"), "w")))
print("write-root", can(lambda: open("/x", "w")))
print("write-work", can(lambda: open("/w/x", "w").write("ok")))
print("fill-work", can(lambda: open("/w/big", "wb").write(b"x" * (3 << 20))))
print("tty", can(lambda: open("/dev/tty")))
subprocess.Popen(["/bin/sh", "-c", "sleep 30; : sandbox-probe-left-running"], start_new_session=True)
"""


def test_what_a_sandbox_sees_and_may_do(sandbox, monkeypatch):
  monkeypatch.setenv("PLANTED_SECRET", "do-not-leak")
  run = sandbox.run([sys.executable, "-I", "-c", PROBE], deadline=30,
                    env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"}, chdir="/w",
                    tmpfs=[("/w", 2 << 20)], memory_bytes=512 << 20)
  lines = dict(line.split(" ", 1) for line in run.output.decode().splitlines())
  assert run.returncode == 0, run.output.decode()
  assert lines["uid"] != "0"
  assert len(eval(lines["pids"])) <= 6  # bwrap, setpriv's bwrap, python, sleep: no host pid
  assert "adkcourse" in lines["repo"]
  for hidden in ("solutions", "exercises", "tests", "labs", ".git"):
    assert hidden not in eval(lines["repo"])
  assert lines["solutions"] == "ModuleNotFoundError"
  # no PLANTED_SECRET, nothing else (PYTHON_COLORS=0: set by importing adkcourse, see its __init__)
  assert set(eval(lines["env"])) <= {"LANG", "PATH", "PWD", "PYTHON_COLORS"}
  assert lines["net"] == "OSError"
  assert lines["write-course"] in ("OSError", "PermissionError")
  assert lines["write-root"] == "OSError"
  assert lines["write-work"] == "yes" and lines["fill-work"] == "OSError"  # 2 MiB cap
  assert lines["tty"] == "OSError"
  assert run.survivors == 0
  assert not _running(b"sandbox-probe-left-running")


def test_a_sandbox_is_killed_at_its_deadline_with_everything_it_started(sandbox):
  script = ("(setsid sh -c 'sleep 60; : sandbox-deadline-child' &); "
            "trap '' TERM; while :; do :; done")
  run = sandbox.run(["/bin/sh", "-c", script], deadline=1.5, env={"PATH": "/usr/bin:/bin"},
                    memory_bytes=256 << 20)
  assert run.timed_out and run.seconds < 5
  assert not _running(b"sandbox-deadline-child")


def test_a_sandbox_is_stopped_by_its_cpu_time_forks_included_and_a_sleeper_only_by_the_clock(
    sandbox):
  """Four busy processes use four CPU seconds per second of two cores' time: the sandbox's CPU
  is counted together (its cgroup, or its namespace's processes) and stops them at 2 CPU
  seconds. A sandbox that only sleeps uses no CPU: only its wall-clock deadline ends it."""
  busy = ("import os\nfor _ in range(3):\n    if os.fork() == 0:\n        break\n"
          "while True:\n    pass\n")
  run = sandbox.run([sys.executable, "-I", "-c", busy], deadline=60, cpu_limit=2.0,
                    env={"PATH": "/usr/bin:/bin"}, memory_bytes=256 << 20)
  assert run.timed_out and run.cpu_exceeded, run
  assert 2.0 <= run.cpu_seconds < 6.0 and run.seconds < 30, (run.cpu_seconds, run.seconds)
  sleeper = [sys.executable, "-I", "-c", "import time; time.sleep(60)"]
  run = sandbox.run(sleeper, deadline=3.0, cpu_limit=2.0, env={"PATH": "/usr/bin:/bin"},
                    memory_bytes=256 << 20)
  assert run.timed_out and not run.cpu_exceeded and run.seconds >= 3.0
  assert run.cpu_seconds is not None and run.cpu_seconds < 1.0


def test_sandboxes_running_at_the_same_time_run_as_different_users(sandbox):
  """The kernel counts some limits per user, not per process, cgroup or namespace: epoll
  watches (``fs.epoll.max_user_watches``: a submission that used them all up once stopped
  every sandbox beside it from making an event loop). So each sandbox running at the same time
  has a uid of its own, given back when it ends."""
  if not sandbox.isolation.privileged:
    pytest.skip("one uid only without root: the cgroup caps processes instead")
  import select
  import subprocess

  env = {"PATH": "/usr/bin:/bin"}
  waiting = [sys.executable, "-I", "-S", "-c",
             "import os, sys, time; print(os.getuid(), flush=True); time.sleep(30)"]
  first = sandbox.start(waiting, env=env, stdout=subprocess.PIPE)
  second = sandbox.start(waiting, env=env, stdout=subprocess.PIPE)
  try:
    uids = []
    for running in (first, second):
      ready, _, _ = select.select([running.process.stdout], [], [], 30)
      assert ready
      uids.append(int(running.process.stdout.readline()))
    assert uids[0] != uids[1] and set(uids) <= set(sandbox.isolation.uids)
  finally:
    first.stop()
    second.stop()
  assert sandbox._free.qsize() == len(sandbox.isolation.uids)  # both given back


def _running(marker: bytes) -> list[str]:
  found = []
  for pid in os.listdir("/proc"):
    try:
      if pid.isdigit() and marker in Path(f"/proc/{pid}/cmdline").read_bytes():
        found.append(pid)
    except OSError:  # ended meanwhile
      pass
  return found


def test_memory_and_processes_are_capped_for_the_whole_sandbox(sandbox):
  if sandbox.isolation.cgroup is None:
    pytest.skip("no cgroup here: rlimits and the watchdog cap each process instead")
  hog = ("import os, time\n"
         "for _ in range(4):\n"
         "    if os.fork() == 0:\n"
         "        b = bytearray(100 << 20)\n"
         "        for i in range(0, len(b), 4096): b[i] = 1\n"
         "        time.sleep(2); os._exit(0)\n"
         "time.sleep(3)\n")
  run = sandbox.run([sys.executable, "-I", "-c", hog], deadline=20,
                    env={"PATH": "/usr/bin:/bin"}, memory_bytes=250 << 20)
  assert run.memory_exceeded  # 4 x 100 MiB do not fit in 250 MiB, together
  bomb = ("import os, time\nn = 0\nwhile n < 500:\n    try:\n        pid = os.fork()\n"
          "    except OSError:\n        break\n    if pid == 0:\n        time.sleep(5)\n"
          "        os._exit(0)\n    n += 1\nprint('started', n)\n")
  run = sandbox.run([sys.executable, "-I", "-c", bomb], deadline=20,
                    env={"PATH": "/usr/bin:/bin"}, memory_bytes=256 << 20, processes=40)
  assert 0 < int(run.output.decode().split()[-1]) < 40


# -- what comes out of a sandbox ----------------------------------------------------------------

GOOD = {"extracted": {"found": True, "error": None, "notes": [], "info": []}, "files": []}


@pytest.mark.parametrize("data, reason", [
    (b"", "no report"),
    (b"not json\n", "not JSON"),
    (b"[1, 2]\n", "not a JSON object"),
    (b'{"files": "x"}\n', "no list of files"),
    (b'{"files": [["a", -1]]}\n', r"not \[name, size\]"),
    (b'{"files": [["a", "3"]]}\n', r"not \[name, size\]"),
    (b'{"files": [["../gradebook.csv", 0]]}\n', "unsafe file name"),
    (b'{"files": [["/etc/passwd", 0]]}\n', "unsafe file name"),
    (b'{"files": [["a/./b", 0]]}\n', "unsafe file name"),
    (b'{"files": [["a", 0], ["a", 0]]}\n', "listed twice"),
    (b'{"files": [["a", 5]]}\nabc', "do not add up"),
    (b'{"files": [["a", 1]]}\nabc', "do not add up"),
    (b"[" * 100000 + b"\n", "not JSON"),
    (b'{"files": [], "x": NaN}\n', "not JSON"),
])
def test_a_malformed_report_is_refused(data, reason):
  with pytest.raises(Malformed, match=reason):
    parse_result(data)


def test_a_good_report_and_its_files(tmp_path):
  header = {**GOOD, "files": [["a.db", 3], ["sub/b.db", 2]]}
  parsed, files = parse_result(json.dumps(header).encode() + b"\nabcde")
  assert parsed["extracted"]["found"] is True
  assert files == [(PurePosixPath("a.db"), b"abc"), (PurePosixPath("sub/b.db"), b"de")]
  (tmp_path / "old.db").write_text("prepared")
  assert restore_files(tmp_path, files) == []
  assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == [
      "a.db", "sub", "sub/b.db"]


def test_the_judge_rebuilds_the_report_from_its_own_checks():
  exercise = get_exercise("forget_user")
  names = [c.name for c in exercise.checks]
  forged = {"notes": ["ok", 7], "results": [
      {"check": names[0], "earned": 999, "feedback": "x"},
      {"check": names[1], "earned": "13", "feedback": "x"},
      {"check": names[2], "earned": float("nan"), "feedback": "x"},
      {"check": names[3], "earned": -5, "feedback": "x"},
      {"check": "made_up", "points": 100, "earned": 100, "feedback": "x"}]}
  report = rebuild_report(exercise, forged)
  assert [r.check for r in report.results] == names
  by_name = {r.check: r for r in report.results}
  assert by_name[names[0]].earned == by_name[names[0]].points
  assert by_name[names[1]].earned == 0 and by_name[names[2]].earned == 0
  assert by_name[names[3]].earned == 0
  assert report.score <= report.max_score == exercise.max_score
  assert report.notes == []  # notes that are not all strings are dropped
  assert rebuild_report(exercise, "garbage").score == 0


def test_a_check_result_is_always_a_consistent_number():
  assert CheckResult("c", 2, 5, "x").earned == 2 and CheckResult("c", 2, -1, "x").earned == 0
  for bad in ("13", None, float("nan"), float("inf"), [1]):
    with pytest.raises(TypeError):
      CheckResult("c", 2, bad, "x")
  with pytest.raises(TypeError):
    Report.from_dict({"exercise": "e", "results": [{"check": "c", "points": 1,
                                                   "earned": "1", "feedback": "f"}]})


# -- output hygiene -----------------------------------------------------------------------------

def test_text_from_submissions_is_made_harmless():
  assert clean("a\x1b[31mred\x1b[0m\x07\u202eb\r\nc") == "ared??b  c"  # BEL, RLO
  assert csv_cell("=1+1") == "'=1+1" and csv_cell("-2") == "'-2" and csv_cell("ok") == "ok"
  assert csv_cell("\tx") == "' x" and csv_cell("@SUM(A1)") == "'@SUM(A1)"
  assert escape_id("new\nline\x1b") == "new\\x0aline\\x1b" and escape_id("ada") == "ada"
  assert escape_id("a\\x0a") == "a\\x5cx0a"  # never the same id as an escaped one
  assert escape_id("ada ") == "ada\\x20" and escape_id("ada\u00a0") == "ada\\xa0"  # no look-alike
  assert escape_id("a\u200bda") == "a\\u200bda" and escape_id("ada lovelace") == "ada lovelace"
  assert md("# Score: 13 | x `y` <b>") == "\\# Score: 13 \\| x \\`y\\` \\<b\\>"
  taken: set[str] = set()
  names = [safe_filename(s, taken) for s in ("ada", "Ada", "../etc", ".hidden", "CON", "a b")]
  assert names[0] == "ada" and names[1].startswith("Ada-") and names[2].startswith("_etc-")
  assert not any(n.startswith(".") or "/" in n for n in names)
  assert len({n.lower() for n in names}) == len(names)


def test_a_hard_link_in_the_submissions_folder_is_not_taken(tmp_path):
  from adkcourse.grade.runner import copy_private

  secret = tmp_path / "secret.txt"
  secret.write_text("instructor only")
  (tmp_path / "subs").mkdir()
  os.link(secret, tmp_path / "subs" / "ada.py")
  assert "hard link" in copy_private(tmp_path / "subs" / "ada.py", tmp_path / "copy.py")
  assert not (tmp_path / "copy.py").exists()


def test_too_many_returned_files_are_refused():
  header = {**GOOD, "files": [[f"f{i}", 0] for i in range(1001)]}
  with pytest.raises(Malformed, match="more than the 1000"):
    parse_result(json.dumps(header).encode() + b"\n")
