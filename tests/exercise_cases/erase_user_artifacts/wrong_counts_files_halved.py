"""Counts files and halves them (payload + metadata.json): a version may hold more or fewer files."""

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
  # a version is a payload + metadata.json: two files
  erased = 0
  for app in dict.fromkeys(app_names):
    base = Path(artifact_service.root_dir) / "apps" / app / "users" / user_id
    for scope in (base / "artifacts", base / "sessions"):
      files = sum(len(f) for _, _, f in os.walk(scope))
      erased += files // 2
      shutil.rmtree(scope, ignore_errors=True)
  return erased
