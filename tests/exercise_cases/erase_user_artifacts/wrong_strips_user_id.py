"""Strips spaces around the id: " ana " and "ana" are two users, and the wrong one is erased."""

import os
import shutil

LOSES = ("other_users_untouched", "user_files_erased")


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  user_id = user_id.strip()
  erased = 0
  for app in set(app_names):
    base = os.path.join(artifact_service.root_dir, "apps", app.strip(), "users", user_id)
    for scope in ("artifacts", "sessions"):
      for current, folders, _ in os.walk(os.path.join(base, scope)):
        if os.path.basename(current) == "versions":
          erased += sum(1 for f in folders if f.isdigit())
      shutil.rmtree(os.path.join(base, scope), ignore_errors=True)
  return erased
