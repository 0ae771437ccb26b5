"""Turn the fenced ```quiz blocks of a Markdown lesson into a question bank.

The source lessons write each question as a fenced block whose info string is ``quiz`` and whose
body is one YAML question (``question``, ``options``, ``answer``, ``explanation``). Banks need a
stable ``id`` per question; extraction makes it from the nearest heading above the block
(``## Quel service choisir ?`` -> ``quel-service-choisir``), adding ``-2``, ``-3``... when one
section holds several blocks. A block that already has an ``id`` keeps it.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

import yaml

from .bank import Problem, _child, _parse, display_path, validate_question
from .model import FIELD_ORDER

FENCE = re.compile(r"^ {0,3}(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n]*)$")
HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+(?P<title>.*?)(?:[ \t]+#+)?[ \t]*$")
MAX_SLUG = 56


@dataclass(frozen=True)
class QuizBlock:
  """One fenced quiz block: its YAML text, the line where that text starts, its heading."""
  text: str
  line: int
  heading: str


def slugify(text: str) -> str:
  """``"Ce qu'il y a dans le fichier"`` -> ``"ce-qu-il-y-a-dans-le-fichier"`` (ASCII, lowercase)."""
  text = re.sub(r"`([^`]*)`", r"\1", text)
  ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
  slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
  return slug[:MAX_SLUG].rstrip("-")


def find_blocks(markdown: str) -> list[QuizBlock]:
  """Every ```quiz (or ~~~quiz) block, with the nearest ATX heading above it. Headings inside
  other code blocks (``# comments`` in Python) and YAML front matter are not headings."""
  lines = markdown.splitlines()
  blocks: list[QuizBlock] = []
  heading = ""
  index = 0
  if lines and lines[0].strip() == "---":  # front matter
    for end in range(1, len(lines)):
      if lines[end].strip() in ("---", "..."):
        index = end + 1
        break
  while index < len(lines):
    line = lines[index]
    opening = FENCE.match(line)
    if opening is None:
      title = HEADING.match(line)
      if title:
        heading = title.group("title")
      index += 1
      continue
    fence = opening.group("fence")
    is_quiz = (opening.group("info").split() or [""])[0].lower() == "quiz"
    body: list[str] = []
    index += 1
    start = index + 1  # 1-based number of the first body line
    while index < len(lines):
      closing = FENCE.match(lines[index])
      if (closing and closing.group("fence")[0] == fence[0]
          and len(closing.group("fence")) >= len(fence) and not closing.group("info").strip()):
        break
      body.append(lines[index])
      index += 1
    index += 1
    if is_quiz:
      blocks.append(QuizBlock("\n".join(body) + "\n", start, heading))
  return blocks


def _ordered(question: dict) -> dict:
  order = {name: position for position, name in enumerate(FIELD_ORDER)}
  return dict(sorted(question.items(), key=lambda item: order.get(str(item[0]), len(order))))


def extract(markdown: str, file: str = "lesson.md",
            fallback_id: str = "quiz") -> tuple[list[dict], list[Problem]]:
  """The questions of a lesson's quiz blocks (each with an id), and the problems found in them;
  problem line numbers point into the Markdown file."""
  questions: list[dict] = []
  problems: list[Problem] = []
  used: set[str] = set()

  def new_id(base: str) -> str:
    base = base or fallback_id
    candidate, number = base, 2
    while candidate in used:
      candidate, number = f"{base}-{number}", number + 1
    return candidate

  for block in find_blocks(markdown):
    data, root, syntax = _parse(block.text, file)
    if syntax:
      problems.extend(dataclasses.replace(p, line=(p.line or 1) + block.line - 1) for p in syntax)
      continue
    items = data if isinstance(data, list) else [data]
    for offset, raw in enumerate(items):
      node = _child(root, offset) if isinstance(data, list) else root
      if isinstance(raw, dict):
        raw = dict(raw)
        if not isinstance(raw.get("id"), str):
          raw["id"] = new_id(slugify(block.heading))
        used.add(raw["id"])
        raw = _ordered(raw)
      _, found = validate_question(raw, len(questions) + 1, file, node)
      problems.extend(dataclasses.replace(p, line=(p.line or 1) + block.line - 1) for p in found)
      questions.append(raw)
  return questions, problems


class _BankDumper(yaml.SafeDumper):
  """Block style, lists indented under their key, long texts on one line (never folded),
  multi-line texts as literal ``|`` blocks: the output reads like a hand-written bank."""

  def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:  # noqa: ARG002
    super().increase_indent(flow, False)


def _represent_str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
  style = "|" if "\n" in value.strip() else None
  return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BankDumper.add_representer(str, _represent_str)


def to_yaml(questions: list[Any], source: str = "") -> str:
  """A bank file's text; a header comment says where it came from."""
  header = ""
  if source:
    header = (f"# Question bank extracted from {source} by `python -m adkcourse.quiz extract`.\n"
              "# Check it with `python -m adkcourse.quiz check`.\n")
  body = yaml.dump(questions, Dumper=_BankDumper, sort_keys=False, allow_unicode=True,
                   width=1_000_000, default_flow_style=False, indent=2)
  return header + body


def extract_file(path: Union[str, Path]) -> tuple[str, list[Problem], int]:
  """(bank YAML, problems, number of questions) for a Markdown lesson file."""
  path = Path(path)
  questions, problems = extract(path.read_text(encoding="utf-8"), display_path(path),
                                slugify(path.stem) or "quiz")
  return to_yaml(questions, path.name), problems, len(questions)


def no_blocks_problem(path: Union[str, Path]) -> Optional[Problem]:
  return Problem(display_path(Path(path)), "", "no ```quiz block found: write each question in a "
                 "fenced block whose first line is ```quiz")
