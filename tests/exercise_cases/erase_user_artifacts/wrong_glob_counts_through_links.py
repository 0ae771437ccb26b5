"""Counts versions with a recursive glob, which follows links: what a link points to is counted."""

import glob
import os
import shutil

LOSES = ("count_returned",)


def count_versions(folder: str) -> int:
  pattern = os.path.join(glob.escape(folder), "**", "versions", "*")
  return sum(1 for path in glob.glob(pattern, recursive=True)
             if os.path.basename(path).isdigit() and os.path.isdir(path))


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in dict.fromkeys(app_names):
    base = os.path.join(artifact_service.root_dir, "apps", app, "users", user_id)
    for scope in ("artifacts", "sessions"):
      erased += count_versions(os.path.join(base, scope))
      shutil.rmtree(os.path.join(base, scope), ignore_errors=True)
  return erased
