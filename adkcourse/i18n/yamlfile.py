"""Reading a translation file: its data, the line of each entry, and clear errors.

Why line numbers: a contributor fixing "stale" or "invalid" needs to land on the entry, and the
files are long (one entry per markdown cell).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import yaml

from .findings import shown_path


class TranslationFileError(ValueError):
  """A file that cannot be used as written: ``message`` says why, ``file`` (as shown to the
  contributor) and ``line`` (1-based) say where, when known. ``str()`` starts with the place."""

  def __init__(self, message: str, line: Optional[int] = None, file: str = ""):
    self.message, self.line, self.file = message, line, file
    super().__init__(message)

  def __str__(self) -> str:
    place = f"{self.file}:{self.line}" if self.line else self.file
    return f"{place}: {self.message}" if self.file else self.message


def parse(text: str) -> tuple[Any, Optional[yaml.Node]]:
  """The data of a one-document YAML text and its node tree (for line numbers), parsed once.

  Raises what PyYAML raises (``yaml.YAMLError``); each caller words the error for its reader."""
  loader = yaml.SafeLoader(text)
  try:
    node = loader.get_single_node()
    return (loader.construct_document(node) if node is not None else None), node
  finally:
    loader.dispose()


def read(path: Path, section: str, expected: Optional[dict[str, str]] = None
         ) -> tuple[dict[str, Any], dict[str, int], dict[str, Any]]:
  """The file's top-level mapping, the entries of ``section`` (by key) and each entry's line.

  Keys are always strings: a cell id such as ``12345678`` or ``1e100000`` would otherwise be
  read as a number, so a non-string key is an error naming the line and the fix (quote it). A
  key written twice is an error too (YAML would silently keep the last one, and a translator's
  pasted update could be the one lost). ``expected`` are top-level values the file must hold
  (``language: fr``): a file copied into the wrong language's folder is refused.
  Every problem is a ``TranslationFileError`` naming the file, never another exception.
  """
  try:
    return _read(path, section, expected or {})
  except TranslationFileError as error:
    error.file = shown_path(path)
    raise


def _read(path: Path, section: str, expected: dict[str, str]
          ) -> tuple[dict[str, Any], dict[str, int], dict[str, Any]]:
  try:
    text = path.read_text(encoding="utf-8")
  except UnicodeDecodeError as error:
    raise TranslationFileError(f"not UTF-8 text ({error.reason}): save the file as UTF-8") from None
  except OSError as error:
    raise TranslationFileError(f"cannot be read: {error.strerror}") from None
  try:
    data, node = parse(text)
  except yaml.MarkedYAMLError as error:
    mark = error.context_mark if error.context_mark is not None and error.problem_mark is not None \
        and "while scanning a quoted scalar" in str(error.context) else (
            error.problem_mark or error.context_mark)
    what = " ".join(str(part) for part in (error.context, error.problem) if part)
    raise TranslationFileError(
        f"YAML syntax error: {what} (a text that spans lines must be a `|` block indented "
        "under its key; a one-line text containing ': ' or starting with a quote or `*` needs "
        "quotes)", mark.line + 1 if mark else None) from None
  except yaml.YAMLError as error:  # e.g. a control character (ReaderError has no mark)
    position = getattr(error, "position", None)
    line = text.count("\n", 0, position) + 1 if isinstance(position, int) else None
    raise TranslationFileError(f"not readable as YAML: {error}", line) from None
  except RecursionError:
    raise TranslationFileError("nested too deeply to read: an entry is a few plain keys") from None
  if not isinstance(data, dict) or not isinstance(node, yaml.MappingNode):
    raise TranslationFileError(f"the file must be a mapping with a `{section}:` section", 1)
  _no_duplicate_keys(node)
  for key, value in expected.items():
    if data.get(key) != value:
      raise TranslationFileError(
          f"`{key}:` is {data.get(key)!r} but this file's place says {value!r}: a file copied "
          "from another language or lesson? Keep each file in its own folder",
          _line_of(node, key) or 1)
  entries = data.get(section) or {}
  if not isinstance(entries, dict):
    raise TranslationFileError(f"`{section}:` must map ids to entries", _line_of(node, section))
  lines: dict[str, int] = {}
  section_node = next((v for k, v in node.value if k.value == section), None)
  if isinstance(section_node, yaml.MappingNode):
    for key_node, value_node in section_node.value:
      if key_node.tag != "tag:yaml.org,2002:str" and key_node.style is None:
        raise TranslationFileError(
            f"the id {key_node.value} is not read as text by YAML: put quotes around it "
            f"('{key_node.value}')", key_node.start_mark.line + 1)
      lines[str(key_node.value)] = key_node.start_mark.line + 1
  return data, lines, {str(k): v for k, v in entries.items()}


def _no_duplicate_keys(node: yaml.Node) -> None:
  """Refuse a mapping (at any depth) that holds the same key twice, naming both lines."""
  stack = [node]
  while stack:
    current = stack.pop()
    if isinstance(current, yaml.MappingNode):
      seen: dict[Any, int] = {}
      for key_node, value_node in current.value:
        key = key_node.value if isinstance(key_node, yaml.ScalarNode) else id(key_node)
        line = key_node.start_mark.line + 1
        if key in seen:
          raise TranslationFileError(
              f"`{key}` is written twice (lines {seen[key]} and {line}): YAML would keep only "
              "the last one; keep one entry", line)
        seen[key] = line
        stack.append(value_node)
    elif isinstance(current, yaml.SequenceNode):
      stack.extend(current.value)


def _line_of(node: yaml.MappingNode, key: str) -> Optional[int]:
  for key_node, _ in node.value:
    if key_node.value == key:
      return key_node.start_mark.line + 1
  return None
