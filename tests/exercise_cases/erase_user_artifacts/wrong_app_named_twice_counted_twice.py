"""Counts each name in app_names before erasing: an app named twice is counted twice."""

import os
import shutil

LOSES = ("count_returned",)


def versions(top):
  return sum(sum(1 for f in folders if f.isdigit()) for current, folders, _ in os.walk(top)
             if os.path.basename(current) == "versions")


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  bases = [os.path.join(artifact_service.root_dir, "apps", app, "users", user_id)
           for app in app_names]
  erased = sum(versions(os.path.join(b, s)) for b in bases for s in ("artifacts", "sessions"))
  for base in bases:
    for scope in ("artifacts", "sessions"):
      shutil.rmtree(os.path.join(base, scope), ignore_errors=True)
  return erased
