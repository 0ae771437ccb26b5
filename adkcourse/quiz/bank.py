"""Load a question bank (a YAML list of questions) and say precisely what is wrong with it.

One function does the checking for everybody: ``check_file`` is what ``python -m adkcourse.quiz
check`` prints, and ``load_bank`` (used by the notebook widgets) raises ``BankError`` carrying
the very same ``FILE:QUESTION_ID: what is wrong and how to fix it`` lines. Line numbers come
from the YAML node tree, so an instructor can jump straight to the mistake.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Optional, Union

import yaml
from pydantic import ValidationError

import adkcourse
from adkcourse.i18n.findings import shown_path as display_path
from adkcourse.i18n.yamlfile import parse as parse_yaml

from .model import ERROR_PREFIX, FIELD_ORDER, ID_PATTERN, QUESTION_TYPES, Question, describe

REPO_ROOT = Path(adkcourse.__file__).resolve().parent.parent
QUIZZES_DIR = REPO_ROOT / "quizzes"
BANK_SUFFIXES = (".yaml", ".yml")

EXPECTED = {
    "id": "a short unique name like prefix-survival",
    "type": "one of " + ", ".join(QUESTION_TYPES),
    "question": "the question text",
    "explanation": "one or two sentences saying why the right answer is right",
    "options": "a YAML list of option texts, one per line starting with '- '",
    "tolerance": "a number: 0 for an exact answer, or a margin like 0.5",
    "unit": "the unit shown next to the number box, like seconds",
    "feedback": "a mapping from option index to text, like {0: '...', 2: '...'}",
    "shuffle": "true or false (no quotes): false keeps the options in the written order",
}
EXPECTED_ANSWER = {
    "single": ("the index of the right option, a bare whole number counting from 0 "
               "(for a number or a text to type, add type: numeric or type: text)"),
    "multiple": "a list of the right options' indices, like [0, 2]",
    "numeric": "the right number, like 42 or 3.5",
    "text": "the accepted answer (a string) or a list of accepted answers",
}


@dataclass(frozen=True)
class Problem:
  """One thing wrong in a bank, printed as ``FILE:WHERE: message (line N)``."""
  file: str
  where: str
  """The question id, ``#N`` (N-th list item) when it has no usable id, or "" for the file."""
  message: str
  line: Optional[int] = None

  def __str__(self) -> str:
    if not self.where:
      location = f"{self.file}:{self.line}" if self.line else self.file
      return f"{location}: {self.message}"
    suffix = f" (line {self.line})" if self.line else ""
    return f"{self.file}:{self.where}: {self.message}{suffix}"


class BankError(ValueError):
  """A bank that cannot be used; ``problems`` holds every message, one per line in ``str()``."""

  def __init__(self, problems: list[Problem]):
    self.problems = problems
    super().__init__("\n".join(str(p) for p in problems))


@dataclass
class Bank:
  """A validated bank: its name (the file name without .yaml) and its questions, in order."""
  name: str
  path: Path
  questions: list[Question] = field(default_factory=list)

  def __iter__(self) -> Iterator[Question]:
    return iter(self.questions)

  def __len__(self) -> int:
    return len(self.questions)

  def question(self, question_id: str) -> Question:
    for question in self.questions:
      if question.id == question_id:
        return question
    raise KeyError(f"no question {question_id!r} in bank {self.name}: "
                   f"ids are {', '.join(q.id for q in self.questions)}")


# -- YAML with line numbers ---------------------------------------------------------------------

def _parse(text: str, file: str) -> tuple[Any, Optional[yaml.Node], list[Problem]]:
  """The data and its node tree (for line numbers), or a syntax problem."""
  try:
    data, node = parse_yaml(text)
  except yaml.MarkedYAMLError as error:
    mark = error.problem_mark or error.context_mark
    line = mark.line + 1 if mark else None
    what = " ".join(str(part) for part in (error.context, error.problem) if part)
    return None, None, [Problem(file, "", f"YAML syntax error: {what}: {_syntax_hint(what)}",
                                line)]
  except yaml.YAMLError as error:
    return None, None, [Problem(file, "", f"YAML error: {error}")]
  return data, node, []


def _syntax_hint(what: str) -> str:
  if "expected a single document" in what:
    return "keep one YAML document per file (remove the '---' separators)"
  if "mapping values are not allowed" in what:
    return "a text that contains ': ' must be put in quotes"
  if "\\t" in what or "tab" in what:
    return "indent with spaces, not tabs"
  if "found unknown escape character" in what:
    return "inside double quotes write \\\\ for a backslash, or use single quotes"
  return "check the indentation and the quotes on this line and the one before"


def _child(node: yaml.Node, key: Any) -> Optional[yaml.Node]:
  if isinstance(node, yaml.SequenceNode) and isinstance(key, int) and 0 <= key < len(node.value):
    return node.value[key]
  if isinstance(node, yaml.MappingNode):
    for key_node, value_node in node.value:
      if str(getattr(key_node, "value", None)) == str(key):
        return value_node
  return None


def _line(node: Optional[yaml.Node], loc: Iterable[Any] = ()) -> Optional[int]:
  """The line of the deepest node that ``loc`` reaches (1-based)."""
  if node is None:
    return None
  for key in loc:
    child = _child(node, key)
    if child is None:
      break
    node = child
  return node.start_mark.line + 1


def _duplicate_keys(node: yaml.Node) -> list[tuple[str, int, int]]:
  """Keys written twice in one question (YAML silently keeps the last one)."""
  seen: dict[str, int] = {}
  duplicates = []
  if isinstance(node, yaml.MappingNode):
    for key_node, _ in node.value:
      key, line = str(key_node.value), key_node.start_mark.line + 1
      if key in seen:
        duplicates.append((key, seen[key], line))
      seen.setdefault(key, line)
  return duplicates


# -- validating one question --------------------------------------------------------------------

def question_type(raw: dict) -> Union[str, Problem]:
  """The type of a raw question: written in ``type``, or single/multiple from ``answer``."""
  if "type" not in raw:
    return "multiple" if isinstance(raw.get("answer"), list) else "single"
  kind = raw["type"]
  if not isinstance(kind, str) or kind not in QUESTION_TYPES:
    close = difflib.get_close_matches(str(kind), QUESTION_TYPES, n=1)
    hint = f"did you mean {close[0]}? " if close else ""
    what = f'unknown type "{kind}"' if isinstance(kind, str) else f"type is {describe(kind)}"
    return Problem("", "", f"{what}: {hint}use one of "
                   f"{', '.join(QUESTION_TYPES)} (or leave type out for single or multiple "
                   "choice)")
  return kind


def _subject(loc: tuple) -> str:
  if not loc:
    return ""
  head, rest = loc[0], loc[1:]
  if head == "options" and rest:
    return f"option {rest[0]}"
  if head == "feedback" and rest:
    return f"feedback for option {rest[0]}"
  if head == "answer" and rest and isinstance(rest[0], int):
    return f"answer item {rest[0]}"
  return str(head)


def _message(error: dict, kind: str) -> str:
  """A pydantic error as a sentence that says what to write instead."""
  loc, code, value = tuple(error["loc"]), error["type"], error.get("input")
  name = str(loc[0]) if loc else ""
  subject = _subject(loc)
  expected = EXPECTED_ANSWER[kind] if name == "answer" else EXPECTED.get(name, "")
  if code.startswith(ERROR_PREFIX):
    return f"{subject} {error['msg']}".strip()
  if code == "missing":
    return f"missing field '{name}': add '{name}:' with {expected}"
  if code == "extra_forbidden":
    allowed = [f for f in FIELD_ORDER if f in QUESTION_TYPES[kind].model_fields]
    close = difflib.get_close_matches(name, allowed, n=1)
    hint = f"did you mean '{close[0]}'? " if close else ""
    return (f"unknown field '{name}': {hint}a {kind} question has the fields "
            f"{', '.join(allowed)}")
  if loc[-1:] == ("[key]",):
    return (f"{name} has a key written as {describe(value)}, which is not an option index: "
            "write bare numbers counting from 0, like 0: or 2: (no quotes)")
  if code == "too_short":
    if name == "options":
      return "options must list at least 2 choices"
    return f"{name} must list at least one right option, like [0, 2]"
  if code.endswith("_type") or code.endswith("_parsing"):
    if name == "answer" and len(loc) > 1:
      expected = "an option index, a bare whole number counting from 0"
    message = f"{subject} must be {expected}, not {describe(value)}"
    if isinstance(value, str) and value.strip().lstrip("-").replace(".", "", 1).isdigit():
      message += ": remove the quotes"
    return message
  return f"{subject}: {error.get('msg', code)}" if subject else error.get("msg", code)


def validate_question(raw: Any, position: int, file: str,
                      node: Optional[yaml.Node] = None) -> tuple[Optional[Question], list[Problem]]:
  """One list item as a question, or the problems that prevent it (line numbers from ``node``)."""
  where = f"#{position}"
  if not isinstance(raw, dict):
    return None, [Problem(file, where, f"item {position} of the list is {describe(raw)}, not a "
                          "question: each item must be a mapping with id, question, options, "
                          "answer and explanation", _line(node))]
  raw_id = raw.get("id")
  if isinstance(raw_id, str) and ID_PATTERN.match(raw_id):
    where = raw_id
  problems = [Problem(file, where, f"field '{key}' is written twice (lines {first} and {again}): "
                      "keep only one, YAML would silently use the last", again)
              for key, first, again in (_duplicate_keys(node) if node is not None else [])]
  kind = question_type(raw)
  if isinstance(kind, Problem):
    return None, problems + [Problem(file, where, kind.message, _line(node, ["type"]))]
  try:
    question = QUESTION_TYPES[kind].model_validate(raw)
  except ValidationError as error:
    found = [Problem(file, where, _message(item, kind), _line(node, item["loc"]))
             for item in error.errors(include_url=False)]
    return None, problems + sorted(found, key=lambda p: p.line or 0)
  return question, problems  # type: ignore[return-value]


# -- validating a file --------------------------------------------------------------------------

def check_text(text: str, file: str, name: str = "") -> tuple[list[Question], list[Problem]]:
  """Every question of a bank's text and every problem found in it."""
  data, root, problems = _parse(text, file)
  if problems:
    return [], problems
  if data is None:
    return [], [Problem(file, "", "the file is empty: write a YAML list of questions, each "
                        "starting with '- id: ...' (see docs/quizzes.md)")]
  if not isinstance(data, list):
    if isinstance(data, dict) and ("question" in data or "answer" in data):
      message = ("the file holds one question, not a list of questions: put '- ' before its "
                 "first field and indent the other fields by two spaces")
    else:
      message = (f"the file holds {describe(data)}, not a list of questions: write a YAML list, "
                 "each question starting with '- '")
    return [], [Problem(file, "", message, _line(root))]
  if not data:
    return [], [Problem(file, "", "the list of questions is empty: add at least one question")]
  questions: list[Question] = []
  first_seen: dict[str, tuple[int, Optional[int]]] = {}
  for position, raw in enumerate(data, start=1):
    node = _child(root, position - 1) if root is not None else None
    question, found = validate_question(raw, position, file, node)
    problems.extend(found)
    raw_id = raw.get("id") if isinstance(raw, dict) else None
    if isinstance(raw_id, str):
      line = _line(node, ["id"])
      if raw_id in first_seen:
        other, other_line = first_seen[raw_id]
        problems.append(Problem(file, raw_id, f"id '{raw_id}' is used twice (items {other} and "
                                f"{position}, lines {other_line} and {line}): give each question "
                                "its own id, progress is stored under it", line))
      else:
        first_seen[raw_id] = (position, line)
    if question is not None and not found:
      question._bank = name or None
      questions.append(question)
  return questions, problems


def check_file(path: Union[str, Path]) -> tuple[Optional[Bank], list[Problem]]:
  """A bank file: the bank when it is valid, and every problem found."""
  path = Path(path)
  file = display_path(path)
  try:
    text = path.read_text(encoding="utf-8")
  except FileNotFoundError:
    return None, [Problem(file, "", "no such file")]
  except UnicodeDecodeError as error:
    return None, [Problem(file, "", f"the file is not UTF-8 text ({error.reason}): save it as "
                          "UTF-8")]
  questions, problems = check_text(text, file, path.stem)
  if problems:
    return None, problems
  return Bank(path.stem, path, questions), []


def bank_files(paths: Iterable[Union[str, Path]]) -> tuple[list[Path], list[Problem]]:
  """Files named on the command line; folders expand to their .yaml/.yml files."""
  files, problems = [], []
  for item in paths:
    path = Path(item)
    if path.is_dir():
      found = sorted(p for p in path.iterdir() if p.suffix in BANK_SUFFIXES and p.is_file())
      if not found:
        problems.append(Problem(display_path(path), "", "no .yaml question bank in this folder"))
      files.extend(found)
    elif path.exists():
      files.append(path)
    else:
      problems.append(Problem(display_path(path), "", "no such file or folder"))
  return files, problems


def load_bank(path: Union[str, Path]) -> Bank:
  """A validated bank, or ``BankError`` with the same messages as ``check`` prints."""
  bank, problems = check_file(path)
  if problems:
    raise BankError(problems)
  assert bank is not None
  # Translations (translations/<lang>/quizzes/<bank>.yaml) that are current and complete; the
  # others leave their question in English and are reported by `python -m adkcourse.i18n check`.
  from adkcourse.i18n.quizzes import apply_translations
  return apply_translations(bank)


def available_banks() -> list[str]:
  return sorted(p.stem for p in QUIZZES_DIR.glob("*.y*ml")) if QUIZZES_DIR.is_dir() else []


def resolve_bank(bank: Union[str, Path]) -> Path:
  """A lesson name (``"01_sessions_events_state"``) -> ``<repo>/quizzes/<name>.yaml``; a path
  (anything with a slash or a .yaml suffix) is used as it is."""
  text = str(bank)
  if isinstance(bank, Path) or "/" in text or "\\" in text or text.endswith(BANK_SUFFIXES):
    path = Path(bank)
    if not path.exists():
      raise FileNotFoundError(f"no question bank at {path}")
    return path
  for suffix in BANK_SUFFIXES:
    path = QUIZZES_DIR / f"{text}{suffix}"
    if path.exists():
      return path
  names = available_banks()
  close = difflib.get_close_matches(text, names, n=1)
  hint = f" Did you mean {close[0]!r}?" if close else ""
  raise FileNotFoundError(f"no question bank named {text!r} in {QUIZZES_DIR}.{hint} "
                          f"Available: {', '.join(names) or 'none'}")
