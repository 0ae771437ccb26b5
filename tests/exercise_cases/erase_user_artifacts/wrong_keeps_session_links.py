"""Removes each session's artifacts folder: a session folder that is a link stays in sessions/."""

import os
import shutil
from pathlib import Path

LOSES = ("session_files_erased",)


def versions_in(folder: Path) -> int:
  return sum(1 for current, folders, _ in os.walk(folder) if os.path.basename(current) == "versions"
             for name in folders if not name.startswith(".") and name.isdigit())


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  count = 0
  for app in sorted(set(app_names)):
    base = Path(str(artifact_service.root_dir)) / "apps" / app / "users" / user_id
    own = base / "artifacts"
    count += versions_in(own)
    shutil.rmtree(own, ignore_errors=True)
    listed = await session_service.list_sessions(app_name=app, user_id=user_id)
    folders = {base / "sessions" / s.id / "artifacts" for s in listed.sessions}
    for current, names, _ in os.walk(base / "sessions"):
      if "artifacts" in names:
        folders.add(Path(current) / "artifacts")
        names.remove("artifacts")
    for folder in sorted(folders, key=lambda p: -len(p.parts)):
      count += versions_in(folder)
      shutil.rmtree(folder, ignore_errors=True)
  return count
