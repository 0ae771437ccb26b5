"""Erases right, then removes the folders left empty up to apps/APP: the app's users/ folder too."""

import os
import shutil

LOSES = ("other_users_untouched",)


def count_versions(folder: str) -> int:
  """The numbered folders in every versions folder under folder (what list_versions counts)."""
  return sum(1 for current, folders, _ in os.walk(folder) if os.path.basename(current) == "versions"
             for name in folders if name.isdigit())


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in dict.fromkeys(app_names):
    app_folder = os.path.join(artifact_service.root_dir, "apps", app)
    base = os.path.join(app_folder, "users", user_id)
    for scope in ("artifacts", "sessions"):
      erased += count_versions(os.path.join(base, scope))
      shutil.rmtree(os.path.join(base, scope), ignore_errors=True)
    current = base
    while current != app_folder:  # apps/APP itself stays
      try:
        os.rmdir(current)
      except OSError:
        break
      current = os.path.dirname(current)
  return erased
