"""Erases right, then removes every empty folder of the root: other users' ones too."""

import os
import shutil

LOSES = ("other_users_untouched",)


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in dict.fromkeys(app_names):
    base = os.path.join(artifact_service.root_dir, "apps", app, "users", user_id)
    for scope in ("artifacts", "sessions"):
      for current, folders, _ in os.walk(os.path.join(base, scope)):
        if os.path.basename(current) == "versions":
          erased += sum(1 for f in folders if f.isdigit())
      shutil.rmtree(os.path.join(base, scope), ignore_errors=True)
  for current, folders, files in os.walk(artifact_service.root_dir, topdown=False):
    if current != str(artifact_service.root_dir) and not os.listdir(current):
      os.rmdir(current)
  return erased
