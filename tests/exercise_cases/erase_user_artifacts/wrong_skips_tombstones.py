"""Counts only versions that load: a rewind's tombstone loads as None, yet is a version."""

import os
import shutil
from pathlib import Path

LOSES = ("count_returned",)


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in dict.fromkeys(app_names):
    base = Path(artifact_service.root_dir, "apps", app, "users", user_id)
    for scope in ("artifacts", "sessions"):
      for current, folders, _ in os.walk(base / scope):
        if os.path.basename(current) != "versions":
          continue
        for version in folders:
          if not version.isdigit():
            continue
          folder = Path(current, version)
          payload = folder / folder.parent.parent.name
          if payload.stat().st_size or not (folder / "metadata.json").read_text().count(
              "application/octet-stream"):
            erased += 1
      shutil.rmtree(base / scope, ignore_errors=True)
  return erased
