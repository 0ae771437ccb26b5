"""Lists each named app's users folder: an app where nobody has anything has none, and it raises."""

import os
import shutil

LOSES = ("count_returned",)


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in dict.fromkeys(app_names):
    users = os.path.join(artifact_service.root_dir, "apps", app, "users")
    if user_id.split("/")[0] not in os.listdir(users):
      continue
    base = os.path.join(users, user_id)
    for scope in ("artifacts", "sessions"):
      for current, folders, _ in os.walk(os.path.join(base, scope)):
        if os.path.basename(current) == "versions":
          erased += sum(1 for f in folders if f.isdigit())
      shutil.rmtree(os.path.join(base, scope), ignore_errors=True)
  return erased
