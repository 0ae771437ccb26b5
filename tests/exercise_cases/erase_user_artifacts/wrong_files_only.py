"""Deletes every file but keeps the folders: ADK still lists each artifact and its versions."""

import os

LOSES = ("user_files_erased", "session_files_erased")


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in set(app_names):
    base = os.path.join(artifact_service.root_dir, "apps", app, "users", user_id)
    for scope in ("artifacts", "sessions"):
      for current, folders, files in os.walk(os.path.join(base, scope)):
        if os.path.basename(current) == "versions":
          erased += sum(1 for f in folders if f.isdigit())
        for name in files:
          os.remove(os.path.join(current, name))
  return erased
