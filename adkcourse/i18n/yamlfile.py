"""Reading a translation file: its data, the line of each entry, and clear errors.

Why line numbers: a contributor fixing "stale" or "invalid" needs to land on the entry, and the
files are long (one entry per markdown cell).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import yaml


class TranslationFileError(ValueError):
  """A translation file that is not usable YAML; ``line`` is 1-based when known."""

  def __init__(self, message: str, line: Optional[int] = None):
    self.line = line
    super().__init__(message)


def read(path: Path, section: str) -> tuple[dict[str, Any], dict[str, int], dict[str, Any]]:
  """The file's top-level mapping, the entries of ``section`` (by key) and each entry's line.

  Keys are always strings: a cell id such as ``12345678`` or ``1e100000`` would otherwise be
  read as a number, so a non-string key is an error naming the line and the fix (quote it).
  """
  try:
    text = path.read_text(encoding="utf-8")
  except UnicodeDecodeError as error:
    raise TranslationFileError(f"not UTF-8 text ({error.reason}): save the file as UTF-8") from None
  try:
    node = yaml.compose(text, Loader=yaml.SafeLoader)
    data = yaml.safe_load(text)
  except yaml.MarkedYAMLError as error:
    mark = error.problem_mark or error.context_mark
    what = " ".join(str(part) for part in (error.context, error.problem) if part)
    raise TranslationFileError(
        f"YAML syntax error: {what} (a text that spans lines must be a `|` block indented "
        "under its key; a one-line text containing ': ' or starting with a quote or `*` needs "
        "quotes)", mark.line + 1 if mark else None) from None
  if not isinstance(data, dict) or not isinstance(node, yaml.MappingNode):
    raise TranslationFileError(f"the file must be a mapping with a `{section}:` section", 1)
  entries = data.get(section) or {}
  if not isinstance(entries, dict):
    raise TranslationFileError(f"`{section}:` must map ids to entries", _line_of(node, section))
  lines: dict[str, int] = {}
  section_node = next((v for k, v in node.value if k.value == section), None)
  if isinstance(section_node, yaml.MappingNode):
    for key_node, value_node in section_node.value:
      if key_node.tag != "tag:yaml.org,2002:str" and key_node.style is None:
        raise TranslationFileError(
            f"the id {key_node.value} is read as a number: put quotes around it "
            f"('{key_node.value}')", key_node.start_mark.line + 1)
      lines[str(key_node.value)] = key_node.start_mark.line + 1
  return data, lines, {str(k): v for k, v in entries.items()}


def _line_of(node: yaml.MappingNode, key: str) -> Optional[int]:
  for key_node, _ in node.value:
    if key_node.value == key:
      return key_node.start_mark.line + 1
  return None
