"""A Gradescope autograder bundle per exercise, and what runs inside it on the platform.

    python -m adkcourse.grade gradescope EXERCISE --out autograder.zip

writes a zip following Gradescope's autograder specification
(https://gradescope-autograders.readthedocs.io/en/latest/specs/): ``setup.sh`` and
``run_autograder`` at its root, plus what they need:

- ``course/adkcourse/``: the course's package, source only (installed by ``setup.sh`` into a
  folder the submission's user may read, ``/opt/adkcourse/lib``);
- ``requirements.txt``: the course's pinned requirements that grading needs (not the notebook
  or test tools), installed into a virtual environment ``/opt/adkcourse/venv``;
- ``judge/solutions/EXERCISE.py``: that exercise's reference solution, which stays in
  ``/autograder/source`` (mode 0700: only root reads it);
- ``config.json``: the exercise and its limits. No seed: every submission is graded on
  fresh worlds, so a world seed its feedback names is of no use for the next one.

On the platform (``run_autograder`` calls ``platform_main``) the trusted process, as root,
closes ``/autograder`` to everyone else (0700), finds the one ``.py`` or ``.ipynb`` handed in,
grades it with the course's grader and writes ``/autograder/results/results.json``: the
total, one test per check, the notes. Whatever happens (no file, several, a crash, a timeout,
a hostile submission, the grader itself failing), a valid results file with a note is
written; ``run_autograder`` writes one itself if the grading process died.

Isolation (``ADKCOURSE_GRADESCOPE_ISOLATION`` or config ``isolation``: ``auto``, ``bwrap``,
``user``): where bubblewrap runs, the grader's own sandbox; where it cannot (a container
without user namespaces or mount rights, the usual case on Gradescope), the submission's
phase runs under ``setpriv`` as the unprivileged user ``setup.sh`` created (no new
privileges, no capabilities, seccomp lock-down by ``_act`` itself), in folders it owns; the
judge and the reference stay in root's processes and 0700 folders; every process of that
user is killed when its phase ends; files it left in the world-writable folders (``/tmp``,
``/var/tmp``, ``/dev/shm``) are handed to the judge like the sandbox's ``/tmp``.

The roots are ``AUTOGRADER_ROOT`` (default ``/autograder``) and ``ADKCOURSE_PREFIX`` (default
``/opt/adkcourse``), so that the whole platform can be laid out in a throwaway folder
(``tests/test_gradescope.py``).
"""

from __future__ import annotations

import argparse
import json
import os
import pwd
import re
import shutil
import signal
import stat
import subprocess
import tempfile
import time
import traceback
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any, Optional, Sequence

from .checks import EXERCISES, UnknownExercise, get_exercise
from .hygiene import clean, one_line

FORMAT_VERSION = 1
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
ISOLATIONS = ("auto", "bwrap", "user")
STUDENT_USER = "student"  # the account setup.sh creates for submissions
DEFAULT_DEADLINE = 1500  # seconds run_autograder gives the whole grading of one submission
# sections of requirements.txt grading does not need (the packages named in KEEP stay)
SKIPPED_SECTIONS = ("notebooks", "tests")
KEEP = ("nbformat",)
STRAY_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm")  # world-writable: where a submission can write
STRAY_CAP = 16 * 1024 * 1024  # bytes of stray files handed to the judge
OUTPUT_SHOWN = 4_000  # characters of what the submission printed, in the results' output

SETUP_SH = r"""#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the autograder image
# (https://gradescope-autograders.readthedocs.io/en/latest/specs/).
# Installs Python >= 3.11 (apt), the course's pinned requirements in a virtual environment
# and the course's package, creates the unprivileged user submissions run as, and closes
# /autograder/source (the reference solution) to everyone but root.
set -euo pipefail
ROOT="${AUTOGRADER_ROOT:-/autograder}"
SOURCE="$ROOT/source"
PREFIX="${ADKCOURSE_PREFIX:-/opt/adkcourse}"

if [ -z "${ADKCOURSE_PYTHON:-}" ]; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends ca-certificates util-linux passwd coreutils \
    python3 python3-venv python3-dev build-essential bubblewrap
  PY=python3
  if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    # Ubuntu 22.04 ships 3.10 as python3; 3.11 is in its universe component
    apt-get install -y --no-install-recommends software-properties-common
    add-apt-repository -y universe
    apt-get update
    apt-get install -y --no-install-recommends python3.11 python3.11-venv python3.11-dev
    PY=python3.11
  fi
  install -d -m 0755 "$PREFIX"
  "$PY" -m venv "$PREFIX/venv"
  "$PREFIX/venv/bin/python" -m pip install --no-cache-dir --upgrade pip
  "$PREFIX/venv/bin/python" -m pip install --no-cache-dir -r "$SOURCE/requirements.txt"
  PYTHON="$PREFIX/venv/bin/python"
else
  PYTHON="$ADKCOURSE_PYTHON"  # tests: a Python that already has the requirements
fi

# --- what grading relies on ------------------------------------------------------------
install -d -m 0755 "$PREFIX" "$PREFIX/lib"
install -d -m 0711 "$PREFIX/run"
rm -rf "$PREFIX/lib/adkcourse"
cp -R "$SOURCE/course/adkcourse" "$PREFIX/lib/adkcourse"
chown -R 0:0 "$PREFIX/lib" 2>/dev/null || true
chmod -R u=rwX,go=rX "$PREFIX/lib"
printf '%s\n' "$PYTHON" > "$PREFIX/python"
chmod 0644 "$PREFIX/python"
if [ -z "${ADKCOURSE_STUDENT_UID:-}" ] && ! id -u student >/dev/null 2>&1; then
  useradd --system --user-group --no-create-home --home-dir /nonexistent \
    --shell /usr/sbin/nologin student
fi
chmod 0700 "$SOURCE"
"$PYTHON" -I -B -c 'import sys; sys.path.insert(0, sys.argv[1]); import adkcourse.grade.gradescope' "$PREFIX/lib"
echo "adkcourse autograder installed for $(cat "$SOURCE/config.json")"
"""

RUN_AUTOGRADER = r"""#!/usr/bin/env bash
# Gradescope runs this once per submission, as root, in a fresh container (cwd /autograder).
# The grading itself is adkcourse.grade.gradescope.platform_main; this script only bounds its
# time and, if it died without a results file, writes one saying so (score 0).
ROOT="${AUTOGRADER_ROOT:-/autograder}"
PREFIX="${ADKCOURSE_PREFIX:-/opt/adkcourse}"
RESULTS="$ROOT/results/results.json"
mkdir -p "$ROOT/results"
chmod 0700 "$ROOT" "$ROOT/results" "$ROOT/source" 2>/dev/null
rm -f "$RESULTS"
DEADLINE="$(sed -n 's/.*"deadline": *\([0-9][0-9]*\).*/\1/p' "$ROOT/source/config.json" 2>/dev/null)"
DEADLINE="${ADKCOURSE_DEADLINE:-${DEADLINE:-__DEADLINE__}}"
PYTHON="$(cat "$PREFIX/python" 2>/dev/null)"
started=$(date +%s)
timeout --kill-after=10 "$DEADLINE" "${PYTHON:-python3}" -I -B -c \
  'import sys; sys.path[:0] = sys.argv[1:3]; from adkcourse.grade.gradescope import platform_main; sys.exit(platform_main())' \
  "$PREFIX/lib" "$ROOT/source/judge"
status=$?
if [ ! -s "$RESULTS" ]; then
  if [ "$status" = 124 ] || [ "$status" = 137 ]; then
    why="the autograder did not finish within $DEADLINE seconds and was stopped"
  else
    why="the autograder stopped (exit status $status) before writing a result"
  fi
  printf '{"score": 0, "execution_time": %d, "output": "%s: nothing could be graded. Submit again, and tell your instructor if it happens again.", "tests": []}\n' \
    "$(( $(date +%s) - started ))" "$why" > "$RESULTS.tmp" && mv -f "$RESULTS.tmp" "$RESULTS"
fi
exit 0
"""


# -- the bundle -------------------------------------------------------------------------------

def course_root() -> Path:
  """The checkout (or installation) this package comes from."""
  return Path(__file__).resolve().parent.parent.parent


def bundle_requirements(text: str) -> str:
  """The pinned requirements grading needs: every requirement of ``requirements.txt`` except
  the editable install of the course itself and the sections named in ``SKIPPED_SECTIONS``
  (notebooks, tests), whose packages are kept only when named in ``KEEP``."""
  kept, section = [], ""
  for line in text.splitlines():
    stripped = line.strip()
    if stripped.startswith("#"):
      words = stripped.lstrip("#").split()
      if words:
        section = words[0].lower().rstrip(":")
      continue
    if not stripped or stripped.startswith("-e") or stripped.startswith("--"):
      continue
    name = re.split(r"[\[=<>!~ ;]", stripped, maxsplit=1)[0].lower()
    if section in SKIPPED_SECTIONS and name not in KEEP:
      continue
    kept.append(stripped)
  return "# generated by python -m adkcourse.grade gradescope from the course's " \
         "requirements.txt\n" + "\n".join(kept) + "\n"


def _package_files(package: Path) -> list[Path]:
  """The package's files worth shipping: sources and data, no caches."""
  files = []
  for path in sorted(package.rglob("*")):
    parts = path.relative_to(package).parts
    if any(p == "__pycache__" or p.startswith(".") for p in parts):
      continue
    if path.is_file() and not path.is_symlink() and path.suffix not in (".pyc", ".pyo"):
      files.append(path)
  return files


def build_bundle(exercise: str, out: Path, *, timeout: float = 30.0, memory_mb: int = 2048,
                 visibility: str = "visible", isolation: str = "auto",
                 deadline: int = DEFAULT_DEADLINE, root: Optional[Path] = None) -> list[str]:
  """Write the autograder zip of ``exercise`` to ``out``; the names it holds."""
  get_exercise(exercise)  # UnknownExercise for a name that is none
  if visibility not in VISIBILITIES:
    raise ValueError(f"visibility must be one of {', '.join(VISIBILITIES)}")
  if isolation not in ISOLATIONS:
    raise ValueError(f"isolation must be one of {', '.join(ISOLATIONS)}")
  root = Path(root or course_root())
  reference = root / "solutions" / f"{exercise}.py"
  if not reference.is_file():
    raise FileNotFoundError(f"the reference solution {reference} is missing")
  config = {"format": FORMAT_VERSION, "exercise": exercise, "timeout": float(timeout),
            "memory_mb": int(memory_mb), "visibility": visibility, "isolation": isolation,
            "deadline": int(deadline)}
  entries: list[tuple[str, bytes, int]] = [
      ("setup.sh", SETUP_SH.encode(), 0o755),
      ("run_autograder", RUN_AUTOGRADER.replace("__DEADLINE__", str(int(deadline))).encode(),
       0o755),
      ("config.json", (json.dumps(config, indent=1) + "\n").encode(), 0o644),
      ("requirements.txt",
       bundle_requirements((root / "requirements.txt").read_text(encoding="utf-8")).encode(),
       0o644),
      ("judge/solutions/__init__.py", b"", 0o644),
      (f"judge/solutions/{exercise}.py", reference.read_bytes(), 0o644)]
  package = Path(__file__).resolve().parent.parent
  for path in _package_files(package):
    name = "course/adkcourse/" + path.relative_to(package).as_posix()
    entries.append((name, path.read_bytes(), 0o644))
  out = Path(out)
  out.parent.mkdir(parents=True, exist_ok=True)
  handle, temporary = tempfile.mkstemp(prefix=".tmp-", suffix=".zip", dir=out.parent)
  os.close(handle)
  try:
    with zipfile.ZipFile(temporary, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as archive:
      for name, data, mode in entries:
        info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_DEFLATED
        info.external_attr = (stat.S_IFREG | mode) << 16
        info.create_system = 3  # unix: the modes are read
        archive.writestr(info, data)
    os.chmod(temporary, 0o644)
    os.replace(temporary, out)
  except BaseException:
    Path(temporary).unlink(missing_ok=True)
    raise
  return [name for name, _, _ in entries]


def build_parser() -> argparse.ArgumentParser:
  parser = argparse.ArgumentParser(
      prog="python -m adkcourse.grade gradescope",
      description="Write a Gradescope autograder bundle (autograder.zip) for one exercise.",
      epilog=f"exercises: {', '.join(EXERCISES)}")
  parser.add_argument("exercise", help=f"one of: {', '.join(EXERCISES)}")
  parser.add_argument("--out", type=Path, required=True, help="the zip to write")
  parser.add_argument("--timeout", type=float, default=30.0,
                      help="CPU seconds the submission's calls may use, all worlds (30)")
  parser.add_argument("--memory-mb", type=int, default=2048, help="memory limit (2048)")
  parser.add_argument("--visibility", choices=VISIBILITIES, default="visible",
                      help="Gradescope visibility of each check's test (visible)")
  parser.add_argument("--isolation", choices=ISOLATIONS, default="auto",
                      help="auto (default): bubblewrap where it runs, else the unprivileged "
                           "user; bwrap: refuse to grade without it; user: never try it")
  parser.add_argument("--deadline", type=int, default=DEFAULT_DEADLINE,
                      help=f"wall-clock seconds for the whole grading of one submission "
                           f"({DEFAULT_DEADLINE}); set Gradescope's own timeout above it")
  return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
  parser = build_parser()
  args = parser.parse_args(argv)
  if args.timeout <= 0 or args.timeout != args.timeout:
    parser.error("--timeout must be a positive number of seconds")
  if args.memory_mb < 256:
    parser.error("--memory-mb must be at least 256")
  if args.deadline < 60:
    parser.error("--deadline must be at least 60 seconds")
  if args.out.exists() and (args.out.is_symlink() or not args.out.is_file()):
    parser.error(f"--out {args.out} exists and is not a regular file")
  try:
    names = build_bundle(args.exercise, args.out, timeout=args.timeout,
                         memory_mb=args.memory_mb, visibility=args.visibility,
                         isolation=args.isolation, deadline=args.deadline)
  except (UnknownExercise, ValueError, FileNotFoundError) as error:
    parser.error(str(error))
  size = args.out.stat().st_size
  print(f"{args.out}: Gradescope autograder for {args.exercise} ({len(names)} files, "
        f"{size / 1024:.0f} KiB). Upload it on the assignment's Configure Autograder page; "
        f"set the autograder timeout above {args.deadline} s.")
  return 0


# -- on the platform --------------------------------------------------------------------------

class PlatformError(RuntimeError):
  """The platform cannot grade (no usable isolation, a broken installation)."""


def find_submission(folder: Path) -> tuple[Optional[Path], Optional[str]]:
  """The one ``.py``/``.ipynb`` file under ``folder`` (any name, any case of suffix), or the
  reason there is none to grade. Hidden folders (``.git``) are not looked in."""
  from .extract import kind

  if not folder.is_dir():
    return None, "no submission folder was found: nothing was handed in"
  found, other = [], []
  for current, dirs, names in os.walk(folder):
    dirs[:] = sorted(d for d in dirs if not d.startswith("."))
    for name in sorted(names):
      path = Path(current) / name
      shown = one_line(path.relative_to(folder).as_posix(), 120)
      if kind(path) and not path.is_symlink():
        found.append(path)
      elif not name.startswith("."):
        other.append(shown)
  if not found:
    extra = f" (found: {', '.join(other[:10])})" if other else ""
    return None, (f"no .py or .ipynb file was handed in{extra}: submit the exercise's "
                  "notebook or script")
  if len(found) > 1:
    names = ", ".join(one_line(p.relative_to(folder).as_posix(), 80) for p in found[:10])
    return None, (f"{len(found)} .py/.ipynb files were handed in ({names}): nothing was "
                  "graded; submit exactly one file")
  return found[0], None


def results_json(report: Any, *, visibility: str, seconds: float, notes: Sequence[str] = (),
                 printed: str = "", printed_size: int = 0, isolation: str = "") -> dict:
  """Gradescope's results.json for one report: the total, one test per check, the notes.
  Only what the course's feedback page shows (never the reference, never a secret)."""
  tests = [{"name": r.check, "score": r.earned, "max_score": r.points,
            "output": clean(r.feedback, keep_newlines=True), "visibility": visibility}
           for r in report.results]
  lines = [report.headline()]
  all_notes = list(dict.fromkeys(list(report.notes) + list(notes)))
  if all_notes:
    lines += ["", "What happened:"] + [f"- {clean(n)}" for n in all_notes]
  if printed:
    shown = clean(printed, keep_newlines=True)[:OUTPUT_SHOWN].rstrip()
    lines += ["", f"What your code printed (the first {len(shown):,} of about "
                  f"{printed_size:,} bytes):", shown]
  return {"score": report.score, "execution_time": int(round(seconds)),
          "output": "\n".join(lines), "visibility": visibility,
          "stdout_visibility": "hidden", "tests": tests,
          "extra_data": {"exercise": report.exercise, "max_score": report.max_score,
                         "isolation": isolation}}


def write_results(path: Path, data: dict) -> None:
  """Write ``data`` as ``path`` atomically (a temporary file renamed into place)."""
  path.parent.mkdir(parents=True, exist_ok=True)
  handle, temporary = tempfile.mkstemp(prefix=".results-", dir=path.parent)
  try:
    with os.fdopen(handle, "w", encoding="utf-8") as stream:
      json.dump(data, stream, indent=1, ensure_ascii=False, allow_nan=False)
      stream.write("\n")
    os.chmod(temporary, 0o644)
    os.replace(temporary, path)
  except BaseException:
    Path(temporary).unlink(missing_ok=True)
    raise


def _zero(exercise: Optional[str], note: str, *, visibility: str, seconds: float) -> dict:
  if exercise in EXERCISES:
    report = get_exercise(exercise).zero_report(note)  # type: ignore[arg-type]
    return results_json(report, visibility=visibility, seconds=seconds)
  return {"score": 0, "execution_time": int(round(seconds)), "output": note, "tests": []}


def student_uid() -> int:
  """The uid submissions run as: ``ADKCOURSE_STUDENT_UID`` (tests), else the user ``student``
  that setup.sh created. Never root, never this process's own uid."""
  configured = os.environ.get("ADKCOURSE_STUDENT_UID")
  if configured:
    uid = int(configured)
  else:
    try:
      uid = pwd.getpwnam(STUDENT_USER).pw_uid
    except KeyError:
      raise PlatformError(f"the user {STUDENT_USER!r} does not exist: setup.sh did not run "
                          "to its end") from None
  if uid <= 0 or uid == os.getuid():
    raise PlatformError(f"uid {uid} cannot run submissions (root, or the grader's own)")
  return uid


def uid_processes(uid: int) -> list[int]:
  """Live processes whose real or effective uid is ``uid``."""
  found = []
  for entry in os.listdir("/proc"):
    if not entry.isdigit():
      continue
    try:
      text = Path(f"/proc/{entry}/status").read_text()
    except OSError:
      continue
    uids = next((line.split()[1:3] for line in text.splitlines()
                 if line.startswith("Uid:")), [])
    state = next((line.split()[1] for line in text.splitlines()
                  if line.startswith("State:")), "")
    if str(uid) in uids and state not in ("Z", "X"):
      found.append(int(entry))
  return found


def kill_uid(uid: int, rounds: int = 100) -> int:
  """SIGKILL every process of ``uid`` (the submissions' own account) until none is left;
  how many there were."""
  killed: set[int] = set()
  for _ in range(rounds):
    pids = uid_processes(uid)
    if not pids:
      break
    for pid in pids:
      try:
        fd = os.pidfd_open(pid)
      except OSError:
        continue
      try:
        signal.pidfd_send_signal(fd, signal.SIGKILL)
        killed.add(pid)
      except OSError:
        pass
      finally:
        os.close(fd)
    time.sleep(0.02)
  return len(killed)


def _chown_tree(path: Path, uid: int) -> None:
  os.lchown(path, uid, uid)
  for current, dirs, names in os.walk(path):
    for name in dirs + names:
      os.lchown(os.path.join(current, name), uid, uid)


def collect_strays(uid: int, folders: Sequence[str] = STRAY_FOLDERS,
                   cap: int = STRAY_CAP, exclude: Sequence[Path] = ()
                   ) -> list[tuple[str, bytes]]:
  """The regular files ``uid`` left in the machine's world-writable folders (what the
  sandbox's private ``/tmp`` would have held), removed from there: (flat name, bytes).
  Only folders it owns or anyone may write are walked; never ``exclude`` (the grading
  folder, whose work folder the judge reads where it is)."""
  found: list[tuple[str, bytes]] = []
  total = 0
  skipped = {os.path.realpath(p) for p in exclude}
  for top in folders:
    if not os.path.isdir(top) or os.path.islink(top):
      continue
    for current, dirs, names in os.walk(top):
      kept = []
      for name in dirs:
        try:
          info = os.lstat(os.path.join(current, name))
        except OSError:
          continue
        if (stat.S_ISDIR(info.st_mode) and (info.st_uid == uid or info.st_mode & 0o002)
            and os.path.realpath(os.path.join(current, name)) not in skipped):
          kept.append(name)
      dirs[:] = sorted(kept)
      for name in sorted(names):
        path = os.path.join(current, name)
        try:
          info = os.lstat(path)
        except OSError:
          continue
        if info.st_uid != uid:
          continue
        if stat.S_ISREG(info.st_mode) and total + info.st_size <= cap:
          data = None
          try:  # never a FIFO or a device put there in its place: no blocking, no following
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
            with os.fdopen(fd, "rb") as stream:
              if stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
                data = stream.read(cap - total + 1)
          except OSError:
            data = None
          if data is not None and total + len(data) <= cap:
            flat = "_".join(PurePosixPath(path).parts[1:])[-200:] or "file"
            found.append((flat, data))
            total += len(data)
        try:
          os.unlink(path)
        except OSError:
          pass
  for top in folders:  # the folders it made there, emptied above
    if not os.path.isdir(top):
      continue
    for current, dirs, _ in os.walk(top, topdown=False):
      for name in dirs:
        path = os.path.join(current, name)
        if any(os.path.realpath(path) == x or x.startswith(os.path.realpath(path) + "/")
               or os.path.realpath(path).startswith(x + "/") for x in skipped):
          continue
        try:
          if os.lstat(path).st_uid == uid:
            shutil.rmtree(path, ignore_errors=True)
        except OSError:
          pass
  return found


def _add_files(result: bytes, extra: list[tuple[str, bytes]], prefix: str) -> bytes:
  """The sandbox's result with ``extra`` files added under ``prefix`` (as ``_act`` adds the
  sandbox's /tmp under ``elsewhere-sandbox/``); unchanged if it is malformed (the grader
  then says so)."""
  from .runner import Malformed, parse_result

  if not extra:
    return result
  try:
    header, files = parse_result(result)
  except Malformed:
    return result
  names = {str(p) for p, _ in files}
  for name, data in extra:
    candidate = f"{prefix}/{name}"
    while candidate in names:
      candidate += "_"
    names.add(candidate)
    files.append((PurePosixPath(candidate), data))
  if len(files) > 1000:
    return result
  header["files"] = [[str(p), len(d)] for p, d in files]
  return json.dumps(header).encode() + b"\n" + b"".join(d for _, d in files)


def _platform_classes():
  """The grader's classes adapted to a container without bubblewrap (made on first use, so
  that building a bundle imports nothing of the runner)."""
  from ..scratch import reproducible_environment
  from .runner import Grader, Judge, _boot
  from .sandbox import Sandbox

  class StudentSandbox(Sandbox):
    """Runs the submission's phase as the unprivileged ``uid``, in folders it owns; kills
    every process of that uid when it ends; hands the judge what it left in /tmp."""

    def __init__(self, isolation: Any, uid: int):
      super().__init__(isolation)
      self.student = uid

    def run(self, command, *, deadline, result_cap=0, cpu_limit=None, **options):
      workdir = Path(options["chdir"])
      base = Path(options["env"]["HOME"]).parent
      for folder in (workdir, base):
        folder.mkdir(parents=True, exist_ok=True)
        _chown_tree(folder, self.student)
      kill_uid(self.student)
      wrapped = ["setpriv", f"--reuid={self.student}", f"--regid={self.student}",
                 "--clear-groups", "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs",
                 "--", *command]
      options["uid"] = None
      options["private_uid"] = False
      run = super().run(wrapped, deadline=deadline, result_cap=result_cap,
                        cpu_limit=cpu_limit, **options)
      run.survivors += kill_uid(self.student)
      strays = collect_strays(self.student, exclude=[workdir.parent.parent])
      run.result = _add_files(run.result, strays, "elsewhere-sandbox")
      return run

  class PlatformJudge(Judge):
    """The judge, as root, with its home and temporary folder private (0700)."""

    def _launch(self) -> None:
      home = self.root / "judge-home"
      home.mkdir(mode=0o700, exist_ok=True)
      env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": str(home),
             "TMPDIR": str(home), **reproducible_environment(self.root / "judge")}
      with self.log.open("ab") as log:
        self.running = self.sandbox.start(
            _boot("adkcourse.grade._judge") + [self.exercise, str(self.reference)], env=env,
            chdir=str(self.root), private_uid=False, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=log, cwd_without_sandbox=str(self.root))
      self._buffer = b""

  class PlatformGrader(Grader):
    def __init__(self, exercise, isolation, root, *, uid, time_limit, memory_mb):
      super().__init__(exercise, isolation, root, jobs=1, time_limit=time_limit,
                       memory_mb=memory_mb)
      trusted = self.sandbox
      old = self._all_judges
      self._all_judges = [PlatformJudge(j.exercise, trusted, j.root, j.log, j.reference,
                                        j.timeout, sockets=j.sockets) for j in old]
      import queue

      self.judges = queue.Queue()
      for judge in self._all_judges:
        self.judges.put(judge)
      self.sandbox = StudentSandbox(isolation, uid)

  return PlatformGrader


def grade_as_user(exercise_name: str, path: Path, *, uid: int, time_limit: float,
                  memory_mb: int, scratch: Path) -> Any:
  """Grade one submission with its phase run as ``uid`` (no bubblewrap): a ``Graded``."""
  from .runner import JudgeError, Submission, copy_submissions
  from .sandbox import Isolation, _system_user

  exercise = get_exercise(exercise_name)
  isolation = Isolation(enabled=False,
                        server_uid=_system_user() if os.geteuid() == 0 else None)
  scratch.mkdir(parents=True, exist_ok=True)
  root = Path(tempfile.mkdtemp(prefix="grade-", dir=scratch))
  root.chmod(0o711)  # the student's uid crosses it to its own folders, lists nothing
  (root / "judge").mkdir(mode=0o700)
  for number in range(1):
    (root / f"judge-{number}.log").touch(mode=0o600)
  submission = Submission("submission", path)
  grader = None
  try:
    copied = copy_submissions([submission], root / "submissions")
    (root / "submissions").chmod(0o711)  # its own copy is read by name; nothing is listed
    grader = _platform_classes()(exercise, isolation, root, uid=uid, time_limit=time_limit,
                                 memory_mb=memory_mb)
    for judge in grader._all_judges:
      judge.launch()
    for judge in grader._all_judges:
      try:
        judge.ready()
      except JudgeError:
        pass  # started again, and its failure told, when the submission needs it
    # Not graded again after a time limit, as the class grader does: that second grading is
    # for a submission that shared the machine with others, and here it was alone.
    return _graded(grader, copied[0], exercise, isolation)
  finally:
    if grader is not None:
      grader.close()
    kill_uid(uid)
    shutil.rmtree(root, ignore_errors=True)


def _graded(grader: Any, item: tuple, exercise: Any, isolation: Any) -> Any:
  from .runner import Graded

  try:
    return grader.grade(*item)
  except Exception as error:  # noqa: BLE001 - the student gets a 0 and a note, never a crash
    return Graded(item[0].student, item[0].path, exercise.zero_report(
        f"the grader failed on this submission: {type(error).__name__}: {error}"),
        isolation_off=not isolation.enabled)


def _choose_isolation(wanted: str) -> tuple[str, Any]:
  """("bwrap", Isolation) or ("user", None), as ``wanted`` allows and the machine can."""
  from .sandbox import SandboxUnavailable, detect

  if wanted in ("auto", "bwrap"):
    try:
      return "bwrap", detect("bwrap")
    except SandboxUnavailable as error:
      if wanted == "bwrap":
        raise PlatformError(f"bubblewrap cannot run here: {one_line(error, 300)}") from None
  if os.geteuid() != 0:
    raise PlatformError("without bubblewrap, submissions run as an unprivileged user, and "
                        "only root can switch to it: run run_autograder as root")
  if shutil.which("setpriv") is None:
    raise PlatformError("setpriv (util-linux) is missing: setup.sh installs it")
  return "user", None


def platform_main() -> int:
  """Grade ``$AUTOGRADER_ROOT/submission`` and write ``results/results.json``; status 0
  whenever a results file was written (always, unless the disk refuses it)."""
  started = time.monotonic()
  root = Path(os.environ.get("AUTOGRADER_ROOT", "/autograder"))
  prefix = Path(os.environ.get("ADKCOURSE_PREFIX", "/opt/adkcourse"))
  results = root / "results" / "results.json"
  config: dict = {}
  exercise = None
  visibility = "visible"
  try:
    for folder in (root, root / "results", root / "source"):
      if folder.is_dir() and os.geteuid() == 0:
        folder.chmod(0o700)  # the student's uid reaches none of /autograder
    config = json.loads((root / "source" / "config.json").read_text(encoding="utf-8"))
    exercise = config["exercise"]
    visibility = config.get("visibility", "visible")
    if visibility not in VISIBILITIES:
      visibility = "visible"
    get_exercise(exercise)
    path, problem = find_submission(root / "submission")
    if path is None:
      write_results(results, _zero(exercise, problem or "nothing to grade",
                                   visibility=visibility,
                                   seconds=time.monotonic() - started))
      print(f"not graded: {problem}")
      return 0
    wanted = os.environ.get("ADKCOURSE_GRADESCOPE_ISOLATION") or config.get("isolation", "auto")
    if wanted not in ISOLATIONS:
      raise PlatformError(f"unknown isolation {wanted!r}")
    mode, isolation = _choose_isolation(wanted)
    time_limit = float(config.get("timeout", 30.0))
    memory_mb = int(config.get("memory_mb", 2048))
    scratch = prefix / "run"
    print(f"grading {path.relative_to(root)} for {exercise} (isolation: {mode})", flush=True)
    if mode == "bwrap":
      from .runner import Submission, grade_all

      try:
        graded = grade_all(exercise, [Submission("submission", path)], jobs=1,
                           time_limit=time_limit, memory_mb=memory_mb, progress=False,
                           scratch=scratch, isolation=isolation)[0]
        described = isolation.describe()
      finally:
        isolation.close()
    else:
      uid = student_uid()
      graded = grade_as_user(exercise, path, uid=uid, time_limit=time_limit,
                             memory_mb=memory_mb, scratch=scratch)
      described = (f"unprivileged user (uid {uid}), no new privileges, seccomp lock-down; "
                   "no bubblewrap")
    notes = list(graded.info)
    if graded.survivors:
      notes.append(f"{graded.survivors} process(es) it started outlived its run and were killed")
    data = results_json(graded.report, visibility=visibility,
                        seconds=time.monotonic() - started, notes=notes,
                        printed=graded.output, printed_size=graded.output_size,
                        isolation=described)
    write_results(results, data)
    print(f"score {graded.report.score:g} / {graded.report.max_score:g}; isolation: {described}")
    return 0
  except BaseException as error:  # noqa: BLE001 - a results file in every case
    traceback.print_exc()
    note = ("the autograder could not grade this submission "
            f"({type(error).__name__}: {one_line(error, 200)}): submit again, and tell your "
            "instructor if it happens again")
    try:
      write_results(results, _zero(exercise, note, visibility=visibility,
                                   seconds=time.monotonic() - started))
    except Exception:  # noqa: BLE001 - run_autograder writes its own then
      traceback.print_exc()
      return 1
    return 0
