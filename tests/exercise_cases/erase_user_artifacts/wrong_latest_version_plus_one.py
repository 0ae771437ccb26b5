"""Counts each artifact's versions as its latest number + 1: a killed save leaves a gap."""

LOSES = ("count_returned",)

import os
from pathlib import Path


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in set(app_names):
    scopes = [None]
    top = Path(artifact_service.root_dir, "apps", app, "users", user_id, "sessions")
    for current, folders, _ in os.walk(top):
      if "artifacts" in folders:
        scopes.append(Path(current).relative_to(top).as_posix())
        folders.remove("artifacts")
    for session_id in scopes:
      for name in await artifact_service.list_artifact_keys(app_name=app, user_id=user_id,
                                                            session_id=session_id):
        versions = await artifact_service.list_versions(app_name=app, user_id=user_id,
                                                        filename=name, session_id=session_id)
        erased += versions[-1] + 1 if versions else 0
        await artifact_service.delete_artifact(app_name=app, user_id=user_id, filename=name,
                                               session_id=session_id)
  return erased
