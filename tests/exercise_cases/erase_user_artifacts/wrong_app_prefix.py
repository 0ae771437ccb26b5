"""Matches app folders by prefix (startswith): cafe_2_beta is another app than cafe_2."""

import os
import shutil

LOSES = ("other_apps_untouched",)


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  apps = os.path.join(artifact_service.root_dir, "apps")
  for app in sorted(os.listdir(apps)):
    if not any(app.startswith(name) for name in app_names):
      continue
    base = os.path.join(apps, app, "users", user_id)
    for scope in ("artifacts", "sessions"):
      top = os.path.join(base, scope)
      if app in app_names:
        for here, names, _ in os.walk(top):
          if os.path.basename(here) == "versions":
            erased += sum(1 for n in names if n.isdigit())
      shutil.rmtree(top, ignore_errors=True)
  return erased
