"""Removes each numbered version and then its versions folder only if empty: staging folders stay."""

import os
import shutil

LOSES = ()


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in dict.fromkeys(app_names):
    base = os.path.join(artifact_service.root_dir, "apps", app, "users", user_id)
    for scope in ("artifacts", "sessions"):
      for current, folders, _ in os.walk(os.path.join(base, scope), topdown=False):
        if os.path.basename(current) != "versions":
          continue
        for name in os.listdir(current):
          if name.isdigit():
            shutil.rmtree(os.path.join(current, name))
            erased += 1
        if not os.listdir(current):
          os.rmdir(current)
  return erased
