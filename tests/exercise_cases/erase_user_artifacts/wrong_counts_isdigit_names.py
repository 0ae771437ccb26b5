"""Counts a version folder by isdigit(): " 7" and "+9", which int() reads and list_versions counts, are missed (blind round of 3 December)."""

LOSES = ('count_returned',)

import os
import shutil
import tempfile
import unicodedata
from pathlib import Path


def _count(folder: Path) -> int:
  """Versions as list_versions counts them, not following links."""
  n = 0
  for dirpath, dirnames, _ in os.walk(folder):
    if "versions" in dirnames:
      v = Path(dirpath) / "versions"
      if not v.is_symlink():
        for e in v.iterdir():
          if e.is_dir():
            try:
              int(e.name)
            except ValueError:
              continue
            n += 1
      dirnames.remove("versions")
  return n

def _count_digits(folder: Path) -> int:
  n = 0
  for dirpath, dirnames, _ in os.walk(folder):
    if "versions" in dirnames:
      v = Path(dirpath) / "versions"
      if not v.is_symlink():
        n += sum(1 for e in v.iterdir() if e.is_dir() and e.name.isdigit())
      dirnames.remove("versions")
  return n


async def erase_user_artifacts(artifact_service, session_service, user_id: str,
                               app_names: list[str]) -> int:
  """WRONG (count): a version is a folder whose name .isdigit(), not one int() reads:
  '+1', ' 2', '1_0' are missed, a superscript '²' is counted."""
  root = Path(artifact_service.root_dir)
  total = 0
  for app in dict.fromkeys(app_names):
    base = root / "apps" / app / "users" / user_id
    for sub in ("artifacts", "sessions"):
      p = base / sub
      if p.is_symlink():
        p.unlink()
      elif p.is_dir():
        total += _count_digits(p)
        shutil.rmtree(p)
  return total
