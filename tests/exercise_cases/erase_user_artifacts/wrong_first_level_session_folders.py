"""Takes each folder in sessions/ as a session id: an id with a slash is nested deeper."""

import os

LOSES = ("session_files_erased", "deleted_sessions_erased")


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in set(app_names):
    for name in await artifact_service.list_artifact_keys(app_name=app, user_id=user_id):
      erased += len(await artifact_service.list_versions(app_name=app, user_id=user_id,
                                                         filename=name))
      await artifact_service.delete_artifact(app_name=app, user_id=user_id, filename=name)
    top = os.path.join(artifact_service.root_dir, "apps", app, "users", user_id, "sessions")
    for session_id in sorted(os.listdir(top)) if os.path.isdir(top) else []:
      for name in await artifact_service.list_artifact_keys(app_name=app, user_id=user_id,
                                                            session_id=session_id):
        erased += len(await artifact_service.list_versions(
            app_name=app, user_id=user_id, filename=name, session_id=session_id))
        await artifact_service.delete_artifact(app_name=app, user_id=user_id, filename=name,
                                               session_id=session_id)
  return erased
