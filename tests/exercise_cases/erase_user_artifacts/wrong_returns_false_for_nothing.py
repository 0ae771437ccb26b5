"""Erases right but returns False when there was nothing: the count is an int, 0, never a bool."""

import os
import shutil

LOSES = ("count_returned",)


def count_versions(folder: str) -> int:
  """The numbered folders in every versions folder under folder (what list_versions counts)."""
  return sum(1 for current, folders, _ in os.walk(folder) if os.path.basename(current) == "versions"
             for name in folders if name.isdigit())


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in dict.fromkeys(app_names):
    base = os.path.join(artifact_service.root_dir, "apps", app, "users", user_id)
    for scope in ("artifacts", "sessions"):
      erased += count_versions(os.path.join(base, scope))
      shutil.rmtree(os.path.join(base, scope), ignore_errors=True)
  return erased or False
