"""Matches user folders case-blind (casefold): ADA and Ada are other users."""

import os
import shutil

LOSES = ("other_users_untouched",)


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in set(app_names):
    users = os.path.join(artifact_service.root_dir, "apps", app, "users")
    if not os.path.isdir(users):
      continue
    wanted = user_id.split("/")
    for name in os.listdir(users):
      if name.casefold() != wanted[0].casefold():
        continue
      base = os.path.join(users, name, *wanted[1:])
      for scope in ("artifacts", "sessions"):
        for current, folders, _ in os.walk(os.path.join(base, scope)):
          if os.path.basename(current) == "versions":
            erased += sum(1 for f in folders if f.isdigit())
        shutil.rmtree(os.path.join(base, scope), ignore_errors=True)
  return erased
