"""Walks with followlinks=True, unlinking every file: a link in the user's folder erases another's."""

LOSES = ("other_users_untouched", "other_apps_untouched", "count_returned")

import os, shutil
from pathlib import Path


def _count_versions(folder):
  n = 0
  for cur, dirs, _ in os.walk(folder):
    if os.path.basename(cur) == "versions":
      n += sum(1 for d in dirs if d.isdigit())
  return n


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  # walks following links and unlinks each file it finds: a link in the user's folder to
  # someone else's files would erase theirs
  erased = 0
  for app in dict.fromkeys(app_names):
    base = Path(artifact_service.root_dir) / "apps" / app / "users" / user_id
    for scope in (base / "artifacts", base / "sessions"):
      for cur, dirs, files in os.walk(scope, topdown=False, followlinks=True):
        if os.path.basename(cur) == "versions":
          erased += sum(1 for d in dirs if d.isdigit())
        for f in files:
          os.remove(os.path.join(cur, f))
        for d in dirs:
          p = os.path.join(cur, d)
          if os.path.islink(p):
            os.unlink(p)
          else:
            os.rmdir(p)
      if scope.is_dir():
        os.rmdir(scope)
  return erased
