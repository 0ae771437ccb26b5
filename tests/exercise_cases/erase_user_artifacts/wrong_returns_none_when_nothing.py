"""Erases right but returns None when nothing was erased: a user with nothing there gets 0, an int."""

LOSES = ("count_returned",)

import os, shutil
from pathlib import Path


def _count_versions(folder):
  n = 0
  for cur, dirs, _ in os.walk(folder):
    if os.path.basename(cur) == "versions":
      n += sum(1 for d in dirs if d.isdigit())
  return n


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  # returns None when nothing was erased ("nothing to report")
  erased = 0
  for app in dict.fromkeys(app_names):
    base = Path(artifact_service.root_dir) / "apps" / app / "users" / user_id
    for scope in (base / "artifacts", base / "sessions"):
      erased += _count_versions(scope)
      shutil.rmtree(scope, ignore_errors=True)
  return erased or None
