"""Walks and rmtree()s the user's artifacts/ even when it is itself a link: the link stays and what is behind it is counted (blind round of 3 December)."""

LOSES = ('user_files_erased', 'count_returned')

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

async def erase_user_artifacts(artifact_service, session_service, user_id: str,
                               app_names: list[str]) -> int:
  """WRONG: shutil.rmtree(..., ignore_errors=True) on artifacts/ and sessions/ without
  checking for links: when one of them is a symbolic link rmtree refuses and the error is
  swallowed, so the link stays (and what is behind it is counted)."""
  root = Path(artifact_service.root_dir)
  total = 0
  for app in dict.fromkeys(app_names):
    base = root / "apps" / app / "users" / user_id
    for sub in ("artifacts", "sessions"):
      p = base / sub
      if p.exists():
        for dirpath, dirnames, _ in os.walk(p):
          if "versions" in dirnames:
            v = Path(dirpath) / "versions"
            for e in v.iterdir():
              if e.is_dir():
                try:
                  int(e.name); total += 1
                except ValueError:
                  pass
            dirnames.remove("versions")
        shutil.rmtree(p, ignore_errors=True)
  return total
