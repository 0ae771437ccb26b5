"""Moves the user's folders into a trash folder under the root instead of deleting them."""

import os
import shutil

LOSES = ("no_copy_kept",)


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  trash = os.path.join(artifact_service.root_dir, ".trash")
  for number, app in enumerate(dict.fromkeys(app_names)):
    base = os.path.join(artifact_service.root_dir, "apps", app, "users", user_id)
    for scope in ("artifacts", "sessions"):
      top = os.path.join(base, scope)
      for current, folders, _ in os.walk(top):
        if os.path.basename(current) == "versions":
          erased += sum(1 for f in folders if f.isdigit())
      if os.path.isdir(top):
        os.makedirs(trash, exist_ok=True)
        shutil.move(top, os.path.join(trash, f"{number}-{scope}"))
  return erased
