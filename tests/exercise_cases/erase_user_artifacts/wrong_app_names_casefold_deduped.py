"""De-duplicates app names case-blind: `Cafe_2` and `CAFE_2`, both named, are two apps.

De-duplicates app names case-insensitively, so 'Cafe' and 'cafe' are erased as one app.
"""

import os, shutil
from pathlib import Path

async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  seen = {}
  for a in app_names:
    seen.setdefault(a.casefold(), a)
  total = 0
  for app in seen.values():
    base = Path(artifact_service.root_dir) / "apps" / app / "users" / user_id
    for scope in (base / "artifacts", base / "sessions"):
      for cur, dirs, _ in os.walk(scope):
        if os.path.basename(cur) == "versions":
          total += sum(1 for d in dirs if d.isdigit())
      shutil.rmtree(scope, ignore_errors=True)
  return total
