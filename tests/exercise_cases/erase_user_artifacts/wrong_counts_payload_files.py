"""Counts the payload files (all but metadata.json) in version folders: a version may hold more or none."""

import os
import re
import shutil

LOSES = ("count_returned",)
VERSION = re.compile(r"(^|/)versions/\d+$")


def count_payloads(folder: str) -> int:
  total = 0
  for current, _folders, files in os.walk(folder):
    if VERSION.search(current.replace(os.sep, "/")):
      total += sum(1 for name in files if name != "metadata.json")
  return total


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in dict.fromkeys(app_names):
    base = os.path.join(artifact_service.root_dir, "apps", app, "users", user_id)
    for scope in ("artifacts", "sessions"):
      erased += count_payloads(os.path.join(base, scope))
      shutil.rmtree(os.path.join(base, scope), ignore_errors=True)
  return erased
