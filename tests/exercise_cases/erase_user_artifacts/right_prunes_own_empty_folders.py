"""Erases both folders, then removes the user's folder and the nobody's folders above it if empty."""

import os, shutil
from pathlib import Path


def _count(folder):
  n = 0
  for cur, dirs, _ in os.walk(folder):
    if os.path.basename(cur) == "versions":
      n += sum(1 for d in dirs if _is_int(d))
  return n


def _is_int(name):
  try:
    return int(name) is not None
  except ValueError:
    return False


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  # right: erase artifacts/ and sessions/, then remove the user's folder and the nobody's
  # folders above it if they are empty now (contract 4)
  erased = 0
  root = Path(artifact_service.root_dir)
  for app in dict.fromkeys(app_names):
    users = root / "apps" / app / "users"
    base = users / user_id
    for scope in (base / "artifacts", base / "sessions"):
      if scope.is_symlink():
        scope.unlink()
        continue
      erased += _count(scope)
      shutil.rmtree(scope, ignore_errors=True)
    cur = base
    while cur != users and base.is_relative_to(users):
      if cur != base and ((cur / "artifacts").exists() or (cur / "sessions").exists()):
        break  # someone else's folder (team for team/ana)
      try:
        cur.rmdir()
      except OSError:
        break
      cur = cur.parent
  return erased
