"""What is wrong with a translation, said so that a contributor can fix it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
  from .yamlfile import TranslationFileError

KINDS = ("invalid", "missing", "stale", "unaccepted", "orphan", "outdated", "term")
"""invalid: the file cannot be used as written; missing: no translation yet; stale: made from an
older English text; unaccepted: a translation written or edited since it was last accepted;
orphan: the English cell, question or lesson is gone; outdated: a generated notebook differs
from what ``generate`` writes now."""


@dataclass(frozen=True)
class Finding:
  """One problem: ``FILE:LINE: WHERE: MESSAGE`` when printed."""
  language: str
  file: str
  where: str
  kind: str
  message: str
  line: Optional[int] = None

  def __str__(self) -> str:
    place = f"{self.file}:{self.line}" if self.line else self.file
    where = f" {self.where}:" if self.where else ""
    return f"{place}:{where} [{self.kind}] {self.message}"

  @classmethod
  def invalid(cls, language: str, error: TranslationFileError) -> Finding:
    """A whole file that cannot be used: where and why, from the error."""
    return cls(language, error.file, "", "invalid", error.message, error.line)


def shown_path(path: Path) -> str:
  """A path as a contributor types it: relative to the working directory when it is below it."""
  try:
    return str(path.resolve().relative_to(Path.cwd().resolve()))
  except ValueError:
    return str(path)
