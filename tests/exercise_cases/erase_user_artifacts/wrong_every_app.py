"""Erases the user in every app of the artifact folder, not only in the apps named."""

import os
import shutil

LOSES = ("other_apps_untouched",)


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  apps = os.path.join(artifact_service.root_dir, "apps")
  for current, folders, _ in os.walk(apps):
    if os.path.basename(current) != "users":
      continue
    base = os.path.join(current, user_id)
    for scope in ("artifacts", "sessions"):
      top = os.path.join(base, scope)
      if os.path.relpath(current, apps).rsplit(os.sep, 1)[0] in app_names:
        for here, names, _ in os.walk(top):
          if os.path.basename(here) == "versions":
            erased += sum(1 for n in names if n.isdigit())
      shutil.rmtree(top, ignore_errors=True)
  return erased
