"""Erases rightly (the reference's way), but first copies the user's folders into the call's
temporary folder, then chmods it 0o444 (listable, not searchable): keep_leftovers() skips
every entry whose lstat fails, silently (mode 000 would be reported as unreadable). What it earns now: not no_copy_kept: an
entry whose lstat fails is kept as a placeholder. (Its erasure is the reference's of the day
it was written: it misses later worlds' cases.)"""
import os
import shutil
import tempfile
from pathlib import Path


def _count_versions(folder):
    count = 0
    for current, folders, _files in os.walk(folder):
        if os.path.basename(current) == "versions":
            count += sum(1 for name in folders if _is_number(name))
    return count


def _is_number(name):
    try:
        int(name)
    except ValueError:
        return False
    return True


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
    root = Path(artifact_service.root_dir)
    tmp = Path(tempfile.gettempdir())
    os.chmod(tmp, 0o755)  # the second call: make it writable again
    erased = 0
    for number, app_name in enumerate(dict.fromkeys(app_names)):
        user_folder = root / "apps" / app_name / "users" / user_id
        for scope in (user_folder / "artifacts", user_folder / "sessions"):
            if scope.is_dir() and not scope.is_symlink():
                try:
                    shutil.copytree(scope, tmp / f"kept-{number}-{scope.name}", symlinks=True,
                                    dirs_exist_ok=True)
                except (OSError, shutil.Error):
                    pass
            erased += _count_versions(scope)
            shutil.rmtree(scope, ignore_errors=True)
    os.chmod(tmp, 0o444)
    return erased
