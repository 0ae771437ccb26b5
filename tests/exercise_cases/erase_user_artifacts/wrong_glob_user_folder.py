"""Finds the user's folder with glob: * ? or [ in the id match other users (or miss itself)."""

import glob
import os
import shutil

LOSES = ("other_users_untouched",)


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in set(app_names):
    pattern = os.path.join(str(artifact_service.root_dir), "apps", app, "users", user_id)
    for base in glob.glob(pattern):
      for scope in ("artifacts", "sessions"):
        for current, folders, _ in os.walk(os.path.join(base, scope)):
          if os.path.basename(current) == "versions":
            erased += sum(1 for f in folders if f.isdigit())
        shutil.rmtree(os.path.join(base, scope), ignore_errors=True)
  return erased
