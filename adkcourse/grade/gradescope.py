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
user is killed when its phase ends; then everything it left outside its work folder is
handed to the judge like the sandbox's ``/tmp``, and removed: every entry it owns in any
folder it could write (``collect_strays``; the folders are found by walking the machine's
file systems before it runs, ``survey``, not taken from a list), beyond the bytes the judge
is given as an empty entry of the same name; its System V IPC objects (``collect_ipc``).

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
import sys
import tempfile
import time
import traceback
import unicodedata
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any, Collection, Iterator, Optional, Sequence

from . import _act
from .checks import EXERCISES, UnknownExercise, get_exercise
from .hygiene import clean, escape_id, one_line

FORMAT_VERSION = 1
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")
ISOLATIONS = ("auto", "bwrap", "user")
STUDENT_USER = "student"  # the account setup.sh creates for submissions
DEFAULT_DEADLINE = 1500  # seconds run_autograder gives the whole grading of one submission
# sections of requirements.txt grading does not need (the packages named in KEEP stay)
SKIPPED_SECTIONS = ("notebooks", "tests")
KEEP = ("nbformat",)
# where a user usually can write: walked first (their files are the first to get their
# bytes within STRAY_CAP), then every other folder it could write (collect_strays)
STRAY_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/var/lock", "/dev/mqueue",
                 "/var/crash")
STRAY_CAP = 16 * 1024 * 1024  # bytes of stray files handed to the judge
STRAY_COUNT = 500  # entries of strays handed to the judge, the last standing for the rest
# that last entry, named as the sandbox's own (``_act.keep_leftovers``) names it
MORE_STRAYS = _act.UNOBSERVED
STRAY_SECONDS = 60.0  # a walk for strays stops there (a note says so)
SKIPPED_TREES = ("/proc", "/sys")  # the kernel's views: nothing a user leaves lies there
# file systems nothing of a user's lies on either (or not after its processes are gone)
PSEUDO_FILE_SYSTEMS = frozenset((
    "proc", "sysfs", "cgroup", "cgroup2", "devpts", "debugfs", "tracefs", "securityfs",
    "pstore", "bpf", "configfs", "fusectl", "binfmt_misc", "autofs", "efivarfs", "nsfs",
    "rpc_pipefs", "selinuxfs"))
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


HIDDEN_FOLDERS = ("__MACOSX", "__pycache__")  # an archiver's or Python's, never the work


def shown_name(name: object, limit: int = 120) -> str:
  """A file name as the log and the results show it: between “ and ”, every character that
  draws nothing or moves the cursor (control characters, newlines, ANSI escapes, bidi
  overrides, zero-width and format characters, lone surrogates) and backslashes written as
  visible ``\\xNN``/``\\uNNNN`` escapes, at most ``limit`` characters."""
  text = escape_id(str(name), normalize=False)
  if len(text) > limit:
    text = text[: limit - 1] + "…"
  return f"“{text}”"


def visible_text(text: object) -> str:
  """Text for the autograder's log (a traceback may quote a file name): its lines and spaces
  kept, every other character that draws nothing or moves the cursor (control and format
  characters, ANSI escapes, bidi overrides, lone surrogates) written as ``\\xNN``/``\\uNNNN``."""
  out = []
  for char in str(text):
    if char == "\n" or not unicodedata.category(char).startswith(("C", "Zl", "Zp")):
      out.append(char)
    else:
      code = ord(char)
      out.append(f"\\x{code:02x}" if code < 0x100 else
                 f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}")
  return "".join(out)


def _hidden(name: str) -> bool:
  return name.startswith(".") or name in HIDDEN_FOLDERS


def find_submission(folder: Path, notes: Optional[list[str]] = None
                    ) -> tuple[Optional[Path], Optional[str]]:
  """The one ``.py``/``.ipynb`` file under ``folder`` (any name, any case of suffix), or the
  reason there is none to grade. Hidden files and folders (a dot name: ``.git``,
  ``.ipynb_checkpoints``, macOS's ``._x.py``; ``__MACOSX``, ``__pycache__``) are ignored, which
  ``notes`` (when given) says. Every name in a reason is ``shown_name``."""
  from .extract import kind

  if not folder.is_dir():
    return None, "no submission folder was found: nothing was handed in"
  found, other, hidden = [], [], []
  for current, dirs, names in os.walk(folder):
    hidden += [Path(current, d).relative_to(folder).as_posix() + "/"
               for d in sorted(dirs) if _hidden(d)]
    dirs[:] = sorted(d for d in dirs if not _hidden(d))
    for name in sorted(names):
      path = Path(current) / name
      relative = path.relative_to(folder).as_posix()
      if _hidden(name):
        hidden.append(relative)
      elif kind(path) and not path.is_symlink():
        found.append(path)
      else:
        other.append(shown_name(relative, 80))
  ignored = ""
  if hidden:
    ignored = (f"{len(hidden)} hidden file(s) or folder(s) ignored "
               f"({', '.join(shown_name(h, 60) for h in hidden[:5])}"
               f"{', ...' if len(hidden) > 5 else ''}): only visible files are graded")
    if notes is not None:
      notes.append(ignored)
  if not found:
    extra = f" (found: {', '.join(other[:10])})" if other else ""
    return None, (f"no .py or .ipynb file was handed in{extra}: submit the exercise's "
                  "notebook or script" + (f"; {ignored}" if ignored else ""))
  if len(found) > 1:
    names = ", ".join(shown_name(p.relative_to(folder).as_posix(), 80) for p in found[:10])
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


def _unescape_mount(text: str) -> str:
  return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), text)


def _mounts() -> list[tuple[str, str, bool]]:
  """The mounts this process sees: (mount point, file system type, read-only)."""
  found = []
  try:
    lines = Path("/proc/self/mountinfo").read_text().splitlines()
  except OSError:
    return found
  for line in lines:
    fields = line.split(" ")
    if " - " not in line or len(fields) < 10:
      continue
    after = line.split(" - ", 1)[1].split(" ")
    options = set(fields[5].split(",")) | set(after[2].split(",") if len(after) > 2 else ())
    found.append((_unescape_mount(fields[4]), after[0], "ro" in options))
  return found


def _unwritable_trees(mounts: Sequence[tuple[str, str, bool]]) -> set[str]:
  """Mount points walking for strays skips: ``SKIPPED_TREES``, pseudo file systems, and
  read-only mounts with no other mount below them."""
  points = [m for m, _, _ in mounts]
  skipped = set(SKIPPED_TREES)
  for point, kind_, read_only in mounts:
    below = any(p != point and p.startswith(point.rstrip("/") + "/") for p in points)
    if kind_ in PSEUDO_FILE_SYSTEMS or (read_only and not below and point != "/"):
      skipped.add(point)
  return skipped


def flat_name(path: str, limit: int = 200) -> str:
  """The name a stray file gets among the judge's files: its path's parts joined by ``_``,
  every character that draws nothing escaped (``hygiene.escape_id``), at most ``limit``
  bytes of UTF-8 (the end kept: it holds the file's own name)."""
  text = escape_id("_".join(PurePosixPath(path).parts[1:]), normalize=False) or "file"
  data = text.encode("utf-8")
  if len(data) > limit:
    text = "…" + data[-(limit - 3):].decode("utf-8", "ignore")
  return text


class Strays:
  """What a uid left outside its work folder, as the judge gets it: ``files`` (flat name,
  bytes; an empty entry for what does not fit or is no regular file; beyond ``count``
  entries, one ``MORE_STRAYS`` entry for the rest), and what happened, for the notes."""

  def __init__(self, cap: int = STRAY_CAP, count: int = STRAY_COUNT):
    self.cap, self.count = cap, count
    self.files: list[tuple[str, bytes]] = []
    self.total = 0  # bytes handed over
    self.found = 0  # strays found, those beyond ``count`` included
    self.placeholders = 0  # handed over as an empty entry
    self.places: list[str] = []  # folders they were found in (the first few)
    self.ipc: list[str] = []  # System V IPC objects removed
    self.stopped: Optional[str] = None  # why the walk stopped early
    self.seconds = 0.0  # the walk's

  def fits(self, size: int) -> bool:
    """Would a stray of ``size`` bytes be handed over with its bytes?"""
    return len(self.files) < self.count - 1 and self.total + size <= self.cap

  def add(self, name: str, data: Optional[bytes], where: Optional[str] = None,
          ipc: bool = False) -> None:
    """One stray (found in the folder ``where``, or an ``ipc`` object): with ``data`` if
    given and it fits, else as an empty entry; beyond ``count`` entries only counted."""
    self.found += 1
    if where is not None and where not in self.places and len(self.places) < 5:
      self.places.append(where)
    if ipc:
      self.ipc.append(name)
    if len(self.files) >= self.count - 1:
      return
    if data is not None and self.total + len(data) <= self.cap:
      self.files.append((name, data))
      self.total += len(data)
    else:
      self.files.append((name, b""))
      self.placeholders += not ipc

  def handed(self) -> list[tuple[str, bytes]]:
    """The entries for the judge: ``files``, then ``MORE_STRAYS`` if there were more."""
    more = self.found - len(self.files)
    return self.files + ([(MORE_STRAYS, b"")] if more > 0 else [])

  def notes(self) -> list[str]:
    notes = []
    files = self.found - len(self.ipc)
    if files:
      where = ", ".join(shown_name(p, 60) for p in self.places)
      text = (f"it left {files} file(s) outside its work folder (in {where}): handed to the "
              "judge as what the sandbox's /tmp held, then removed")
      if self.placeholders:
        text += (f"; {self.placeholders} as an empty entry (beyond the {self.cap:,} bytes "
                 "shown, or not a regular file)")
      if self.found > len(self.files):
        text += (f"; the {self.found - len(self.files)} beyond the first {self.count - 1} as "
                 "one entry")
      notes.append(text)
    if self.ipc:
      notes.append(f"it left {len(self.ipc)} System V IPC object(s) "
                   f"({', '.join(shown_name(n, 60) for n in self.ipc[:5])}"
                   f"{', ...' if len(self.ipc) > 5 else ''}): each handed to the judge as an "
                   "entry, then removed")
    if self.stopped:
      notes.append(f"the search for files it left elsewhere stopped early ({self.stopped})")
    return notes


def _read_stray(path: str, left: int) -> Optional[bytes]:
  """A regular file's bytes (at most ``left``), or None: never a FIFO or a device put there
  in its place (no blocking, no following)."""
  try:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
  except OSError:
    return None
  with os.fdopen(fd, "rb") as stream:
    try:
      if not stat.S_ISREG(os.fstat(stream.fileno()).st_mode):
        return None
      data = stream.read(left + 1)
    except OSError:
      return None
  return data if len(data) <= left else None


def _owned(uid: int, exclude: Sequence[Path], tops: Sequence[str], deadline: float, *,
           everywhere: bool = True, writable_folders: Optional[list[str]] = None
           ) -> Iterator[tuple[str, os.stat_result, str]]:
  """Every entry ``uid`` owns where it could have made one, walking from ``tops``: (path,
  lstat, its folder), a folder before what it holds; (``""``, None, "") once, and nothing
  more, past ``deadline`` (``time.monotonic()``). ``writable_folders`` gets every folder
  walked that ``uid`` could write.

  A user can only create an entry in a folder it may write (one it owns, or writable by its
  group or by anyone), and whatever it creates is its own. So (``everywhere``) every folder
  it could reach is walked (never ``exclude``, ``SKIPPED_TREES``, pseudo file systems,
  read-only mounts, nor a folder it could not search unless it owns it), and, in each folder
  it could write, each entry is looked at (elsewhere only the folders). Not ``everywhere``,
  only the folders it owns or could write are walked below ``tops`` (those ``survey`` found
  before it ran, with the folders the grader made for it). Group and ACL rights are read
  loosely (any group bit counts): more is walked, nothing is missed."""
  skipped = {os.path.realpath(p) for p in exclude} | _unwritable_trees(_mounts())
  descend = 0o011 if everywhere else 0o022
  seen: set[tuple[int, int]] = set()
  real_tops: list[str] = []
  for top in tops:
    real = os.path.realpath(top)
    if real not in real_tops and real not in skipped and os.path.isdir(real):
      real_tops.append(real)
  for top in real_tops:
    try:
      stack = [(top, os.lstat(top))]
    except OSError:
      continue
    while stack:
      if time.monotonic() > deadline:
        yield "", None, ""  # type: ignore[misc]
        return
      current, info = stack.pop()
      if (info.st_dev, info.st_ino) in seen:
        continue
      seen.add((info.st_dev, info.st_ino))
      writable = info.st_uid == uid or bool(info.st_mode & 0o022)
      if writable and writable_folders is not None:
        writable_folders.append(current)
      try:
        entries = sorted(os.scandir(current), key=lambda e: e.name)
      except OSError:
        continue
      below = []
      for entry in entries:
        try:
          folder = entry.is_dir(follow_symlinks=False)
          if folder and entry.path in skipped or not (folder or writable):
            continue
          sub = entry.stat(follow_symlinks=False)
        except OSError:
          continue
        if sub.st_uid == uid:
          yield entry.path, sub, current
        if folder and (sub.st_uid == uid or sub.st_mode & descend):
          below.append((entry.path, sub))
      stack.extend(reversed(below))  # taken in name order


def _identity(info: os.stat_result) -> tuple:
  """An entry as ``Survey.owned`` keeps it: a file changed since (its ctime) is another."""
  return ((info.st_dev, info.st_ino) if stat.S_ISDIR(info.st_mode)
          else (info.st_dev, info.st_ino, info.st_ctime_ns))


def _ipc_identity(kind_: str, ident: int) -> tuple:
  return ("ipc", kind_, ident)


class Survey:
  """The machine as ``uid`` found it before a submission ran (``survey``)."""

  def __init__(self) -> None:
    self.owned: set[tuple] = set()  # what it owned (``_identity``, ``_ipc_identity``)
    self.writable: list[str] = []  # the folders it could write
    self.complete = True  # False: the walk stopped at its time limit
    self.seconds = 0.0


def survey(uid: int, exclude: Sequence[Path] = (), seconds: float = STRAY_SECONDS,
           tops: Sequence[str] = ("/",)) -> Survey:
  """Walk the machine (``_owned``, everywhere) before a submission runs, for two things:

  - what ``uid`` owns already (entries, System V IPC objects): not its doing, so never taken
    for a stray, nor removed, afterwards (a file changed since is). Empty on the platform,
    whose account is fresh; not on a machine where that uid was used before (a test's, an
    earlier grading that died);
  - every folder ``uid`` could write: the only places where it can make something, so that
    afterwards ``collect_strays`` walks those (and the folders it made in them) instead of
    the whole machine again.
  """
  found = Survey()
  started = time.monotonic()
  for path, info, _ in _owned(uid, exclude, tops, started + seconds,
                              writable_folders=found.writable):
    if not path:
      found.complete = False
      break
    found.owned.add(_identity(info))
  found.owned |= {_ipc_identity(k, i) for k, i, _, _ in _sysv_objects(uid)}
  found.seconds = time.monotonic() - started
  return found


def collect_strays(uid: int, exclude: Sequence[Path] = (), before: Optional[Survey] = None,
                   folders: Sequence[str] = STRAY_FOLDERS, cap: int = STRAY_CAP,
                   count: int = STRAY_COUNT, seconds: float = STRAY_SECONDS,
                   roots: Sequence[str] = ("/",), strays: Optional[Strays] = None) -> Strays:
  """Everything ``uid`` left on the machine's file systems (``_owned``) but ``exclude`` (its
  work folder, which the judge reads where it is) and what it owned ``before``, removed from
  there: what the sandbox's private ``/tmp`` would have held. Its processes must be gone.

  Walked: ``folders`` first (their files are the first to get their bytes), then, after a
  complete ``before``, the folders it could write then and what it made there, else every
  folder below ``roots``. Each stray is handed over (``Strays.add``): its bytes while they
  fit in ``cap``, else, and for anything that is not a regular file (a FIFO, a socket, a
  link), an empty entry of the same name, so that the judge always sees that a file was
  made; beyond ``count`` entries, one ``MORE_STRAYS`` entry stands for the rest. The folders
  it made are removed too."""
  strays = strays or Strays(cap, count)
  started = time.monotonic()
  keep = before.owned if before is not None else set()
  if before is not None and before.complete:
    walks = [(list(folders) + before.writable, False)]
  else:
    walks = [(list(folders), False), (list(roots), True)]
  made: list[str] = []  # folders it made
  kept: list[str] = []
  for tops, everywhere in walks:
    for path, info, folder in _owned(uid, exclude, tops, started + seconds,
                                     everywhere=everywhere):
      if not path:
        strays.stopped = (f"after {seconds:g} s, {strays.found} file(s) found: the folders "
                          "beyond were not looked in")
        break
      if _identity(info) in keep:
        kept.append(path)
        continue
      if stat.S_ISDIR(info.st_mode):
        made.append(path)
        continue
      data = None
      if stat.S_ISREG(info.st_mode) and strays.fits(info.st_size):
        data = _read_stray(path, strays.cap - strays.total)
      strays.add(flat_name(path), data, folder)
      try:
        os.unlink(path)
      except OSError:
        pass
  inside = [os.path.realpath(p) for p in exclude] + kept
  for path in sorted(made, key=len):  # the folders it made, emptied above
    if os.path.lexists(path) and not any(x.startswith(path + "/") for x in inside):
      shutil.rmtree(path, ignore_errors=True)
  strays.seconds = time.monotonic() - started
  return strays


IPC_RMID, SHM_RDONLY = 0, 0o10000
IPC_KINDS = ("shm", "msg", "sem")


def _sysv_objects(uid: int) -> list[tuple[str, int, int, int]]:
  """The System V IPC objects ``uid`` owns or created (``/proc/sysvipc``): (kind, id, key,
  size: a segment's bytes, else 0). The creator counts: an owner may give an object away."""
  found = []
  for kind_ in IPC_KINDS:
    try:
      lines = Path(f"/proc/sysvipc/{kind_}").read_text().splitlines()
    except OSError:
      continue
    if not lines:
      continue
    header = lines[0].split()
    for line in lines[1:]:
      values = dict(zip(header, line.split()))
      try:
        owners = {int(values["uid"]), int(values["cuid"])}
        ident = int(values[{"shm": "shmid", "msg": "msqid", "sem": "semid"}[kind_]])
        key = int(values["key"])
        size = int(values.get("size", 0)) if kind_ == "shm" else 0
      except (KeyError, ValueError):
        continue
      if uid in owners:
        found.append((kind_, ident, key, size))
  return found


def collect_ipc(uid: int, strays: Optional[Strays] = None, keep: Collection[tuple] = ()
                ) -> Strays:
  """Remove the System V IPC objects (shared memory segments, message queues, semaphore
  sets) ``uid`` owns or created: they belong to the kernel and outlive every process. The
  seccomp lock-down denies making them; this is for a machine where it could not be applied.
  Each is handed to the judge as an entry (a segment with its bytes while they fit); those
  in ``keep`` (``Survey.owned``) are left alone."""
  import ctypes

  strays = strays or Strays()
  objects = [o for o in _sysv_objects(uid) if _ipc_identity(o[0], o[1]) not in keep]
  if not objects:
    return strays
  libc = ctypes.CDLL(None, use_errno=True)
  libc.shmat.restype = ctypes.c_void_p
  libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
  libc.shmdt.argtypes = [ctypes.c_void_p]
  for kind_, ident, key, size in objects:
    name = f"sysvipc-{kind_}-key{key & 0xFFFFFFFF:08x}-id{ident}"
    data = None
    if kind_ == "shm" and strays.fits(size):
      address = libc.shmat(ident, None, SHM_RDONLY)
      if address not in (None, ctypes.c_void_p(-1).value):
        try:
          data = ctypes.string_at(address, size)
        finally:
          libc.shmdt(ctypes.c_void_p(address))
    strays.add(name, data, ipc=True)
    if kind_ == "shm":
      libc.shmctl(ident, IPC_RMID, None)
    elif kind_ == "msg":
      libc.msgctl(ident, IPC_RMID, None)
    else:
      libc.semctl(ident, 0, IPC_RMID)
  return strays


def _add_files(result: bytes, extra: list[tuple[str, bytes]], prefix: str,
               notes: Sequence[str] = ()) -> bytes:
  """The sandbox's result with ``extra`` files added under ``prefix`` (as ``_act`` adds the
  sandbox's /tmp under ``elsewhere-sandbox/``) and ``notes`` before its file notes; unchanged
  if it is malformed (the grader then says so). Never more files than a result may hold:
  the last ones then become one ``MORE_STRAYS`` entry."""
  from .runner import MAX_RETURNED_FILES, Malformed, parse_result

  if not extra and not notes:
    return result
  try:
    header, files = parse_result(result)
  except Malformed:
    return result
  room = MAX_RETURNED_FILES - len(files)
  if len(extra) > room:
    if room < 1:  # a report already full (a genuine one holds 500 at most): its last makes room
      files, room = files[:MAX_RETURNED_FILES - 1], 1
    extra = list(extra[:room - 1]) + [(MORE_STRAYS, b"")]
  names = {str(p) for p, _ in files}
  for name, data in extra:
    candidate = f"{prefix}/{name}"
    while candidate in names:
      candidate += "_"
    names.add(candidate)
    files.append((PurePosixPath(candidate), data))
  theirs = header.get("file_notes")
  if not (isinstance(theirs, list) and all(type(n) is str for n in theirs)):
    theirs = []
  header["file_notes"] = list(notes) + theirs
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
    every process of that uid when it ends; hands the judge what it left outside its work
    folder (``collect_strays``, ``collect_ipc``), as the sandbox's /tmp."""

    def __init__(self, isolation: Any, uid: int):
      super().__init__(isolation)
      self.student = uid
      self.before: Optional[Survey] = None  # the machine before grading (``survey``)

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
      # all it left outside the work folder (which the judge reads where it is): its own
      # home and temporary folders, anywhere else it could write, its IPC objects
      strays = collect_strays(self.student, exclude=[workdir], before=self.before,
                              folders=STRAY_FOLDERS + (str(base),))
      strays = collect_ipc(self.student, strays, self.before.owned if self.before else ())
      print(f"(platform) looked for what it left outside its work folder in "
            f"{strays.seconds:.1f} s: {strays.found} found", flush=True)
      run.result = _add_files(run.result, strays.handed(), "elsewhere-sandbox", strays.notes())
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
    kill_uid(uid)
    # while the judges warm up: what the uid owns already (not the submission's doing: left
    # alone afterwards) and where it could write (where strays are looked for afterwards)
    before = grader.sandbox.before = survey(uid, exclude=[root])
    print(f"(platform) surveyed the machine in {before.seconds:.1f} s: "
          f"{len(before.writable)} folder(s) uid {uid} could write"
          + ("" if before.complete else " (stopped at its time limit)"), flush=True)
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
    if grader is not None:  # (after each run already; here too if a run itself failed)
      collect_ipc(uid, keep=grader.sandbox.before.owned if grader.sandbox.before else ())
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
    found_notes: list[str] = []
    path, problem = find_submission(root / "submission", found_notes)
    if path is None:
      write_results(results, _zero(exercise, problem or "nothing to grade",
                                   visibility=visibility,
                                   seconds=time.monotonic() - started))
      print(f"not graded: {visible_text(problem)}")
      return 0
    wanted = os.environ.get("ADKCOURSE_GRADESCOPE_ISOLATION") or config.get("isolation", "auto")
    if wanted not in ISOLATIONS:
      raise PlatformError(f"unknown isolation {wanted!r}")
    mode, isolation = _choose_isolation(wanted)
    time_limit = float(config.get("timeout", 30.0))
    memory_mb = int(config.get("memory_mb", 2048))
    scratch = prefix / "run"
    print(f"grading {shown_name(path.relative_to(root).as_posix(), 300)} for {exercise} "
          f"(isolation: {mode})", flush=True)
    for note in found_notes:
      print(visible_text(note), flush=True)
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
    notes = found_notes + list(graded.info)
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
    print(visible_text(traceback.format_exc()), file=sys.stderr, flush=True)
    note = ("the autograder could not grade this submission "
            f"({type(error).__name__}: {one_line(error, 200)}): submit again, and tell your "
            "instructor if it happens again")
    try:
      write_results(results, _zero(exercise, note, visibility=visibility,
                                   seconds=time.monotonic() - started))
    except Exception:  # noqa: BLE001 - run_autograder writes its own then
      print(visible_text(traceback.format_exc()), file=sys.stderr, flush=True)
      return 1
    return 0
