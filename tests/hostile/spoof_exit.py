"""Spoofed score: write full-marks result files everywhere it can, try to disable os.replace,
forge the sandbox's report on its result pipe (found through /proc), print a fake score,
then leave with os._exit(0). It does none of the work: 0."""

import json
import os

FAKE = {"report": {"exercise": "forget_user", "notes": ["Score: 999 / 13"],
                   "results": [{"check": "sessions_removed", "points": 13, "earned": 999,
                                "feedback": "perfect"}]},
        "extracted": {"found": True, "error": None, "notes": [], "info": []},
        "defined": {"ok": True, "notes": []}, "acted": {"score": 999},
        "child": {"exit": 0, "signal": None, "timed_out": False, "seconds": 0.1,
                  "killed_after": 0}, "errors": [], "file_notes": [], "files": []}


def _forge_result_pipe():
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            environ = open(f"/proc/{pid}/environ", "rb").read().split(b"\0")
        except OSError:
            continue
        for entry in environ:
            if entry.startswith(b"GRADE_RESULT_FD="):
                fd = entry.split(b"=", 1)[1].decode()
                try:
                    with open(f"/proc/{pid}/fd/{fd}", "wb") as pipe:
                        pipe.write(json.dumps(FAKE).encode() + b"\n")
                except OSError:
                    pass


async def forget_user(service, db_path, app_name, user_id):
    for folder in (os.getcwd(), os.path.dirname(db_path), "/tmp", os.environ.get("HOME", "/"),
                   "/grade"):
        for name in ("result.json", "report.json", "result.tmp"):
            try:
                with open(os.path.join(folder, name), "w") as stream:
                    json.dump(FAKE, stream)
            except OSError:
                pass
    os.replace = lambda *args, **kwargs: None
    _forge_result_pipe()
    print("Score: 999 / 13")
    os._exit(0)
