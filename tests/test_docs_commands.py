"""The commands the course's pages tell people to type use the course's own Python.

A reader copies a command from a code block. `python -m adkcourse...` typed outside the venv
finds no `adkcourse` and stops with ModuleNotFoundError (issue 27: the instructor guide did
this), so every command in a fenced block starts with `.venv/bin/python`, `.venv\\Scripts\\python`
or another program, never with a bare `python`/`pip`.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([*ROOT.glob("*.md"), *(ROOT / "docs").glob("*.md"), *(ROOT / "labs").rglob("*.md")])
FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
BARE = re.compile(r"^\s*(?:\$ )?(python3?|pip3?)\s(?!-m venv\b)")  # making the venv is the exception


def shell_lines(text: str) -> list[str]:
  """Lines of the page's shell code blocks (untagged or bash/sh/shell/console)."""
  lines = []
  for tag, body in FENCE.findall(text):
    if tag.strip() in ("", "bash", "sh", "shell", "console"):
      lines += body.splitlines()
  return lines


def test_pages_are_found():
  assert len(PAGES) >= 5 and any(p.name == "instructors.md" for p in PAGES)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_command_starts_with_a_bare_python(page):
  bare = [line for line in shell_lines(page.read_text(encoding="utf-8")) if BARE.match(line)]
  assert not bare, f"use .venv/bin/python: {bare}"


def test_the_rule_sees_a_bare_python():
  page = "text\n```bash\npython -m adkcourse.grade x\npython3 -m venv .venv\n.venv/bin/python -m ok\n```\n"
  assert [l for l in shell_lines(page) if BARE.match(l)] == ["python -m adkcourse.grade x"]
