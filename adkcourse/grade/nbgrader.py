"""An nbgrader course folder for the course's exercises, graded by the course's own judge.

    python -m adkcourse.grade nbgrader OUT [--exercise NAME ...] [--seed N]

writes, from the exercise sources (``exercises/NAME.py``, parsed by
``scripts/generate_exercises.py``, the one source of truth):

- ``OUT/source/NAME/NAME.ipynb`` for each exercise: the exercise text (read-only), the
  student's code as nbgrader "autograded answer" cells (the reference between nbgrader's own
  ``### BEGIN SOLUTION`` / ``### END SOLUTION`` markers, which ``nbgrader generate_assignment``
  replaces by ``raise NotImplementedError()``), a read-only grading cell, and one autograder
  test cell per check of the exercise, worth that check's points;
- ``OUT/nbgrader_config.py``: the course id and the cell time limits the grading cell needs;
- ``OUT/adkcourse_nbgrader.json``: how ``nbgrader autograde`` grades (``--seed``, time and
  memory limits, sandbox), read only from the course folder, never from a submission; mode
  0600, since the seed is a secret.

**How a notebook is graded.** The grading cell calls :func:`grade`, which does not run the
student's function in the notebook's kernel: it takes the notebook file as saved (at
``nbgrader autograde`` the sanitised copy, test cells restored from the gradebook), keeps the
student's code cells (every code cell but nbgrader's read-only and test cells), and grades
that file in a separate process of the course's Python exactly as ``python -m adkcourse.grade``
grades one submission (``runner.grade_all``: the judge in its own process, the submission in
its bubblewrap sandbox, the reference in a folder no sandbox sees), with the same per-student
worlds for the same ``--seed`` (the student id is nbgrader's, the autograded folder's name).
Where bubblewrap cannot run, ``--sandbox auto`` (the default) grades as ``--sandbox none``
does and the cell says so; ``--sandbox bwrap`` refuses instead (every check 0, with the reason).

**Points.** Each test cell's last line is ``adkcourse_nbgrader.earned(NAME, CHECK, POINTS)``:
the check's earned points, a number, which nbgrader 0.9 takes as the cell's partial credit
(``nbgrader.utils.determine_grade``: a test cell whose output is a number from 0 to its points
scores that number). So nbgrader's total equals the course grader's, check by check, including
checks met in only some worlds (1.5 of 2). Nothing these cells print goes to stderr (nbgrader
gives 0 to a test cell that writes there).

**What this does not change.** nbgrader itself runs every cell of the notebook, the student's
included, in one kernel with the autograding account's rights; a student who wants to can
forge any test cell's output from a cell of their own (nbgrader's threat model, not the
course's). The course's sandbox protects the grading of the function, not nbgrader's kernel:
for grades nobody could forge, grade the collected ``submitted/`` notebooks with
``python -m adkcourse.grade`` itself (docs/instructors.md, section 10), which gives the same
points for the same seed.
"""

from __future__ import annotations

import argparse
import ast
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path
from typing import Any, Optional, Sequence

SETTINGS_FILE = "adkcourse_nbgrader.json"
SETTINGS_FORMAT = 1
SANDBOXES = ("auto", "bwrap", "none")
GRADING_SUFFIX = "-grading"  # the grade_id of each notebook's grading cell ends with it
STUDENT_CELL_SECONDS = 120  # nbgrader's limit for any other cell (its own default is 30)
SHORT_SEED = 2 ** 60  # as the grade command: below this, a feedback page's seeds give it away
MAX_NOTEBOOK = 32 * 1024 * 1024  # bytes of a notebook read (the grader's own cap per file)
OUTPUT_SHOWN = 2_000  # characters of what the student's code printed, shown in the cell
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}
# nbgrader finds its markers anywhere in a line (``in``), in every cell, code or markdown
NBGRADER_MARKERS = ("BEGIN SOLUTION", "END SOLUTION", "BEGIN HIDDEN TESTS", "END HIDDEN TESTS",
                    "BEGIN MARK SCHEME", "END MARK SCHEME")


class ExportError(ValueError):
  """An exercise source that cannot become an nbgrader notebook, or a refused output."""


def course_root() -> Path:
  """The checkout this package comes from (``exercises/`` and ``scripts/`` are there)."""
  return Path(__file__).resolve().parent.parent.parent


def _generator(root: Optional[Path] = None):
  """``scripts/generate_exercises.py`` as a module: its markers and ``split_source``."""
  path = Path(root or course_root()) / "scripts" / "generate_exercises.py"
  if not path.is_file():
    raise ExportError(f"{path} is missing: run this command from the course's checkout")
  name = "adkcourse_generate_exercises"
  if name in sys.modules and getattr(sys.modules[name], "__file__", None) == str(path):
    return sys.modules[name]
  spec = importlib.util.spec_from_file_location(name, path)
  assert spec is not None and spec.loader is not None
  module = importlib.util.module_from_spec(spec)
  sys.modules[name] = module  # dataclasses look their module up there
  spec.loader.exec_module(module)
  return module


# -- the source notebook --------------------------------------------------------------------

def _meta(grade_id: str, *, grade: bool = False, solution: bool = False, locked: bool = False,
          points: Optional[float] = None) -> dict:
  meta = {"grade": grade, "grade_id": grade_id, "locked": locked, "schema_version": 3,
          "solution": solution, "task": False}
  if grade:
    meta["points"] = points
  return {"nbgrader": meta}


def _cell(kind: str, text: str, cell_id: str, metadata: Optional[dict] = None) -> dict:
  cell = {"cell_type": kind, "id": cell_id, "metadata": metadata or {},
          "source": text.strip("\n").splitlines(keepends=True)}
  if kind == "code":
    cell.update(execution_count=None, outputs=[])
  return cell


def _trim(lines: list[str]) -> str:
  while lines and not lines[0].strip():
    lines = lines[1:]
  while lines and not lines[-1].strip():
    lines = lines[:-1]
  return "\n".join(lines)


def code_segments(name: str, text: str, label: str, root: Optional[Path] = None
                  ) -> tuple[str, list[tuple[str, str]]]:
  """The exercise text and the code of ``exercises/NAME.py`` as notebook cells:
  ``(docstring, [(kind, code), ...])`` with kind ``"solution"`` (holds a solution region),
  ``"helpers"`` (a module-level region: the reference's helpers, its own cell) or ``"code"``
  (no region: imports and such, an ordinary cell the student may edit). Markers stay as they
  are, for nbgrader; ``### HINT:`` lines become a ``# Hint:`` comment right above the region
  (nbgrader keeps them in the student version). The source is checked by
  ``generate_exercises.split_source`` first (markers paired, both versions parse)."""
  generator = _generator(root)
  split = generator.split_source(name, text, label)  # ExerciseSourceError if malformed
  tree = ast.parse(text)
  lines = text.splitlines()
  first = 0
  if ast.get_docstring(tree) is not None and tree.body and isinstance(tree.body[0], ast.Expr):
    first = tree.body[0].end_lineno or 0
  begin, end, hint = generator.BEGIN, generator.END, generator.HINT
  segments: list[tuple[str, str]] = []
  current: list[str] = []
  has_region = False
  helpers: Optional[list[str]] = None  # inside a module-level region: its cell's lines
  hints: list[str] = []
  for line in lines[first:]:
    stripped = line.strip()
    indent = line[: len(line) - len(line.lstrip())]
    if stripped.startswith(hint):
      hints.append(stripped[len(hint):].strip())
      continue
    if stripped == begin:
      hints = [indent + comment for comment in _comment("Hint: " + " ".join(hints),
                                                        96 - len(indent))] if hints else []
      if not indent:  # the reference's helpers: a cell of their own
        segments.append(("solution" if has_region else "code", _trim(current)))
        current, has_region = [], False
        helpers = [f"# Helpers for {name}, if you want some (optional): write them in place "
                   "of the", "# `raise NotImplementedError()` below, or delete that line.",
                   *hints, line]
      else:
        current += hints + [line]
        has_region = True
      hints = []
      continue
    if stripped == end and helpers is not None:
      segments.append(("helpers", _trim(helpers + [line])))
      helpers = None
      continue
    (helpers if helpers is not None else current).append(line)
  segments.append(("solution" if has_region else "code", _trim(current)))
  return split.docstring, [(kind, code) for kind, code in segments if code.strip()]


def _comment(text: str, width: int = 96) -> list[str]:
  return textwrap.wrap(" ".join(text.split()), width=width, initial_indent="# ",
                       subsequent_indent="# ", break_long_words=False) or ["#"]


def _check_markers(cells: list[dict], label: str, own: tuple[str, ...]) -> None:
  """nbgrader takes any line holding one of its markers for one (in any cell): only the
  solution cells' own BEGIN/END lines (``own``) may."""
  for cell in cells:
    solution = cell["metadata"].get("nbgrader", {}).get("solution", False)
    for line in "".join(cell["source"]).splitlines():
      if solution and line.strip() in own:
        continue
      if any(marker in line for marker in NBGRADER_MARKERS):
        raise ExportError(f"{label}: cell {cell['id']} has a line nbgrader would take for one "
                          f"of its markers: {line.strip()[:80]!r}")


def source_notebook(name: str, root: Optional[Path] = None) -> str:
  """The nbgrader source notebook of exercise ``name`` (JSON text)."""
  from .checks import get_exercise

  root = Path(root or course_root())
  source = root / "exercises" / f"{name}.py"
  if not source.is_file():
    raise ExportError(f"{source} is missing")
  label = source.relative_to(root).as_posix()
  docstring, segments = code_segments(name, source.read_text(encoding="utf-8"), label, root)
  exercise = get_exercise(name)
  cells = [_cell("markdown", f"<!-- Written by python -m adkcourse.grade nbgrader from {label}: "
                             "edit that file, then export again. -->\n# " + docstring,
                 f"{name}-text", _meta(f"{name}-text", locked=True))]
  helpers = codes = solutions = 0
  for kind, code in segments:
    if kind == "helpers":
      helpers += 1
      grade_id = f"{name}-helpers-{helpers}"
      cells.append(_cell("code", code, grade_id, _meta(grade_id, solution=True)))
    elif kind == "solution":
      solutions += 1
      grade_id = f"{name}-solution" + (f"-{solutions}" if solutions > 1 else "")
      cells.append(_cell("code", code, grade_id, _meta(grade_id, solution=True)))
    else:
      codes += 1
      cells.append(_cell("code", code, f"{name}-code-{codes}"))
  total = sum(check.points for check in exercise.checks)
  cells.append(_cell("markdown", (
      "## Grading\n\n"
      f"Your grade comes from the function named `{name}`, wherever it sits in this notebook. "
      "Only imports, definitions and constants are taken from your cells: experiments in "
      "other cells are not run by the grader.\n\n"
      "The cells below grade this notebook **as it is saved** (save it first) with the "
      f"course's grader, the same checks and points as `python -m adkcourse.grade`: {total:g} "
      "points in all. The first one shows the full report; each of the next ones is one check, "
      "worth the points it earned."), f"{name}-grading-text",
      _meta(f"{name}-grading-text", locked=True)))
  grading_id = f"{name}{GRADING_SUFFIX}"
  cells.append(_cell("code", (
      "# Read-only. Grades this notebook as saved, in a sandbox, with the course's judge;\n"
      "# your function never runs in this kernel. It can take a minute.\n"
      "import adkcourse.grade.nbgrader as adkcourse_nbgrader\n\n"
      f"adkcourse_nbgrader.grade({name!r})"), grading_id, _meta(grading_id, locked=True)))
  for check in exercise.checks:
    grade_id = f"{name}-check-{check.name}"
    lines = _comment(f"{check.name} ({check.points:g} point{'s' if check.points != 1 else ''}): "
                     f"{check.requires}")
    lines.append(f"adkcourse_nbgrader.earned({name!r}, {check.name!r}, {check.points!r})")
    cells.append(_cell("code", "\n".join(lines), grade_id,
                       _meta(grade_id, grade=True, locked=True, points=check.points)))
  generator = _generator(root)
  _check_markers(cells, label, (generator.BEGIN, generator.END))
  notebook = {"cells": cells,
              "metadata": {"kernelspec": dict(KERNELSPEC), "language_info": {"name": "python"}},
              "nbformat": 4, "nbformat_minor": 5}
  return json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"


# -- the course folder --------------------------------------------------------------------------

def grading_seconds(time_limit: float) -> float:
  """Wall-clock seconds one grading may take, everything included: the judge's preparation and
  observation, the sandbox's own limit, and a second grading alone after a time limit (as the
  grade command does)."""
  from .runner import (JUDGE_START_TIMEOUT, KILL_GRACE, STARTUP_CPU, STARTUP_WALL, WALL_FACTOR,
                       judge_timeout)

  sandbox = STARTUP_WALL + WALL_FACTOR * (time_limit + STARTUP_CPU) + KILL_GRACE
  return JUDGE_START_TIMEOUT + 2 * (sandbox + 2 * judge_timeout(time_limit)) + 60


CONFIG = '''\
# nbgrader's settings for the ADK course's exercises, written by
#   python -m adkcourse.grade nbgrader
# (docs/instructors.md, section 10). Edit what you like: the command never overwrites a file
# that differs from what it would write, unless given --force.
c = get_config()  # noqa: F821 - nbgrader's config loader defines it

c.CourseDirectory.course_id = {course_id!r}

# Each exercise's grading cell (grade_id "NAME-grading") runs the course's grader: a judge
# process, the submission in its sandbox, perhaps a second grading alone after a time limit.
# It gets the time that takes; every other cell, the students' included, {student_seconds} s.
def _adkcourse_cell_timeout(cell):
    grade_id = cell.get("metadata", {{}}).get("nbgrader", {{}}).get("grade_id", "")
    return {grading_seconds} if str(grade_id).endswith({suffix!r}) else {student_seconds}


c.Execute.timeout = {student_seconds}
c.Execute.timeout_func = _adkcourse_cell_timeout
'''


def config_text(course_id: str, time_limit: float) -> str:
  return CONFIG.format(course_id=course_id, student_seconds=STUDENT_CELL_SECONDS,
                       grading_seconds=int(grading_seconds(time_limit)) + 60,
                       suffix=GRADING_SUFFIX)


def settings_text(seed: Optional[int], time_limit: float, memory_mb: int, sandbox: str) -> str:
  return json.dumps({"format": SETTINGS_FORMAT, "seed": seed, "timeout": float(time_limit),
                     "memory_mb": int(memory_mb), "sandbox": sandbox}, indent=1) + "\n"


def course_files(exercises: Sequence[str], *, seed: Optional[int] = None,
                 time_limit: float = 30.0, memory_mb: int = 2048, sandbox: str = "auto",
                 course_id: str = "adkcourse", root: Optional[Path] = None
                 ) -> dict[str, tuple[str, int]]:
  """Every file of the course folder: relative path -> (text, mode)."""
  files = {"nbgrader_config.py": (config_text(course_id, time_limit), 0o644),
           SETTINGS_FILE: (settings_text(seed, time_limit, memory_mb, sandbox), 0o600)}
  for name in exercises:
    files[f"source/{name}/{name}.ipynb"] = (source_notebook(name, root), 0o644)
  return files


def write_course(out: Path, files: dict[str, tuple[str, int]], *, force: bool = False
                 ) -> tuple[list[str], list[str]]:
  """Write ``files`` under ``out``: (written, unchanged). A file that exists with other
  content is refused (``ExportError`` naming them all, nothing written) unless ``force``."""
  out = Path(out)
  if out.exists() and not out.is_dir():
    raise ExportError(f"{out} exists and is not a folder")
  changed = []
  for relative, (text, _mode) in files.items():
    path = out / relative
    if path.is_symlink() or (path.exists() and not path.is_file()):
      raise ExportError(f"{path} exists and is not a regular file")
    if path.exists() and path.read_text(encoding="utf-8") != text:
      changed.append(relative)
  if changed and not force:
    raise ExportError(f"these files exist with other content (changed by hand, or from "
                      f"another version): {', '.join(changed)}; pass --force to overwrite them")
  written, unchanged = [], []
  for relative, (text, mode) in files.items():
    path = out / relative
    if path.exists() and path.read_text(encoding="utf-8") == text:
      unchanged.append(relative)
      path.chmod(mode)
      continue
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".tmp-", dir=path.parent)
    try:
      with os.fdopen(handle, "w", encoding="utf-8") as stream:
        stream.write(text)
      os.chmod(temporary, mode)
      os.replace(temporary, path)
    except BaseException:
      Path(temporary).unlink(missing_ok=True)
      raise
    written.append(relative)
  return written, unchanged


def build_parser() -> argparse.ArgumentParser:
  from .checks import EXERCISES

  parser = argparse.ArgumentParser(
      prog="python -m adkcourse.grade nbgrader",
      description="Write an nbgrader course folder: every exercise as an nbgrader source "
                  "notebook whose test cells take their points from the course's grader.",
      epilog=f"exercises: {', '.join(EXERCISES)}")
  parser.add_argument("out", type=Path, help="the nbgrader course folder to write (made if "
                                             "missing; run nbgrader from there)")
  parser.add_argument("--exercise", action="append", dest="exercises", metavar="NAME",
                      help="export only this exercise (repeatable; default: all)")
  parser.add_argument("--seed", type=int,
                      help="grade with the same data for each student on every autograde, "
                           "as the grade command's --seed (same seed, same points); kept in "
                           f"{SETTINGS_FILE} (mode 0600), never in a notebook. Default: "
                           "fresh data every time")
  parser.add_argument("--timeout", type=float, default=30.0,
                      help="CPU seconds a submission's calls may use, all worlds (30)")
  parser.add_argument("--memory-mb", type=int, default=2048, help="memory limit (2048)")
  parser.add_argument("--sandbox", choices=SANDBOXES, default="auto",
                      help="auto (default): bubblewrap where it runs, else no isolation, which "
                           "the grading cell then says; bwrap: refuse to grade without it; "
                           "none: never isolate (only for code you trust)")
  parser.add_argument("--course-id", default="adkcourse",
                      help="nbgrader's course id (release/collect use it): adkcourse")
  parser.add_argument("--force", action="store_true",
                      help="overwrite files that differ from what this command writes")
  return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
  import math

  from .checks import EXERCISES

  parser = build_parser()
  args = parser.parse_args(argv)
  exercises = list(dict.fromkeys(args.exercises or EXERCISES))
  unknown = [name for name in exercises if name not in EXERCISES]
  if unknown:
    parser.error(f"unknown exercise {unknown[0]!r}: choose from {', '.join(EXERCISES)}")
  if not math.isfinite(args.timeout) or args.timeout <= 0:
    parser.error("--timeout must be a positive number of seconds")
  if args.memory_mb < 256:
    parser.error("--memory-mb must be at least 256")
  if not args.course_id.strip() or any(c in args.course_id for c in "/\\\n\r\"'"):
    parser.error("--course-id must be a plain name")
  try:
    files = course_files(exercises, seed=args.seed, time_limit=args.timeout,
                         memory_mb=args.memory_mb, sandbox=args.sandbox,
                         course_id=args.course_id)
    written, unchanged = write_course(args.out, files, force=args.force)
  except ExportError as error:
    parser.error(str(error))
  except ValueError as error:  # generate_exercises.ExerciseSourceError
    print(f"python -m adkcourse.grade nbgrader: {error}", file=sys.stderr)
    return 1
  if args.seed is not None and abs(args.seed) < SHORT_SEED:
    print(f"warning: --seed {args.seed} is short: a student can find it from the world seeds "
          "their feedback shows. For a class, use a long random one: "
          "python -c 'import secrets; print(secrets.randbits(64))'", file=sys.stderr)
  for relative in written:
    print(f"wrote {args.out / relative}")
  if unchanged:
    print(f"{len(unchanged)} file(s) already up to date")
  print(f"\n{len(exercises)} exercise(s) in {args.out}/source/. Next, from {args.out}/:\n"
        f"  nbgrader generate_assignment {exercises[0]}   (then release_assignment, "
        "collect, autograde: docs/instructors.md, section 10)\n"
        "The notebooks' kernel must be the course's Python (the one that ran this command).")
  return 0


# -- in the notebook's kernel: grading and the test cells -------------------------------------

_REPORTS: dict[str, Any] = {}  # exercise -> the Report of the last grading in this kernel


def _autograding() -> bool:
  return os.environ.get("NBGRADER_EXECUTION") == "autograde"


def _notebook_path(exercise: str) -> Path:
  """The notebook being graded: during nbgrader's runs the kernel's folder holds it under the
  assignment's name; in Jupyter, the notebook this kernel was started for."""
  here = Path.cwd() / f"{exercise}.ipynb"
  if os.environ.get("NBGRADER_EXECUTION"):
    return here
  started_for = os.environ.get("JPY_SESSION_NAME", "")
  if started_for.endswith(".ipynb") and Path(started_for).is_file():
    return Path(started_for)
  return here


def _student() -> str:
  """nbgrader's student id at autograde (``autograded/STUDENT/ASSIGNMENT`` is the kernel's
  folder), else this user's: the id that, with the seed, picks the student's worlds."""
  import getpass

  from .hygiene import escape_id

  if _autograding():
    return escape_id(Path.cwd().parent.name)
  try:
    user = os.environ.get("ADKCOURSE_USER", "").strip() or getpass.getuser()
  except Exception:  # noqa: BLE001 - no user name in some containers
    user = "student"
  return escape_id(user)


def _settings() -> tuple[dict, Optional[str]]:
  """How to grade, and a note when autograding found no settings of the course folder. Read
  only from the course folder (``autograded/STUDENT/ASSIGNMENT/../../..``): a file handed in
  with a submission sits in the kernel's own folder and is never read."""
  settings = {"seed": None, "timeout": 30.0, "memory_mb": 2048, "sandbox": "auto"}
  if not _autograding():
    return settings, None
  try:
    path = Path.cwd().parents[2] / SETTINGS_FILE
    data = json.loads(path.read_text(encoding="utf-8"))
  except (OSError, ValueError, IndexError) as error:
    return settings, (f"{SETTINGS_FILE} could not be read from the course folder ({error}): "
                      "graded with fresh data and the default limits")
  if not isinstance(data, dict):
    return settings, f"{path} is not a JSON object: graded with the defaults"
  seed = data.get("seed")
  if seed is None or type(seed) is int:
    settings["seed"] = seed
  for key, kind in (("timeout", (int, float)), ("memory_mb", (int,))):
    if type(data.get(key)) in kind and data[key] > 0:
      settings[key] = data[key]
  if data.get("sandbox") in SANDBOXES:
    settings["sandbox"] = data["sandbox"]
  return settings, None


def student_cells(notebook: dict) -> dict:
  """The notebook with only the student's code cells: every code cell but nbgrader's
  read-only cells and test cells (a solution cell is the student's even when locked)."""
  kept = []
  for cell in notebook.get("cells") or []:
    if not isinstance(cell, dict) or cell.get("cell_type") != "code":
      continue
    metadata = cell.get("metadata")
    meta = metadata.get("nbgrader") if isinstance(metadata, dict) else None
    meta = meta if isinstance(meta, dict) else {}
    if not meta.get("solution") and (meta.get("locked") or meta.get("grade")):
      continue
    kept.append({"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
                 "source": cell.get("source", "")})
  return {"cells": kept, "metadata": {"kernelspec": dict(KERNELSPEC)},
          "nbformat": notebook.get("nbformat", 4), "nbformat_minor": 4}


def _package_parent() -> str:
  return str(Path(__file__).resolve().parent.parent.parent)


def grade_file(exercise: str, path: Path, *, student: str, seed: Optional[int] = None,
               time_limit: float = 30.0, memory_mb: int = 2048, sandbox: str = "auto"
               ) -> dict:
  """Grade the notebook or ``.py`` file at ``path`` in a fresh process of this Python, as the
  grade command grades one submission; its answer (``report``: ``Report.to_dict()``)."""
  request = {"exercise": exercise, "path": str(path), "student": student, "seed": seed,
             "timeout": float(time_limit), "memory_mb": int(memory_mb), "sandbox": sandbox}
  code = (f"import sys; sys.path.insert(0, {_package_parent()!r}); "
          "from adkcourse.grade.nbgrader import _grade_main; sys.exit(_grade_main(sys.argv[1]))")
  deadline = grading_seconds(time_limit)
  process = subprocess.Popen([sys.executable, "-I", "-B", "-c", code, json.dumps(request)],
                             stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, start_new_session=True)
  try:
    out, err = process.communicate(timeout=deadline)
  except subprocess.TimeoutExpired:
    import signal

    try:
      os.killpg(process.pid, signal.SIGKILL)  # the grader and every process it started
    except (AttributeError, OSError):  # no process groups (Windows)
      process.kill()
    process.communicate()
    return {"error": f"the grader did not finish within {deadline:.0f} s"}
  lines = out.decode("utf-8", "replace").strip().splitlines()
  try:
    answer = json.loads(lines[-1])
  except (IndexError, ValueError):
    from .hygiene import one_line

    tail = err.decode("utf-8", "replace").strip().splitlines()[-3:]
    return {"error": f"the grader stopped (exit status {process.returncode}) without an "
                     f"answer: {one_line(' | '.join(tail), 400) or 'no message'}"}
  return answer if isinstance(answer, dict) else {"error": "the grader's answer is unreadable"}


def _grade_main(request_text: str) -> int:
  """In the grading process (the course's Python, none of the kernel's state): grade one file
  with ``runner.grade_all``, print one JSON line."""
  from .hygiene import one_line
  from .runner import Submission, grade_all
  from .sandbox import SandboxUnavailable, detect

  request = json.loads(request_text)
  fallback = None
  try:
    if request["sandbox"] == "none":
      isolation = detect("none")
    else:
      try:
        isolation = detect("bwrap")
        problem = _outside_the_sandbox()
        if problem:
          isolation.close()
          raise SandboxUnavailable(problem)
      except SandboxUnavailable as error:
        if request["sandbox"] == "bwrap":
          print(json.dumps({"error": f"bubblewrap cannot grade here: {one_line(error, 400)}"}))
          return 0
        fallback = one_line(error, 400)
        isolation = detect("none")
    try:
      started = time.monotonic()
      graded = grade_all(request["exercise"], [Submission(request["student"],
                                                          Path(request["path"]))],
                         jobs=1, time_limit=request["timeout"], memory_mb=request["memory_mb"],
                         progress=False, isolation=isolation, seed=request["seed"])[0]
      described = isolation.describe()
    finally:
      isolation.close()
    print(json.dumps({"report": graded.report.to_dict(), "isolation": described,
                      "isolation_off": graded.isolation_off, "fallback": fallback,
                      "output": graded.output[:OUTPUT_SHOWN], "output_size": graded.output_size,
                      "info": list(graded.info), "regraded": graded.regraded,
                      "seconds": round(time.monotonic() - started, 1)}))
  except Exception as error:  # noqa: BLE001 - an answer in every case
    print(json.dumps({"error": f"the grader failed: {type(error).__name__}: "
                               f"{one_line(error, 400)}"}))
  return 0


def _outside_the_sandbox() -> Optional[str]:
  """Why the sandbox could not import ADK from this Python (its view holds this Python's own
  environment and the course's package, nothing else of the machine), or None."""
  import importlib.util as util

  spec = util.find_spec("google.adk")
  if spec is None or not spec.origin:
    return f"{sys.executable} cannot import google.adk: it is not the course's Python"
  origin = os.path.realpath(spec.origin)
  for prefix in {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}:
    real = os.path.realpath(prefix)
    if origin.startswith(real.rstrip("/") + "/"):
      return None
  return (f"{sys.executable} finds ADK at {origin}, outside its own environment, where a "
          "sandbox does not see it: make the notebooks' kernel the course's Python")


class GradedNotebook:
  """What :func:`grade` returns and shows: the course's report, and how it was graded."""

  def __init__(self, report: Any, lines: list[str]):
    self.report, self.lines = report, lines

  def _repr_html_(self) -> str:
    import html

    notes = "".join(f"<p>{html.escape(line, quote=False)}</p>" for line in self.lines)
    return notes + self.report.to_html()

  def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # noqa: ARG002
    printer.text("\n".join(self.lines + ["", self.report.to_text()]))

  def __repr__(self) -> str:
    return "\n".join(self.lines + ["", self.report.to_text()])


def grade(exercise: str) -> None:
  """The grading cell: grade this notebook as saved, keep the report for the test cells, show
  it. Never raises because of the submission or the grader: a problem is a report at 0 with
  the reason. Shows a display (not a cell result): nbgrader reads a result as points."""
  from .checks import get_exercise
  from .hygiene import one_line
  from .report import Report

  zero = get_exercise(exercise).zero_report
  _REPORTS.pop(exercise, None)
  settings, note = _settings()
  path = _notebook_path(exercise)
  lines = [note] if note else []
  answer: dict = {}
  try:
    if not path.is_file():
      raise ValueError(f"no notebook {path.name} in {path.parent}: save the notebook under its "
                       "assignment's name")
    if path.stat().st_size > MAX_NOTEBOOK:
      raise ValueError(f"{path.name} is larger than {MAX_NOTEBOOK // 2 ** 20} MB")
    notebook = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(notebook, dict):
      raise ValueError(f"{path.name} is not a notebook")
    student = _student()
    with tempfile.TemporaryDirectory(prefix="adkcourse-nbgrader-") as folder:
      copy = Path(folder) / f"{exercise}.ipynb"
      copy.write_text(json.dumps(student_cells(notebook)), encoding="utf-8")
      answer = grade_file(exercise, copy, student=student, seed=settings["seed"],
                          time_limit=settings["timeout"], memory_mb=settings["memory_mb"],
                          sandbox=settings["sandbox"])
    report = (Report.from_dict(answer["report"]) if "report" in answer
              else zero(answer.get("error") or "the grader gave no report"))
  except Exception as error:  # noqa: BLE001 - the cell shows a 0 and why, never a traceback
    report = zero(f"could not be graded: {one_line(error, 400)}")
  _REPORTS[exercise] = report
  seconds = answer.get("seconds")
  lines.insert(0, f"{path.name}, as saved, graded by the course's grader"
                  + (" for nbgrader autograde" if _autograding() else "")
                  + (f" in {seconds:g} s" if type(seconds) in (int, float) else "")
                  + ("; data: the instructor's --seed" if settings["seed"] is not None
                     else "; data: drawn fresh for this grading"))
  if answer.get("fallback"):
    lines.append(f"WARNING: bubblewrap cannot run here ({answer['fallback']}): graded WITHOUT "
                 "isolation, as `python -m adkcourse.grade --sandbox none` does.")
  elif answer.get("isolation_off"):
    lines.append("WARNING: graded WITHOUT isolation (--sandbox none).")
  if answer.get("isolation"):
    lines.append(f"isolation: {one_line(answer['isolation'], 300)}")
  if answer.get("regraded"):
    lines.append("It reached a time limit and was graded again, alone.")
  for info in answer.get("info") or []:
    if isinstance(info, str):
      lines.append(one_line(info, 300))
  if isinstance(answer.get("output"), str) and answer["output"].strip():
    size = answer.get("output_size") or len(answer["output"])
    lines.append(f"What your code printed ({size:,} bytes; the beginning): "
                 f"{one_line(answer['output'], OUTPUT_SHOWN)}")
  _display(GradedNotebook(report, lines))


def _display(value: Any) -> None:
  try:
    from IPython.display import display
  except ImportError:  # outside IPython (a plain script): print it
    print(repr(value))
    return
  display(value)


def earned(exercise: str, check: str, points: float) -> float:
  """One test cell: the points ``check`` earned in the last grading of ``exercise``, as a
  number nbgrader takes for the cell's partial credit (from 0 to ``points``, the cell's
  points). Prints the check's feedback (to stdout: nbgrader gives 0 to a test cell writing to
  stderr)."""
  from .hygiene import one_line

  report = _REPORTS.get(exercise)
  if report is None:
    print(f"{check}: not graded yet: run the grading cell above first (it grades the notebook "
          "as saved)")
    return 0.0
  result = next((r for r in report.results if r.check == check), None)
  if result is None:
    print(f"{check}: the grader has no check of that name: export the notebooks again")
    return 0.0
  value = result.earned
  if result.points != points:  # the exercise changed since the export: stay within the cell
    print(f"(this check is worth {result.points:g} points now, {points:g} in this notebook: "
          "export the notebooks again)")
    value = result.earned / result.points * points if result.points else 0.0
  value = float(min(max(value, 0.0), points))
  print(f"{check}: {value:g} / {points:g}. {one_line(result.feedback, 2000)}")
  return value
