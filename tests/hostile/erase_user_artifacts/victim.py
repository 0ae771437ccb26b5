"""The reference behaviour, in the same class as the forger: full marks."""

import os
import shutil
from pathlib import Path


def _count_versions(folder):
    count = 0
    for current, folders, _files in os.walk(folder):
        if os.path.basename(current) == "versions":
            for name in folders:
                try:
                    int(name)
                    count += 1
                except ValueError:
                    pass
    return count


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
    erased = 0
    for app_name in dict.fromkeys(app_names):
        user_folder = Path(artifact_service.root_dir) / "apps" / app_name / "users" / user_id
        for scope in (user_folder / "artifacts", user_folder / "sessions"):
            if scope.is_symlink():  # itself a link: removed, never followed
                scope.unlink()
                continue
            erased += _count_versions(scope)
            shutil.rmtree(scope, ignore_errors=True)
    return erased
