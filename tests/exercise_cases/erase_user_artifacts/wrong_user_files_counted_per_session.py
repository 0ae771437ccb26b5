"""Counts what each session lists before deleting: user: files are counted in every session."""

import os
from pathlib import Path

LOSES = ("count_returned",)


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in set(app_names):
    top = Path(artifact_service.root_dir, "apps", app, "users", user_id, "sessions")
    ids = set()
    for current, folders, _ in os.walk(top):
      if "artifacts" in folders:
        ids.add(Path(current).relative_to(top).as_posix())
        folders.remove("artifacts")
    plan = [(None, n) for n in await artifact_service.list_artifact_keys(app_name=app,
                                                                          user_id=user_id)]
    for session_id in sorted(ids):
      plan += [(session_id, n) for n in await artifact_service.list_artifact_keys(
          app_name=app, user_id=user_id, session_id=session_id)]
    for session_id, name in plan:
      erased += len(await artifact_service.list_versions(
          app_name=app, user_id=user_id, filename=name, session_id=session_id))
    for session_id, name in plan:
      await artifact_service.delete_artifact(app_name=app, user_id=user_id, filename=name,
                                             session_id=session_id)
  return erased
