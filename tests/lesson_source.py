"""A lesson notebook as committed, for the per-lesson tests (tests/test_lessonN.py): its cells and
its code, read from the file without running it."""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def cells(notebook: Path) -> list[dict]:
  return json.loads(notebook.read_text(encoding="utf-8"))["cells"]


def code(notebook: Path) -> str:
  """Every code cell's source, joined: what the lesson shows a reader to run."""
  return "\n".join("".join(c["source"]) for c in cells(notebook) if c["cell_type"] == "code")
