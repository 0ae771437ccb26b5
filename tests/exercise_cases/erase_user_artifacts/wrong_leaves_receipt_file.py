"""Erases right, then leaves an ERASED.txt receipt in the user's folder: a file the world never had."""

import os
import shutil

LOSES = ("no_copy_kept",)


def count_versions(folder: str) -> int:
  """The numbered folders in every versions folder under folder (what list_versions counts)."""
  return sum(1 for current, folders, _ in os.walk(folder) if os.path.basename(current) == "versions"
             for name in folders if name.isdigit())


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in dict.fromkeys(app_names):
    base = os.path.join(artifact_service.root_dir, "apps", app, "users", user_id)
    count = 0
    for scope in ("artifacts", "sessions"):
      count += count_versions(os.path.join(base, scope))
      shutil.rmtree(os.path.join(base, scope), ignore_errors=True)
    if os.path.isdir(base):
      with open(os.path.join(base, "ERASED.txt"), "w", encoding="utf-8") as receipt:
        receipt.write(f"{count} versions erased\n")
    erased += count
  return erased
