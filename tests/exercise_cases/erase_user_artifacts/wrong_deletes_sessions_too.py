"""Also deletes the user's sessions from the store: the exercise erases files, not conversations."""

import os
import shutil

LOSES = ("sessions_untouched",)


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in dict.fromkeys(app_names):
    base = os.path.join(artifact_service.root_dir, "apps", app, "users", user_id)
    for scope in ("artifacts", "sessions"):
      for current, folders, _ in os.walk(os.path.join(base, scope)):
        if os.path.basename(current) == "versions":
          erased += sum(1 for f in folders if f.isdigit())
      shutil.rmtree(os.path.join(base, scope), ignore_errors=True)
    listed = await session_service.list_sessions(app_name=app, user_id=user_id)
    for session in listed.sessions:
      await session_service.delete_session(app_name=app, user_id=user_id, session_id=session.id)
  return erased
