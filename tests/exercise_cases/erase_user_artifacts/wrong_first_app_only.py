"""Erases the user in the first app named only, as if app_names held one app."""

import os
import shutil

LOSES = ("user_files_erased", "count_returned")


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  base = os.path.join(artifact_service.root_dir, "apps", app_names[0], "users", user_id)
  for scope in ("artifacts", "sessions"):
    for current, folders, _ in os.walk(os.path.join(base, scope)):
      if os.path.basename(current) == "versions":
        erased += sum(1 for f in folders if f.isdigit())
    shutil.rmtree(os.path.join(base, scope), ignore_errors=True)
  return erased
