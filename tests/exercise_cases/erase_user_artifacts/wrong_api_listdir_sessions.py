"""Through the API, sessions from listdir: a session id with a slash is missed, a link is followed."""

LOSES = ("session_files_erased", "other_users_untouched")

import os, shutil
from pathlib import Path


def _count_versions(folder):
  n = 0
  for cur, dirs, _ in os.walk(folder):
    if os.path.basename(cur) == "versions":
      n += sum(1 for d in dirs if d.isdigit())
  return n


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  # through the API; sessions found with listdir (a session id with a slash is a nested folder)
  erased = 0
  for app in dict.fromkeys(app_names):
    base = Path(artifact_service.root_dir) / "apps" / app / "users" / user_id
    sessions = sorted(os.listdir(base / "sessions")) if (base / "sessions").is_dir() else []
    for sid in [None] + sessions:
      keys = await artifact_service.list_artifact_keys(app_name=app, user_id=user_id, session_id=sid)
      for key in keys:
        scoped = None if key.startswith("user:") else sid
        vs = await artifact_service.list_versions(app_name=app, user_id=user_id, filename=key, session_id=scoped)
        erased += len(vs)
        await artifact_service.delete_artifact(app_name=app, user_id=user_id, filename=key, session_id=scoped)
  return erased
