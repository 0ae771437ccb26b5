"""Rules every committed notebook follows (checked on the files as committed, without running them).

Lessons are read on GitHub with their outputs, so those outputs must be complete, free of
secrets and of this machine's paths, and every lesson must have the course's shape.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted((ROOT / "notebooks").glob("*.ipynb"))
TRANSLATED = sorted((ROOT / "notebooks").glob("*/*.ipynb"))  # generated: notebooks/<lang>/
ALL_NOTEBOOKS = LESSONS + TRANSLATED + sorted((ROOT / "docs").glob("*.ipynb")) + sorted(
    (ROOT / "labs").rglob("*.ipynb"))

MACHINE_PATH = re.compile(r"(/tmp/|/root/|/home/[a-z]|/var/folders/|/work/)")
SECRET = re.compile(r"(AIza[0-9A-Za-z_\-]{20,}|postgres(ql)?(\+\w+)?://[^:@/\s]+:[^*@\s]{3,}@)")


def _cells(path: Path) -> list[dict]:
  return json.loads(path.read_text())["cells"]


def _source(cell: dict) -> str:
  return "".join(cell.get("source", ""))


def test_there_are_lessons():
  assert len(LESSONS) >= 1


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_lesson_is_committed_executed_without_errors(path):
  code = [c for c in _cells(path) if c["cell_type"] == "code" and _source(c).strip()]
  unrun = [i for i, c in enumerate(code) if c.get("execution_count") is None]
  assert not unrun, f"{path.name}: code cells {unrun} have no outputs; run scripts/run_notebooks.py"
  errors = [o.get("ename") for c in code for o in c.get("outputs", []) if o["output_type"] == "error"]
  assert not errors, f"{path.name}: committed with errors {errors}"
  counts = [c["execution_count"] for c in code]
  assert counts == list(range(1, len(code) + 1)), f"{path.name}: not executed top to bottom"


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_machine_paths_or_secrets_in_outputs(path):
  for index, cell in enumerate(_cells(path)):
    outputs = json.dumps(cell.get("outputs", []))
    found = MACHINE_PATH.search(outputs)
    assert not found, f"{path.name} cell {index}: output shows a path of this machine: {found[0]}"
    found = SECRET.search(outputs + _source(cell))
    assert not found, f"{path.name} cell {index}: looks like a key or password"


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=lambda p: str(p.relative_to(ROOT)))
def test_ignored_outputs_say_why(path):
  """nbval only honours the exact line ``# NBVAL_IGNORE_OUTPUT``; the next line is a comment
  giving the reason (``# NBVAL_IGNORE_OUTPUT: reason`` would be silently ignored by nbval)."""
  for index, cell in enumerate(_cells(path)):
    lines = [line.strip() for line in _source(cell).splitlines()]
    for number, line in enumerate(lines):
      if "NBVAL_IGNORE_OUTPUT" not in line or not line.startswith("#"):
        continue
      assert line == "# NBVAL_IGNORE_OUTPUT", (
          f"{path.name} cell {index}: write the marker alone on its line (nbval ignores {line!r})")
      reason = lines[number + 1] if number + 1 < len(lines) else ""
      assert reason.startswith("#") and len(reason.strip("# ")) > 10, (
          f"{path.name} cell {index}: the line after NBVAL_IGNORE_OUTPUT must say why, as a comment")


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.name)
def test_lesson_has_the_course_shape(path):
  cells = _cells(path)
  opening = _source(cells[0]) + _source(cells[1]) if len(cells) > 1 else _source(cells[0])
  assert "you will be able to" in opening.lower(), f"{path.name}: open with the objectives"
  markdown = "\n".join(_source(c) for c in cells if c["cell_type"] == "markdown")
  assert re.search(r"^#+ Key points", markdown, re.MULTILINE), f"{path.name}: no key points"
  assert re.search(r"^#+ I can", markdown, re.MULTILINE), f"{path.name}: no 'I can' list"
  assert re.search(r"<!-- i-can\n- ", markdown.split("I can", 1)[1]), \
      f"{path.name}: the 'I can' items belong in a `<!-- i-can` comment (adkcourse/quiz/checklist.py)"
  code = "\n".join(_source(c) for c in cells if c["cell_type"] == "code")
  assert "show_quiz(" in code, f"{path.name}: no quiz"
  assert "show_checklist(" in code, f"{path.name}: the 'I can' boxes cannot be ticked"
  assert "assert " in code, f"{path.name}: claims must be checked by asserts"
  assert "asyncio.run(" not in code, f"{path.name}: use top-level await in notebooks"
