"""Counts with pathlib's rglob and is_dir(), which follow a versions folder that is itself a link: it counts another user's versions (nothing behind a link above them counts)."""

import os
from pathlib import Path


LOSES = ("count_returned",)


def count_versions(folder: Path) -> int:
  if not folder.is_dir():
    return 0
  count = 0
  for versions in [folder] + list(folder.rglob("*")):
    if versions.name == "versions" and versions.is_dir():
      for child in versions.iterdir():
        if child.is_dir() and is_number(child.name):
          count += 1
  return count


def is_number(name: str) -> bool:
  try:
    int(name)
  except ValueError:
    return False
  return True


def remove_inside(folder: Path) -> None:
  if not folder.is_dir():
    return
  for current, folders, files in os.walk(folder, topdown=False):
    for name in files:
      os.unlink(os.path.join(current, name))
    for name in folders:  # a link to a folder is named here too: it goes as a link
      path = os.path.join(current, name)
      os.unlink(path) if os.path.islink(path) else os.rmdir(path)


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  seen = []
  for app in app_names:
    if app in seen:
      continue
    seen.append(app)
    base = Path(artifact_service.root_dir).joinpath("apps", app, "users", user_id)
    for folder in (base / "artifacts", base / "sessions"):
      if folder.is_symlink():  # the folder itself a link: it goes, what it points to stays
        folder.unlink()
        continue
      erased += count_versions(folder)
      remove_inside(folder)
  return int(erased)
