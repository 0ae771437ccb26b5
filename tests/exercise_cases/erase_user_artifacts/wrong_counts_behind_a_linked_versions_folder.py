"""Counts the versions behind a versions folder that is itself a link, as list_versions would (statement: nothing behind a link above it counts)."""
import os
import shutil
from pathlib import Path


LOSES = ("count_returned",)


def _is_version(entry: Path) -> bool:
  if not entry.is_dir():          # follows a link: a link to a folder counts
    return False
  try:
    int(entry.name)
  except ValueError:
    return False
  return True


def _count(top: Path) -> int:
  """Versions under a real (not linked) folder, never following links."""
  n = 0
  for dirpath, dirnames, filenames in os.walk(top):   # followlinks=False
    d = Path(dirpath)
    for name in list(dirnames):
      if name == "versions":
        vd = d / name
        n += sum(1 for e in vd.iterdir() if _is_version(e))
        dirnames.remove(name)
  return n


def _remove(p: Path) -> None:
  if p.is_symlink() or p.is_file():
    p.unlink()
  elif p.is_dir():
    shutil.rmtree(p)


async def erase_user_artifacts(artifact_service, session_service, user_id: str,
                               app_names: list[str]) -> int:
  root = Path(artifact_service.root_dir)
  total = 0
  for app in dict.fromkeys(app_names):
    base = root / "apps" / app / "users" / user_id
    for sub in ("artifacts", "sessions"):
      p = base / sub
      if p.is_symlink():
        p.unlink()
        continue
      if not p.is_dir():
        continue
      total += _count(p)
      _remove(p)
  return total
