"""Through ADK's API (list, list_versions, delete), sessions from the store and disk; then links."""

import os
from pathlib import Path


def sessions_on_disk(root: Path) -> set[str]:
  """Session ids with a folder of files: any folder under sessions/ holding artifacts/."""
  found = set()
  for current, folders, _ in os.walk(root):
    if "artifacts" in folders:
      found.add(Path(current).relative_to(root).as_posix())
      folders.remove("artifacts")
  return found


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
  erased = 0
  for app in set(app_names):
    base = Path(artifact_service.root_dir, "apps", app, "users", user_id)
    for scope in ("artifacts", "sessions"):  # a linked folder: ADK would list what is behind it
      if (base / scope).is_symlink():
        (base / scope).unlink()
    for name in await artifact_service.list_artifact_keys(app_name=app, user_id=user_id):
      erased += len(await artifact_service.list_versions(app_name=app, user_id=user_id,
                                                         filename=name))
      await artifact_service.delete_artifact(app_name=app, user_id=user_id, filename=name)
    listed = await session_service.list_sessions(app_name=app, user_id=user_id)
    ids = {s.id for s in listed.sessions}
    ids |= sessions_on_disk(Path(artifact_service.root_dir, "apps", app, "users", user_id,
                                 "sessions"))
    for session_id in sorted(ids):
      for name in await artifact_service.list_artifact_keys(app_name=app, user_id=user_id,
                                                            session_id=session_id):
        erased += len(await artifact_service.list_versions(
            app_name=app, user_id=user_id, filename=name, session_id=session_id))
        await artifact_service.delete_artifact(app_name=app, user_id=user_id, filename=name,
                                               session_id=session_id)
    remove_links(Path(artifact_service.root_dir, "apps", app, "users", user_id))
  return erased


def remove_links(base: Path) -> None:
  """The links the API never lists: removed themselves, never followed (os.walk does not)."""
  for scope in ("artifacts", "sessions"):
    for current, folders, files in os.walk(base / scope):
      for name in folders + files:
        if os.path.islink(os.path.join(current, name)):
          os.unlink(os.path.join(current, name))
