"""Deletes bottom-up what exists: a link whose target is gone does not "exist", and it stays."""

import os


def count_versions(folder: str) -> int:
  """The numbered folders in every versions folder under folder (what list_versions counts)."""
  return sum(1 for current, folders, _ in os.walk(folder) if os.path.basename(current) == "versions"
             for name in folders if name.isdigit())


def remove_inside(folder: str) -> None:
  for current, folders, files in os.walk(folder, topdown=False):
    for name in files:
      path = os.path.join(current, name)
      if os.path.exists(path):  # False for a link to nothing
        os.unlink(path)
    for name in folders:
      path = os.path.join(current, name)
      try:
        os.unlink(path) if os.path.islink(path) else os.rmdir(path)
      except OSError:
        pass
  try:
    os.rmdir(folder)
  except OSError:
    pass


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in dict.fromkeys(app_names):
    base = os.path.join(artifact_service.root_dir, "apps", app, "users", user_id)
    for scope in ("artifacts", "sessions"):
      erased += count_versions(os.path.join(base, scope))
      remove_inside(os.path.join(base, scope))
  return erased
