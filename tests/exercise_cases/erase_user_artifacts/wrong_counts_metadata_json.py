"""Counts metadata.json files: a staging folder that got that far holds one too, and is no version."""

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
  # counts metadata.json files: one per version... and one in a staging folder that got that far
  erased = 0
  for app in dict.fromkeys(app_names):
    base = Path(artifact_service.root_dir) / "apps" / app / "users" / user_id
    for scope in (base / "artifacts", base / "sessions"):
      for cur, dirs, files in os.walk(scope):
        erased += files.count("metadata.json")
      shutil.rmtree(scope, ignore_errors=True)
  return erased
