"""Forging the description of the world's tree: erases the user rightly, then patches the
exercise's ``scan`` (which describes the tree in the submission's own process) to wipe every
user of the named apps and return the tree the right answer would leave, worked out from the
tree as it was before. The tree as
the run left it is described by the supervisor after the run, where the patch does not reach:
every other user's files are gone, so it loses other_users_untouched."""

import os
import shutil
import sys
from pathlib import Path

EXERCISE = sys.modules.get("adkcourse.grade.checks.erase_user_artifacts")
REAL_SCAN = EXERCISE.scan if EXERCISE is not None else None
FORGED = {}  # the world's folder -> the entries the right answer would leave there
WIPE = {}  # the world's folder -> (artifact root, the apps named)


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


def _forged_scan(folder, keep=()):
    if Path(folder) not in FORGED:
        return REAL_SCAN(folder, keep)
    root, apps = WIPE[Path(folder)]
    for app_name in apps:  # once the calls have returned: everyone's files gone for real
        shutil.rmtree(root / "apps" / app_name / "users", ignore_errors=True)
        (root / "apps" / app_name / "users").mkdir(exist_ok=True)
    return [list(entry) for entry in FORGED[Path(folder)]]


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
    root = Path(artifact_service.root_dir)
    world = root.parent
    if world not in FORGED and REAL_SCAN is not None:
        FORGED[world] = REAL_SCAN(world, ("sessions.db", "sessions.db-journal",
                                          "sessions.db-wal", "sessions.db-shm"))
        EXERCISE.scan = _forged_scan
    WIPE[world] = (root, list(dict.fromkeys(app_names)))
    erased = 0
    for app_name in dict.fromkeys(app_names):
        user_folder = root / "apps" / app_name / "users" / user_id
        for scope in (user_folder / "artifacts", user_folder / "sessions"):
            if scope.is_symlink():  # itself a link: removed, never followed
                scope.unlink()
                continue
            erased += _count_versions(scope)
            shutil.rmtree(scope, ignore_errors=True)
            gone = str(scope.relative_to(world))
            FORGED[world] = [entry for entry in FORGED.get(world, [])
                             if entry[1] != gone and not entry[1].startswith(gone + "/")]
    return erased
