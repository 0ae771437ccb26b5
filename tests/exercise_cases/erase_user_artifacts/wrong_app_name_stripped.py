"""Strips each app name: ` cafe_2 ` is another app than `cafe_2`, whose files it erases instead.

Normalises each app name (app.strip()) before building its folder.
"""

import os, shutil, unicodedata
from pathlib import Path

async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  total = 0
  for app in dict.fromkeys(app.strip() for app in app_names):
    base = Path(artifact_service.root_dir) / "apps" / app / "users" / user_id
    for scope in (base / "artifacts", base / "sessions"):
      for cur, dirs, _ in os.walk(scope):
        if os.path.basename(cur) == "versions":
          total += sum(1 for d in dirs if d.isdigit())
      shutil.rmtree(scope, ignore_errors=True)
  return total
