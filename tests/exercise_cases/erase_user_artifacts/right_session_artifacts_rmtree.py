"""Lists the store's sessions and the disk's, removes each session's artifacts folder, and links."""

import os
import shutil
from pathlib import Path


def versions_in(folder: Path) -> int:
  return sum(1 for current, folders, _ in os.walk(folder) if os.path.basename(current) == "versions"
             for name in folders if _int(name) is not None)


def _int(name: str):
  try:
    return int(name)
  except ValueError:
    return None


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  count = 0
  for app in sorted(set(app_names)):
    base = Path(str(artifact_service.root_dir)) / "apps" / app / "users" / user_id
    own = base / "artifacts"
    if own.is_symlink():  # a link itself: removed, not followed
      own.unlink()
    else:
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
    for current, names, files in os.walk(base / "sessions"):  # a session folder may be a link
      for name in names + files:
        if os.path.islink(os.path.join(current, name)):
          os.unlink(os.path.join(current, name))
  return count
