"""Deletes what sessions list, with their id: a file saved with no session is listed bare, stays."""

import os
from pathlib import Path

LOSES = ("user_files_erased", "count_returned")


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in set(app_names):
    top = Path(artifact_service.root_dir, "apps", app, "users", user_id, "sessions")
    ids = set()
    for current, folders, _ in os.walk(top):
      if "artifacts" in folders:
        ids.add(Path(current).relative_to(top).as_posix())
        folders.remove("artifacts")
    for session_id in sorted(ids):
      for name in await artifact_service.list_artifact_keys(app_name=app, user_id=user_id,
                                                            session_id=session_id):
        erased += len(await artifact_service.list_versions(
            app_name=app, user_id=user_id, filename=name, session_id=session_id))
        await artifact_service.delete_artifact(app_name=app, user_id=user_id, filename=name,
                                               session_id=session_id)
  return erased
