"""A generated class of ``forget_user`` submissions: correct, partial, broken and hostile.

Used by the tests, ``benchmarks/grading.py`` and ``docs/gradebook.ipynb`` so that everything
about the grader can be tried without real students:

    from adkcourse.grade.demo import write_class
    write_class(folder, copies=1)   # one file per kind below; copies=N repeats the class
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REFERENCE = '''
import sqlite3


async def forget_user(service, db_path, app_name, user_id):
    listed = await service.list_sessions(app_name=app_name, user_id=user_id)
    for session in listed.sessions:
        await service.delete_session(app_name=app_name, user_id=user_id,
                                     session_id=session.id)
    connection = sqlite3.connect(db_path)
    connection.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?",
                       (app_name, user_id))
    connection.commit()
    connection.execute("VACUUM")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
'''

API_ONLY = '''
async def forget_user(service, db_path, app_name, user_id):
    listed = await service.list_sessions(app_name=app_name, user_id=user_id)
    for session in listed.sessions:
        await service.delete_session(app_name=app_name, user_id=user_id,
                                     session_id=session.id)
'''

SQL_WITHOUT_APP_FILTER = '''
import sqlite3

async def forget_user(service, db_path, app_name, user_id):
    db = sqlite3.connect(db_path)
    db.execute("DELETE FROM sessions WHERE user_id = ?", (user_id,))
    db.execute("DELETE FROM user_states WHERE user_id = ?", (user_id,))
    db.commit()
'''

HOSTILE = '''
import sqlite3

async def forget_user(service, db_path, app_name, user_id):
    db = sqlite3.connect(db_path)
    for table in ("events", "sessions", "user_states", "app_states"):
        db.execute(f"DELETE FROM {table}")
    db.commit()
'''

SYNC_DEF = '''
def forget_user(service, db_path, app_name, user_id):
    service.list_sessions(app_name=app_name, user_id=user_id)
'''

ALL = "all"  # every check lost
API_ONLY_LOSES = ("user_state_removed", "no_trace_left")

# kind -> (file suffix, cells, checks it loses: () for full marks, ALL for 0)
KINDS: dict[str, tuple[str, list[str], Any]] = {
    "correct_notebook": (".ipynb", [
        "%pip install google-adk\n!ls -la",
        "# my experiments, never run by the grader\nimport asyncio\n"
        "asyncio.run(forget_user(None, 'x.db', 'tutor', 'me'))",
        REFERENCE,
        "await forget_user(service, 'tutor.db', 'tutor', 'ada')\nprint('done')",
    ], ()),
    "correct_script": (".py", [REFERENCE + "\n\nif __name__ == '__main__':\n"
                                           "    raise SystemExit('scratch code: never run')\n"],
                       ()),
    "moved_cells": (".ipynb", ["await forget_user(service, DB, APP, 'ada')", "DB = 'tutor.db'",
                               REFERENCE, "APP = 'tutor'"], ()),
    "api_only": (".ipynb", [API_ONLY], API_ONLY_LOSES),
    "sql_without_app_filter": (".py", [SQL_WITHOUT_APP_FILTER],
                               ("events_removed", "no_trace_left", "other_apps_untouched")),
    # (every app's state gone: the damage is to the other users and apps, whose state it is)
    "hostile_wipes_everyone": (".py", [HOSTILE], ("no_trace_left", "other_users_untouched",
                                                  "other_apps_untouched")),
    "sync_def": (".py", [SYNC_DEF], ALL),
    "does_not_parse": (".py", ["async def forget_user(service, db_path, app_name, user_id)\n"
                               "    pass\n"], ALL),
    "broken_cell_elsewhere": (".ipynb", ["def helper(:\n  pass", REFERENCE], ()),
    "no_function": (".ipynb", ["async def erase(service, db_path, app_name, user_id):\n"
                               "    pass\n"], ALL),
    "raises": (".py", ["async def forget_user(service, db_path, app_name, user_id):\n"
                       "    raise RuntimeError('not finished')\n"], ALL),
    "api_then_raises": (".py", [API_ONLY.replace(
        "session_id=session.id)", "session_id=session.id)\n    raise KeyError('oops')")],
        ALL),  # a call that raises earns nothing, whatever it did before
    "loops_forever": (".py", ["async def forget_user(service, db_path, app_name, user_id):\n"
                              "    while True:\n        pass\n"], ALL),
    "calls_sys_exit": (".py", [API_ONLY + "\n    import sys\n    sys.exit(1)\n"], ALL),
    "prints_megabytes": (".py", [API_ONLY + "\n    for _ in range(50_000):\n"
                                            "        print('x' * 200)\n"], API_ONLY_LOSES),
    "ignores_the_alarm": (".py", ["import signal\n\nasync def forget_user(service, db_path, "
                                  "app_name, user_id):\n"
                                  "    signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
                                  "    while True:\n        pass\n"], ALL),
    "kills_its_process": (".py", ["import os\n\nasync def forget_user(service, db_path, "
                                  "app_name, user_id):\n    os._exit(3)\n"], ALL),
    "eats_memory": (".py", ["async def forget_user(service, db_path, app_name, user_id):\n"
                            "    hog = bytearray(8 * 1024 ** 3)\n"], ALL),
    "imports_the_solution": (".py", ["from solutions.forget_user import forget_user\n"], ALL),
}


@dataclass(frozen=True)
class Expected:
  """What a demo submission must score: full marks, zero, or below full marks with at least
  the checks ``lost`` failed (how much of a partial answer each world leaves depends on the
  worlds, which change with the seed)."""

  kind: str
  lost: tuple[str, ...] | str

  @property
  def full(self) -> bool:
    return self.lost == ()

  @property
  def zero(self) -> bool:
    return self.lost == ALL

  def problem(self, score: float, max_score: float, failed: set[str]) -> str | None:
    """Why a grade does not fit this expectation (None: it fits)."""
    if self.full:
      return None if score == max_score else f"{self.kind}: {score} instead of full marks"
    if self.zero:
      return None if score == 0 else f"{self.kind}: {score} instead of 0"
    if score >= max_score:
      return f"{self.kind}: full marks for a partial answer"
    missing = set(self.lost) - failed
    return f"{self.kind}: kept {sorted(missing)}" if missing else None


def expected(kind: str, exercise: str = "forget_user") -> Expected:
  """The expectation of demo submission ``kind`` (its lost checks checked against the
  exercise's own)."""
  from .checks import get_exercise

  lost = KINDS[kind][2]
  if lost not in ((), ALL):
    unknown = set(lost) - {c.name for c in get_exercise(exercise).checks}
    if unknown:
      raise KeyError(f"no such check in {exercise}: {sorted(unknown)}")
  return Expected(kind, lost)


FAST_KINDS = ("correct_notebook", "api_only", "sql_without_app_filter", "hostile_wipes_everyone",
              "correct_script")


def notebook(cells: list[str]) -> str:
  """A minimal nbformat-4 notebook with these code cells (and a markdown title)."""
  def cell(i: int, source: str, kind: str = "code") -> dict:
    body = {"cell_type": kind, "id": f"c{i}", "metadata": {},
            "source": source.strip("\n").splitlines(keepends=True)}
    if kind == "code":
      body.update(execution_count=None, outputs=[])
    return body

  cells_json = [cell(0, "# Lesson 2 exercise", "markdown")] + [
      cell(i, source) for i, source in enumerate(cells, start=1)]
  return json.dumps({"cells": cells_json, "metadata": {}, "nbformat": 4, "nbformat_minor": 5},
                    indent=1)


def write_submission(folder: Path, student: str, kind: str) -> Path:
  suffix, cells, _ = KINDS[kind]
  path = Path(folder) / f"{student}{suffix}"
  path.write_text(notebook(cells) if suffix == ".ipynb" else "\n\n".join(cells),
                  encoding="utf-8")
  return path


def write_class(folder: Path, kinds: tuple[str, ...] | None = None, copies: int = 1
                ) -> dict[str, Expected]:
  """Write one submission per kind (times ``copies``); return student -> what it must score."""
  folder = Path(folder)
  folder.mkdir(parents=True, exist_ok=True)
  outcomes = {}
  for copy in range(copies):
    for kind in kinds or tuple(KINDS):
      student = kind if copies == 1 else f"{kind}_{copy:03d}"
      write_submission(folder, student, kind)
      outcomes[student] = expected(kind)
  return outcomes
