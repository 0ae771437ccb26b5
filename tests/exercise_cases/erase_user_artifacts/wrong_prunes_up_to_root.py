"""Erases right, then removes every folder left empty up to the root: an app's users/ folder goes."""

LOSES = ("other_users_untouched",)

import os, shutil
from pathlib import Path


def _count_versions(folder):
  n = 0
  for cur, dirs, _ in os.walk(folder):
    if os.path.basename(cur) == "versions":
      n += sum(1 for d in dirs if d.isdigit())
  return n


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  # erases, then tidies: removes every folder left empty on the way up to the root
  erased = 0
  root = Path(artifact_service.root_dir)
  for app in dict.fromkeys(app_names):
    base = root / "apps" / app / "users" / user_id
    for scope in (base / "artifacts", base / "sessions"):
      erased += _count_versions(scope)
      shutil.rmtree(scope, ignore_errors=True)
    cur = base
    while cur != root and cur.is_relative_to(root):
      try:
        cur.rmdir()
      except OSError:
        break
      cur = cur.parent
  return erased
