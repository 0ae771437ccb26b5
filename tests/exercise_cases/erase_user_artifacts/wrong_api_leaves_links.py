"""Through ADK's API only: the links in the user's folders stay (ADK lists what is behind them)."""

LOSES = ("user_files_erased", "session_files_erased")

import os
from pathlib import Path


def _sessions_on_disk(sessions_root: Path):
  found = []
  for cur, dirs, _ in os.walk(sessions_root):
    if "artifacts" in dirs:
      found.append(Path(cur).relative_to(sessions_root).as_posix())
      dirs.remove("artifacts")
  return found


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  # right, through the API: session ids from the disk, user files with session_id=None
  erased = 0
  for app in dict.fromkeys(app_names):
    base = Path(artifact_service.root_dir) / "apps" / app / "users" / user_id
    scopes = [(None, base / "artifacts")] + [(s, base / "sessions" / s / "artifacts")
                                             for s in _sessions_on_disk(base / "sessions")]
    for sid, root in scopes:
      if not root.is_dir():
        continue
      names = []
      for cur, dirs, _ in os.walk(root):
        if "versions" in dirs:
          names.append(Path(cur).relative_to(root).as_posix())
          dirs.remove("versions")
      for name in names:
        fn = name if sid is not None else "user:" + name
        erased += len(await artifact_service.list_versions(app_name=app, user_id=user_id, filename=fn, session_id=sid))
        await artifact_service.delete_artifact(app_name=app, user_id=user_id, filename=fn, session_id=sid)
  return erased
