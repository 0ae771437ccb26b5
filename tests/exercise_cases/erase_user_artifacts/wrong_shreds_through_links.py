"""Overwrites every file with zeros before deleting it: writing through a link changes another's."""

import os
import shutil

LOSES = ("other_users_untouched",)


def count_versions(folder: str) -> int:
  """The numbered folders in every versions folder under folder (what list_versions counts)."""
  return sum(1 for current, folders, _ in os.walk(folder) if os.path.basename(current) == "versions"
             for name in folders if name.isdigit())


def shred(folder: str) -> None:
  for current, _folders, files in os.walk(folder):
    for name in files:
      path = os.path.join(current, name)
      try:
        size = os.path.getsize(path)
        with open(path, "r+b") as stream:  # opens what a link points to
          stream.write(b"\0" * size)
      except OSError:
        pass


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in dict.fromkeys(app_names):
    base = os.path.join(artifact_service.root_dir, "apps", app, "users", user_id)
    for scope in ("artifacts", "sessions"):
      erased += count_versions(os.path.join(base, scope))
      shred(os.path.join(base, scope))
      shutil.rmtree(os.path.join(base, scope), ignore_errors=True)
  return erased
