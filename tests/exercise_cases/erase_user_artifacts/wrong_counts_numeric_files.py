"""Counts numbered files and links to files in versions/: list_versions counts folders only.

Counts every entry with a numeric name in versions/, files and links included.
"""

import os, shutil
from pathlib import Path

async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  total = 0
  for app in dict.fromkeys(app_names):
    base = Path(artifact_service.root_dir) / "apps" / app / "users" / user_id
    for scope in (base / "artifacts", base / "sessions"):
      for cur, dirs, files in os.walk(scope):
        if os.path.basename(cur) == "versions":
          total += sum(1 for d in dirs + files if d.isdigit())
      shutil.rmtree(scope, ignore_errors=True)
  return total
