"""Counts every folder in versions/, so the staging folder of a save that never finished too."""

import os
import shutil

LOSES = ("count_returned",)


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in set(app_names):
    base = os.path.join(artifact_service.root_dir, "apps", app, "users", user_id)
    for scope in ("artifacts", "sessions"):
      top = os.path.join(base, scope)
      for current, folders, _ in os.walk(top):
        if os.path.basename(current) == "versions":
          erased += len(folders)
      shutil.rmtree(top, ignore_errors=True)
  return erased
