"""A hostile class graded end to end: every attack of issue 9, and more of the same kinds.

The class is ``tests/hostile/`` (one file per student, each saying what it tries) plus what
cannot live in git (file names with control characters, a 20 MB source), made here. The
grader runs as a separate process, as an instructor would run it, with fake secrets planted
in its environment and in ``~/.pgpass``. The test then checks the grades (victims keep full
marks, attackers get what they earned), that no planted secret is in any output, that no
process of the grading survives, that the course code and the submissions are unchanged and
that nothing was written outside the grader's scratch folder.

``test_the_reader_does_find_secrets_without_the_sandbox`` runs the (read-only) spy with the
sandbox off: it then finds the secret and the solution, so the assertions above can fail.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import re
import secrets
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from adkcourse.grade.checks import get_exercise
from adkcourse.grade.hygiene import escape_id
from adkcourse.grade.sandbox import SandboxUnavailable, detect

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "tests" / "hostile"
FULL = get_exercise("forget_user").max_score
# What each student of tests/hostile earns: victims and "wrongly zero" cases full marks,
# attackers what their (lack of) work is worth.
EXPECTED = {
    "victim_script": FULL, "victim_notebook": FULL,
    "spoof_exit": 0, "spoof_patch": 0, "spoof_types": 0,
    "reader": 0, "harmer": 0, "forge_page": 0, "forge_pipe": 0,
    "outlives": FULL, "hog_disk": FULL - 3, "hog_memory": FULL,
    "time_magic": FULL, "continuation": FULL, "nested_defs": FULL, "interrupted": 0,
    "UPPER": FULL, ".hidden": FULL, "nbformat3": 0, "help_line": FULL, "module_level": FULL,
    "generated_column": 0, "keyring": FULL, "sockets": FULL,
    "forge_census": FULL - 3,  # no_trace_left: the folder it kept, which the seal sees
    "locked_tmp_copy": FULL - 3,  # its copy in folders it locked (mode 000): seen as unreadable
    # a chain of folders deeper than the grader walks (tree.MAX_DEPTH): the seal does not fail
    # (3.11 used to raise RecursionError, 3.13 walked it all), the chain is an unreadable entry
    "deep_chain_forged_census": FULL - 3,
    # the red team's round of 3 December: what 3.11 and 3.13 walked differently, and folders
    # that can be listed but not searched (mode 0444): each loses no_trace_left, on any Python
    "deep_chain_at_return": FULL - 3, "unsearchable_tmp_copy": FULL - 3,
    "unsearchable_world_folder": FULL - 3,
}
# Students whose grade is only bounded: what a forger keeps depends on the world.
AT_MOST = {"forge_snapshot": 5}  # the untouched checks; never the user state or the bytes
# Student ids (file names) that are injections, each a copy of a correct submission.
INJECTED_IDS = ["=HYPERLINK(\"evil\";\"y\")", "+plus", "-minus", "@at\ttab",
                "new\nline\rcr", "esc\x1b[31mred\u202eyxp"]
MARKERS = ("hostile-outlives-9c2d", "hostile-disk-41aa", "HOSTILE-BACKDOOR-5f1e")


@pytest.fixture(scope="module")
def isolation_available():
  try:
    detect("bwrap").close()
  except SandboxUnavailable as error:  # CI installs bubblewrap: a failure, never a skip
    pytest.fail(f"bubblewrap is required for the hostile class: {error}")


def _digest(folder: Path) -> dict[str, str]:
  return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
          for p in sorted(folder.rglob("*")) if p.is_file()}


def _write_class(folder: Path) -> None:
  shutil.copytree(HOSTILE, folder, ignore=shutil.ignore_patterns("conftest.py", "__pycache__"))
  victim = (HOSTILE / "victim_script.py").read_text()
  for student in INJECTED_IDS:
    (folder / f"{student}.py").write_text(victim)
  lines = ["BIG = 1"] * 3_000_000  # ~21 MB of definitions: the grader must not choke on it
  (folder / "huge_source.py").write_text("\n".join(lines) + "\n" + victim)


def _grade(folder: Path, tmp: Path, planted: str, *extra: str) -> tuple[subprocess.CompletedProcess,
                                                                       Path, Path, Path]:
  home, scratch = tmp / "home", tmp / "scratch"
  home.mkdir()
  scratch.mkdir()
  (home / ".pgpass").write_text(f"db.example.org:5432:*:teacher:{planted}-pgpass\n")
  env = {**os.environ, "HOME": str(home), "ADKCOURSE_SCRATCH": str(scratch),
         "PGPASSWORD": f"{planted}-pgpassword", "AWS_SECRET_ACCESS_KEY": f"{planted}-aws",
         "SOME_VENDOR_TOKEN_NOBODY_LISTED": f"{planted}-vendor"}
  out = tmp / "results" / "gradebook.csv"
  command = [sys.executable, "-m", "adkcourse.grade", "forget_user", str(folder), "--out",
             str(out), "--timeout", "30", "--memory-mb", "512", "--no-progress", *extra]
  done = subprocess.run(command, capture_output=True, env=env, cwd=tmp, timeout=1800)  # a hang guard only
  return done, out, tmp / "results" / "gradebook-feedback", scratch


def _processes_mentioning(*needles: str) -> list[str]:
  found = []
  for pid in os.listdir("/proc"):
    if not pid.isdigit() or int(pid) == os.getpid():
      continue
    for part in ("cmdline", "environ"):
      try:
        data = Path(f"/proc/{pid}/{part}").read_bytes()
      except OSError:
        continue
      if any(n.encode() in data for n in needles):
        found.append(f"{pid}: {data[:200]!r}")
  return found


KEY_TEXT = f"GRADERKEY{secrets.token_hex(8)}"


@pytest.fixture
def planted_key():
  """A key in this process's session keyring, which the grader (a child process) inherits:
  a sandbox that kept that keyring could read it."""
  import ctypes
  import platform

  from adkcourse.grade.seccomp import ARCHES

  numbers = ARCHES[platform.machine()][1]
  libc = ctypes.CDLL(None, use_errno=True)
  key = libc.syscall(numbers["add_key"], b"user", b"adkcourse-hostile", KEY_TEXT.encode(),
                     len(KEY_TEXT), -3)
  assert key > 0, "could not plant a key in the session keyring"
  yield key
  libc.syscall(numbers["keyctl"], 3, key)  # KEYCTL_REVOKE


def _children_cpu() -> float:
  """CPU seconds used so far by this process's finished children (the grader, its
  sandboxes and judges: it reaps them all)."""
  import resource

  usage = resource.getrusage(resource.RUSAGE_CHILDREN)
  return usage.ru_utime + usage.ru_stime


def test_a_hostile_class_is_graded_correctly(tmp_path, isolation_available, planted_key):
  planted = f"PLANTED{secrets.token_hex(8)}"  # letters and digits: the same once escaped
  folder = tmp_path / "submissions"
  _write_class(folder)
  submissions_before = _digest(folder)
  course_files = list((ROOT / "adkcourse").rglob("*.py"))
  places = (Path("/tmp"), Path("/dev/shm"), Path("/var/tmp"), tmp_path / "home", ROOT, Path("/"))
  already = {p for place in places if place.is_dir() for p in place.iterdir()}
  started = _children_cpu()
  done, out, pages, scratch = _grade(folder, tmp_path, planted)
  cpu = _children_cpu() - started
  stdout, stderr = done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")
  assert done.returncode == 0, stderr[-3000:]

  # -- grades: victims and "wrongly zero" cases keep full marks, attackers get nothing extra
  text = out.read_text(encoding="utf-8")
  rows = list(csv.DictReader(io.StringIO(text)))
  scores = {r["student"]: float(r["score"]) for r in rows}
  expected = {**EXPECTED, "huge_source": 0,
              **{escape_id(s) if not escape_id(s).startswith(("=", "+", "-", "@")) else
                 "'" + escape_id(s): FULL for s in INJECTED_IDS}}
  bounded = {student: scores.pop(student, None) for student in AT_MOST}
  assert scores == expected, {k: (scores.get(k), v) for k, v in expected.items()
                              if scores.get(k) != v}
  for student, most in AT_MOST.items():
    assert bounded[student] is not None and bounded[student] <= most, (student, bounded)
  assert {r["max_score"] for r in rows} == {f"{FULL:g}"}
  feedback = {r["student"]: r["feedback"] for r in rows}
  assert "unsupported notebook format (nbformat 3)" in feedback["nbformat3"]
  assert "save it again, as nbformat 4" in feedback["nbformat3"]
  assert "more than the 2,000,000 the grader reads" in feedback["huge_source"]
  assert "memory limit" in feedback["hog_memory"]
  assert "raised KeyboardInterrupt" in feedback["interrupted"]
  assert "without a readable report" in feedback["harmer"]  # it killed its own sandbox
  crafted = (pages / "generated_column.md").read_text(encoding="utf-8")
  assert "has a generated column" in crafted and "it was not read" in crafted  # never run
  assert "tampered with" in feedback["forge_pipe"]  # its forged message: everything discarded
  assert "isolation: bubblewrap" in stdout and "OFF" not in stdout

  # -- injection: one line per student, no formula, no control character anywhere
  assert len(text.splitlines()) == len(rows) + 1
  for row in rows:
    for cell in row.values():
      assert not cell.startswith(("=", "+", "-", "@", "\t", "\r")), cell
      assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f\u202e]", cell), cell
  assert "\x1b" not in stdout and "\u202e" not in stdout
  table = stdout.split("\n\n")[0].splitlines()
  assert len(table) == len(rows) + 2  # header, rule, one line per student
  page_files = sorted(p.name for p in pages.iterdir())
  assert len(page_files) == len(rows)
  assert all(re.fullmatch(r"[A-Za-z0-9_-][A-Za-z0-9._-]*\.md", name) for name in page_files)
  forged = (pages / "forge_page.md").read_text(encoding="utf-8")
  head, _, printed = forged.partition("## What your code printed")
  assert head.count("Score:") == 1 + head.count("Score: 13 / 13")  # the real one, + as text
  assert head.startswith("# forget\\_user: feedback for forge\\_page\n\n**Score: 0 / 13**")
  assert not re.search(r"^#+ Score|^\| all \| 13|(?<!\\)<(script|img)|\x1b|\u202e|"
                       r"\*\*Score: 13", head, re.M)
  assert "\\<script\\>" in head  # shown, escaped
  fence = printed.splitlines()[2]  # what it printed: one block, closed by its own fence
  assert re.fullmatch(r"~{4,}text", fence) and printed.rstrip().endswith("\n" + fence[:-4])
  assert printed.count(fence[:-4]) == 2 and "\x1b" not in printed

  # -- reading what it must not: nothing planted, no solution, no classmate
  every_output = [text, stdout, stderr] + [p.read_text(encoding="utf-8")
                                          for p in pages.iterdir()]
  for blob in every_output:
    assert planted not in blob and KEY_TEXT not in blob
  reader = (pages / "reader.md").read_text(encoding="utf-8")
  assert "found: []" in reader and "FOUND" not in reader
  assert "spoof" not in reader and "victim" not in reader  # no classmate file or folder
  keyring = (pages / "keyring.md").read_text(encoding="utf-8")
  assert KEY_TEXT not in keyring and "READ KEY" not in keyring, keyring[-2000:]
  sockets = (pages / "sockets.md").read_text(encoding="utf-8")
  for family in ("AF_VSOCK", "AF_NETLINK", "AF_PACKET", "AF_INET"):  # printed, in a fence
    assert f"SOCKET {family}: refused (97)" in sockets, (family, sockets[-1500:])
  assert "CREATED" not in sockets
  forger = (pages / "forge_snapshot.md").read_text(encoding="utf-8")
  assert "as the run finally left it" in forger  # what gave it away
  assert "user_state_removed (0/2)" in feedback["forge_snapshot"]
  assert "no_trace_left (0/3)" in feedback["forge_snapshot"]

  # -- nothing survives, nothing changed, nothing left outside the scratch folder
  time.sleep(0.5)
  assert _processes_mentioning(*MARKERS, str(scratch)) == []
  assert _digest(folder) == submissions_before
  for path in course_files:  # (the course may be edited meanwhile: only the marker counts)
    try:
      assert b"HOSTILE-BACKDOOR" not in path.read_bytes(), path
    except FileNotFoundError:
      pass
  import google.adk

  packages = Path(google.adk.__file__).resolve().parents[2]
  assert not (packages / "sitecustomize.py").exists()
  assert not (packages / "zz_backdoor.pth").exists()
  assert b"HOSTILE-BACKDOOR" not in Path(google.adk.__file__).read_bytes()
  assert list(scratch.iterdir()) == []
  for place in places:  # what was there before the run is not the class's doing
    if place.is_dir():
      assert not [p for p in place.iterdir() if "hostile" in p.name and p not in already], place
  assert out.read_text(encoding="utf-8") == text  # nobody rewrote the gradebook
  # CPU time, not wall time: the same on a busy machine (a hang guard of 30 minutes catches
  # a hang)
  assert cpu < 360, f"the hostile class used {cpu:.0f} CPU seconds"


def test_the_reader_does_find_secrets_without_the_sandbox(tmp_path):
  """The control: with isolation off, the same (read-only) spy reads the planted secret and
  the reference solution, and its page says isolation was off."""
  planted = f"PLANTED{secrets.token_hex(8)}"  # letters and digits: the same once escaped
  folder = tmp_path / "submissions"
  folder.mkdir()
  shutil.copy(HOSTILE / "reader.py", folder / "reader.py")
  shutil.copy(HOSTILE / "victim_script.py", folder / "victim_script.py")
  # One submission at a time: with isolation off, the reader reaches into whatever its
  # grader's folders hold, a classmate's live worlds included when they are graded beside it,
  # so its own result would depend on how the two runs interleave (the sandbox's job).
  done, out, pages, _ = _grade(folder, tmp_path, planted, "--sandbox", "none", "--jobs", "1")
  stdout = done.stdout.decode("utf-8", "replace")
  assert done.returncode == 0, done.stderr.decode()[-2000:]
  page = (pages / "reader.md").read_text(encoding="utf-8")
  assert planted in page  # the grader's environment or ~/.pgpass, read through /proc
  assert "FOUND solution file" in page or "FOUND solution import" in page
  assert "victim" in page  # it listed and read the submissions folder
  rows = {r["student"]: float(r["score"]) for r in csv.DictReader(out.open())}
  assert rows["reader"] == FULL, page.split("## Your file")[0]  # with the solution it found
  assert "Isolation was OFF" in page and "Isolation was OFF" in (
      pages / "victim_script.md").read_text(encoding="utf-8")
  assert "WARNING: isolation was OFF" in stdout


VICTIM = (HOSTILE / "victim_script.py").read_text()


def _grade_folder(folder: Path, exercise: str = "forget_user", **options):
  from adkcourse.grade.runner import find_submissions, grade_all

  return {g.student: g for g in grade_all(exercise, find_submissions(folder), progress=False,
                                          **options)}


def test_a_forged_report_on_the_result_pipe_earns_nothing(isolation_available):
  """remember_with_consent's forgers (tests/hostile/remember_with_consent/) write a perfect
  `acted` on their own result pipe and do nothing: the judge runs every memory search itself
  from the dumped entries, and a second `acted` on the pipe is tampering. The correct
  submission graded beside them keeps full marks."""
  graded = _grade_folder(HOSTILE / "remember_with_consent", "remember_with_consent")
  full = get_exercise("remember_with_consent").max_score
  scores = {name: g.report.score for name, g in graded.items()}
  assert scores == {"victim": full, "forger": 0, "forge_dump": 0}, scores
  for name in ("forger", "forge_dump"):
    assert any("tampered with" in note for note in graded[name].report.notes), name


def test_a_forged_description_of_the_world_is_not_what_is_judged(isolation_available):
  """What a sandbox's files cannot carry back (erase_user_artifacts' tree, twelve levels deep;
  forget_user's empty folders and extended attributes) is described after the run by the
  supervisor (``Exercise.seal``), never by code in the submission's process: the forger in
  tests/hostile/erase_user_artifacts/ wipes every user and patches the in-process description
  to show the right answer's tree, and loses what it wiped (it kept 13 of 13 when the
  description was written in its own process). The red team's next round (each kept 13 of 13
  against the first seal): folders locked with mode 000, a forged description left where a
  seal it made fail would have written; and the round after (9.75): a tracer of the supervisor
  itself. The victim beside them keeps full marks."""
  graded = _grade_folder(HOSTILE / "erase_user_artifacts", "erase_user_artifacts")
  full = get_exercise("erase_user_artifacts").max_score
  scores = {name: g.report.score for name, g in graded.items()}
  earned = {name: {r.check: r.earned for r in g.report.results} for name, g in graded.items()}
  assert scores["victim"] == full, (scores, graded["victim"].report.notes)
  assert earned["forge_manifest"]["other_users_untouched"] == 0, earned["forge_manifest"]
  assert scores["forge_manifest"] <= full - 2, scores
  # a folder locked (mode 000) is unreadable, not empty: nothing of that world is credited
  assert scores["locked_user_folders"] == 0, (scores, graded["locked_user_folders"].report.notes)
  assert earned["copy_in_locked_tmp"]["no_copy_kept"] == 0, earned["copy_in_locked_tmp"]
  # a seal made to fail (a folder it cannot replace) leaves no record to read, and whatever the
  # run left in its place is not taken for one; a chain of folders too deep to walk does not
  # make it fail (on any Python): the chain is an unreadable entry, which no check credits
  assert scores["locked_forged_manifest"] == 0 and scores["deep_chain_forged_manifest"] == 0, scores
  feedback = {name: " ".join(r.feedback for r in graded[name].report.results)
              for name in ("locked_forged_manifest", "deep_chain_forged_manifest")}
  assert "cannot be observed" in feedback["locked_forged_manifest"], feedback
  assert "cannot be observed" not in feedback["deep_chain_forged_manifest"], feedback
  # the supervisor cannot be reached (ptrace fails, it is undumpable): the probe keeps full
  # marks only if every attempt failed, and the tracer loses what it wiped
  assert scores["probe_supervisor"] == full, graded["probe_supervisor"].report.notes
  # a copy in a folder named like SQLite's -shm file, or in a temporary folder of mode 0444
  for name in ("copy_in_shm_named_folder", "unsearchable_tmp_copy"):
    assert earned[name]["no_copy_kept"] == 0, (name, earned[name])
  assert earned["trace_supervisor"]["other_users_untouched"] == 0, earned["trace_supervisor"]


def test_a_judge_that_stops_answering_is_replaced(tmp_path, isolation_available):
  """The judge reads what submissions left (a hostile file could make it hang): a judge that
  does not answer in time is killed, the submission gets an error (then a note, and a second
  grading alone), and the next request gets a fresh judge, which says it does not know that
  submission's worlds rather than judging nothing."""
  import signal

  from adkcourse.grade.runner import Judge, JudgeError, reference_file
  from adkcourse.grade.sandbox import Sandbox

  isolation = detect("bwrap")
  try:
    judge = Judge("forget_user", Sandbox(isolation), tmp_path, tmp_path / "judge.log",
                  reference_file("forget_user"), timeout=120)
    work, private, sockets = (tmp_path / n for n in ("work", "judge", "sockets"))
    for folder in (work, private, sockets):
      folder.mkdir()
    prepared = judge.call({"op": "prepare", "workdir": str(work), "private": str(private),
                           "sockets": str(sockets), "postgres_url": None, "seed": 1})
    assert [w["index"] for w in prepared["worlds"]] == [0, 1, 2, 3]
    assert prepared["calls"] == 4
    os.kill(judge.running.pid, signal.SIGSTOP)  # (bwrap, then everything under it: frozen)
    for pid in _descendants(judge.running.pid):
      os.kill(pid, signal.SIGSTOP)
    with pytest.raises(JudgeError, match="no answer within 1 s") as stopped:
      judge.call({"op": "observe", "workdir": str(work), "reports": []}, timeout=1.0)
    assert stopped.value.timed_out
    assert judge.running is None  # stopped, and everything under it
    with pytest.raises(JudgeError, match="unknown to this judge"):
      judge.call({"op": "observe", "workdir": str(work), "reports": []})
    judge.stop()
  finally:
    isolation.close()


def _descendants(root: int) -> list[int]:
  children = {}
  for pid in os.listdir("/proc"):
    if pid.isdigit():
      try:
        parent = int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])
      except (OSError, ValueError, IndexError):
        continue
      children.setdefault(parent, []).append(int(pid))
  found, frontier = [], [root]
  while frontier:
    frontier = [c for p in frontier for c in children.get(p, [])]
    found += frontier
  return found


PG_STATEMENTS = ("COPY (SELECT 1) TO PROGRAM 'id > /tmp/pwned'",
                 "SELECT pg_read_file('/etc/passwd')", "ALTER ROLE CURRENT_USER SUPERUSER",
                 "GRANT pg_execute_server_program TO CURRENT_USER",
                 "CREATE EXTENSION IF NOT EXISTS adminpack")
PG_ATTACKER = f"STATEMENTS = {PG_STATEMENTS!r}\n" + '''
import asyncpg

async def copy_user_to(source, dest, app_name, user_id):
    from urllib.parse import urlsplit, parse_qs
    url = str(dest.db_engine.url.render_as_string(hide_password=False))
    parts = urlsplit(url.replace("postgresql+asyncpg", "postgresql"))
    host = parse_qs(parts.query)["host"][0]
    for attempt in ("as-postgres", "as-given"):
        try:
            if attempt == "as-postgres":
                db = await asyncpg.connect(user="postgres", host=host, database="postgres")
            else:
                db = await asyncpg.connect(url.replace("postgresql+asyncpg", "postgresql"))
        except Exception as error:
            print(attempt, "connect refused:", type(error).__name__)
            continue
        for sql in STATEMENTS:
            try:
                print(attempt, sql[:20], "->", await db.fetchval(sql))
            except Exception as error:
                print(attempt, sql[:20], "refused:", type(error).__name__)
        await db.close()
'''


def test_a_private_postgresql_gives_no_superuser(tmp_path, isolation_available):
  """copy_user_to's server is private to the submission, and its role is no superuser: no
  program runs, no server file is read, and the superuser cannot log in."""
  folder = tmp_path / "subs"
  folder.mkdir()
  (folder / "attacker.py").write_text(PG_ATTACKER)
  graded = _grade_folder(folder, "copy_user_to")["attacker"]
  printed = graded.output
  assert "as-postgres connect refused" in printed, printed
  for sql in PG_STATEMENTS:
    assert f"as-given {sql[:20]} refused" in printed, (sql, printed)
  assert "uid=" not in printed and "root:" not in printed


def test_a_crafted_database_is_refused_not_run_by_the_judge(tmp_path):
  """A generated column, a trigger, a view, a foreign virtual table: the judge's reader
  refuses the file; a value or statement past the caps fails fast instead of eating the
  judge's memory and CPU."""
  import sqlite3

  from adkcourse.grade.safe_sqlite import UntrustedDatabase, limit, open_untrusted

  crafted = {
      "generated": "CREATE TABLE app_states (app_name TEXT, state TEXT GENERATED ALWAYS AS "
                   "(printf('%.*c', 400000000, 'x')) VIRTUAL)",
      "stored": "CREATE TABLE t (a TEXT, b TEXT GENERATED ALWAYS AS (a || a) STORED)",
      "trigger": "CREATE TABLE t (a); CREATE TRIGGER g AFTER INSERT ON t BEGIN SELECT 1; END",
      "view": "CREATE VIEW sessions AS SELECT 1 AS id",
      "virtual": "CREATE VIRTUAL TABLE r USING rtree(id, x0, x1)",
  }
  for name, sql in crafted.items():
    path = tmp_path / f"{name}.db"
    with sqlite3.connect(path) as db:
      db.executescript(sql)
    db.close()
    with pytest.raises(UntrustedDatabase):
      open_untrusted(path)
  fine = tmp_path / "fine.db"
  with sqlite3.connect(fine) as db:
    db.executescript("CREATE TABLE t (a TEXT); CREATE INDEX i ON t (a); "
                     "CREATE VIRTUAL TABLE m USING fts5(content)")
  db.close()
  connection = open_untrusted(fine)
  # past SQLITE_LIMIT_LENGTH: NULL (printf) or "string or blob too big", never 400 MB
  assert connection.execute("SELECT printf('%.*c', 400000000, 'x')").fetchall() == [(None,)]
  with pytest.raises(sqlite3.DataError):
    connection.execute("SELECT zeroblob(100000000)").fetchall()
  with pytest.raises(sqlite3.OperationalError):
    connection.execute("INSERT INTO t VALUES ('x')")  # read-only
  connection.close()
  slow = limit(sqlite3.connect(":memory:"), deadline=0.5)
  started = time.monotonic()
  with pytest.raises(sqlite3.OperationalError, match="interrupted"):
    slow.execute("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n) "
                 "SELECT count(*) FROM n").fetchall()
  assert time.monotonic() - started < 5
