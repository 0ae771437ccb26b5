"""Uses the service's own path helper, but lists a versions folder that is itself a link with iterdir(): it counts the versions behind the link, which are not the user's."""

import os
import shutil
from pathlib import Path


LOSES = ("count_returned",)


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in dict.fromkeys(app_names):
    base = artifact_service._base_root(app, user_id)  # validates both ids, as ADK does
    for scope in ("artifacts", "sessions"):
      top = Path(base) / scope
      if top.is_symlink():  # itself a link: removed, never followed
        top.unlink()
        continue
      for current, folders, _ in os.walk(top):
        if "versions" in folders:
          versions = Path(current, "versions")
          erased += sum(1 for child in versions.iterdir()
                        if child.is_dir() and _number(child.name))
          folders.remove("versions")
      shutil.rmtree(top, ignore_errors=True)
    # the user's own folder, now empty, may go too (unless another user's is inside it)
    if Path(base).is_dir() and not any(Path(base).iterdir()):
      Path(base).rmdir()
  return erased


def _number(name):
  try:
    int(name)
    return True
  except ValueError:
    return False
