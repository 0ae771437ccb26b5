"""Returns the number of artifacts (file names) erased, not the number of their versions."""

import os
import shutil

LOSES = ("count_returned",)


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  artifacts = 0
  for app in set(app_names):
    base = os.path.join(artifact_service.root_dir, "apps", app, "users", user_id)
    for scope in ("artifacts", "sessions"):
      top = os.path.join(base, scope)
      artifacts += sum(1 for _, folders, _ in os.walk(top) if "versions" in folders)
      shutil.rmtree(top, ignore_errors=True)
  return artifacts
