"""Copies the user's folders to /tmp with the cp command before erasing them: a copy is kept."""

import os
import shutil
import subprocess

LOSES = ("no_copy_kept",)
BACKUP = "/tmp/adkcourse-case-leftovers-cp"  # the last copy only (a test leaves one behind)


def count_versions(folder: str) -> int:
  """The numbered folders in every versions folder under folder (what list_versions counts)."""
  return sum(1 for current, folders, _ in os.walk(folder) if os.path.basename(current) == "versions"
             for name in folders if name.isdigit())


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in dict.fromkeys(app_names):
    base = os.path.join(artifact_service.root_dir, "apps", app, "users", user_id)
    if os.path.isdir(base):
      shutil.rmtree(BACKUP, ignore_errors=True)
      subprocess.run(["cp", "-R", base, BACKUP], check=False, capture_output=True)
    for scope in ("artifacts", "sessions"):
      erased += count_versions(os.path.join(base, scope))
      shutil.rmtree(os.path.join(base, scope), ignore_errors=True)
  return erased
