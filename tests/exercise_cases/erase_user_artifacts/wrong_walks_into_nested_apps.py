"""Looks for the user under every users/ folder inside a named app's: "cafe/v2" is another app."""

import os
import shutil

LOSES = ("other_apps_untouched",)


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in dict.fromkeys(app_names):
    top = os.path.join(artifact_service.root_dir, "apps", app)
    for current, folders, _ in os.walk(top):
      if os.path.basename(current) != "users":
        continue
      base = os.path.join(current, user_id)
      for scope in ("artifacts", "sessions"):
        for here, names, _ in os.walk(os.path.join(base, scope)):
          if os.path.basename(here) == "versions" and current == os.path.join(top, "users"):
            erased += sum(1 for n in names if n.isdigit())
        shutil.rmtree(os.path.join(base, scope), ignore_errors=True)
      folders[:] = [f for f in folders if os.path.join(current, f) != base]
  return erased
