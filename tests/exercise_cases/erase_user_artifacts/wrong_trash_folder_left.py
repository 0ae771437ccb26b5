"""Moves the files into a .trash folder in the user's own folder and empties it: the new folder stays."""

LOSES = ("no_copy_kept",)

import os, shutil
from pathlib import Path


def _count_versions(folder):
  n = 0
  for cur, dirs, _ in os.walk(folder):
    if os.path.basename(cur) == "versions":
      n += sum(1 for d in dirs if d.isdigit())
  return n


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  # moves the files to a .trash folder in the user's folder, empties it, forgets the folder
  erased = 0
  for app in dict.fromkeys(app_names):
    base = Path(artifact_service.root_dir) / "apps" / app / "users" / user_id
    if not base.is_dir():
      continue
    trash = base / ".trash"
    trash.mkdir(exist_ok=True)
    for scope in (base / "artifacts", base / "sessions"):
      erased += _count_versions(scope)
      if scope.exists():
        os.rename(scope, trash / scope.name)
    for entry in os.listdir(trash):
      shutil.rmtree(trash / entry)
  return erased
