"""Counts every non-hidden folder in versions/: list_versions counts numbered ones only.

Counts every non-hidden folder in versions/ as a version (not just numbered ones).
"""

import os, shutil
from pathlib import Path

async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  total = 0
  for app in dict.fromkeys(app_names):
    base = Path(artifact_service.root_dir) / "apps" / app / "users" / user_id
    for scope in (base / "artifacts", base / "sessions"):
      for cur, dirs, _ in os.walk(scope):
        if os.path.basename(cur) == "versions":
          total += sum(1 for d in dirs if not d.startswith("."))
      shutil.rmtree(scope, ignore_errors=True)
  return total
