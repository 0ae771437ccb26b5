"""Wrong work: wipes every user's folders in the named apps and keeps the user's files in
world-N/.kept. Forges the description: the at-return scan is patched (forgeable by design), and
after act's last step (write_strays) it writes the forged manifest into world-N itself, mode
0444, and makes world-N 0555: the seal's pack can neither unlink nor overwrite it, raises, and
the forged manifest is what comes back."""
import json
import os
import shutil
import sys
from pathlib import Path

EX = sys.modules.get("adkcourse.grade.checks.erase_user_artifacts")
REAL_SCAN = EX.scan if EX is not None else None
REAL_STRAYS = EX.write_strays if EX is not None else None
KEEP = ("sessions.db", "sessions.db-journal", "sessions.db-wal", "sessions.db-shm")
FORGED, WIPE = {}, {}


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


def _do_wrong(world):
    root, apps, user = WIPE[world]
    kept = world / ".kept"
    kept.mkdir(exist_ok=True)
    for i, app in enumerate(apps):
        base = root / "apps" / app / "users" / user
        for scope in (base / "artifacts", base / "sessions"):
            if scope.is_symlink():  # itself a link: removed, never followed
                scope.unlink()
                continue
            if scope.exists():
                shutil.move(str(scope), str(kept / f"{i}-{scope.name}"))
        users = root / "apps" / app / "users"
        if users.is_dir():
            shutil.rmtree(users, ignore_errors=True)  # everybody else, gone
            users.mkdir(exist_ok=True)


def _scan(folder, keep=()):
    folder = Path(folder)
    if folder in FORGED:
        _do_wrong(folder)
        return [list(e) for e in FORGED[folder]]
    return REAL_SCAN(folder, keep)


def _write_strays(folder, strays):
    REAL_STRAYS(folder, strays)
    folder = Path(folder)
    if folder in FORGED:
        target = folder / EX.MANIFEST
        target.write_text(json.dumps(FORGED[folder], ensure_ascii=False), encoding="utf-8",
                          errors="surrogatepass")
        os.chmod(target, 0o444)
        os.chmod(folder, 0o555)


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
    root = Path(artifact_service.root_dir)
    world = root.parent
    if EX is not None and world not in FORGED:
        FORGED[world] = REAL_SCAN(world, KEEP)
        EX.scan, EX.write_strays = _scan, _write_strays
    apps = list(dict.fromkeys(app_names))
    WIPE[world] = (root, apps, user_id)
    erased = 0
    for app in apps:
        base = root / "apps" / app / "users" / user_id
        for scope in (base / "artifacts", base / "sessions"):
            if scope.is_symlink():  # itself a link: removed, never followed
                scope.unlink()
                continue
            erased += _count(scope)
            gone = str(scope.relative_to(world))
            FORGED[world] = [e for e in FORGED[world]
                             if e[1] != gone and not e[1].startswith(gone + "/")]
    return erased
