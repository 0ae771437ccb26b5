"""Returns the number of files removed: each version has a payload and a metadata.json."""

import os
import shutil

LOSES = ("count_returned",)


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  removed = 0
  for app in set(app_names):
    base = os.path.join(artifact_service.root_dir, "apps", app, "users", user_id)
    for scope in ("artifacts", "sessions"):
      top = os.path.join(base, scope)
      removed += sum(len(files) for _, _, files in os.walk(top))
      shutil.rmtree(top, ignore_errors=True)
  return removed
