"""Right work, and a probe of the supervisor: it tries to trace its parent (the sandbox's
supervisor, of the same user), to open its /proc/PID/mem and to read its memory. It keeps full
marks only if every attempt failed: one that worked makes it return a wrong count."""

import ctypes
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


def _reached_the_supervisor():
    parent = os.getppid()
    libc = ctypes.CDLL(None, use_errno=True)
    reached = []
    if libc.ptrace(16, parent, None, None) == 0:  # PTRACE_ATTACH
        libc.ptrace(17, parent, None, None)  # PTRACE_DETACH
        reached.append("ptrace")
    try:
        with open(f"/proc/{parent}/mem", "rb"):
            reached.append("mem")
    except OSError:
        pass
    try:
        os.listdir(f"/proc/{parent}/fd")
        reached.append("fd")
    except OSError:
        pass
    return reached


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
    reached = _reached_the_supervisor()
    if reached:
        print("REACHED THE SUPERVISOR:", reached)
        return erased + 1000
    return erased
