"""Skips a numbered link to a folder in versions/: list_versions counts it as a version.

Counts version folders with is_dir(follow_symlinks=False): a linked version folder is not counted.
"""

import os, shutil
from pathlib import Path

def _count(folder):
  n = 0
  for cur, dirs, _ in os.walk(folder):
    if os.path.basename(cur) == "versions":
      for e in os.scandir(cur):
        if e.is_dir(follow_symlinks=False) and e.name.isdigit():
          n += 1
  return n

async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  total = 0
  for app in dict.fromkeys(app_names):
    base = Path(artifact_service.root_dir) / "apps" / app / "users" / user_id
    for scope in (base / "artifacts", base / "sessions"):
      total += _count(scope)
      shutil.rmtree(scope, ignore_errors=True)
  return total
