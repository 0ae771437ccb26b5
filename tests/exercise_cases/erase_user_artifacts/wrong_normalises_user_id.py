"""Normalises the id to NFC first: a decomposed é names another folder, another user's."""

import os
import shutil
import unicodedata

LOSES = ("other_users_untouched", "session_files_erased")


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  user_id = unicodedata.normalize("NFC", user_id)
  erased = 0
  for app in set(app_names):
    base = os.path.join(artifact_service.root_dir, "apps", app, "users", user_id)
    for scope in ("artifacts", "sessions"):
      for current, folders, _ in os.walk(os.path.join(base, scope)):
        if os.path.basename(current) == "versions":
          erased += sum(1 for f in folders if f.isdigit())
      shutil.rmtree(os.path.join(base, scope), ignore_errors=True)
  return erased
