"""Makes the user's own entries 0o777 before rmtree: os.chmod follows links, to other users' files."""

import os
import shutil

LOSES = ("other_users_untouched",)


def count_versions(folder: str) -> int:
  """The numbered folders in every versions folder under folder (what list_versions counts)."""
  return sum(1 for current, folders, _ in os.walk(folder) if os.path.basename(current) == "versions"
             for name in folders if name.isdigit())


def make_deletable(folder: str) -> None:
  for current, folders, files in os.walk(folder):
    for name in folders + files:
      try:
        os.chmod(os.path.join(current, name), 0o777)  # follow_symlinks=True by default
      except OSError:
        pass


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in dict.fromkeys(app_names):
    base = os.path.join(artifact_service.root_dir, "apps", app, "users", user_id)
    for scope in ("artifacts", "sessions"):
      erased += count_versions(os.path.join(base, scope))
      make_deletable(os.path.join(base, scope))
      shutil.rmtree(os.path.join(base, scope), ignore_errors=True)
  return erased
