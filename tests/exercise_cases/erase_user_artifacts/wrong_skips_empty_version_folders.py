"""Wrong: counts only version folders that hold something, so an empty numbered version folder (which list_versions counts) is not counted."""
import os
import shutil
from pathlib import Path


LOSES = ("count_returned",)


def _is_version(entry: Path) -> bool:
  if not entry.is_dir():          # follows a link: a link to a folder counts
    return False
  if not any(entry.iterdir()):
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
    if d.name == "versions" and not d.is_symlink():
      n += sum(1 for name in dirnames + filenames if _is_version(d / name))
      dirnames[:] = []
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
