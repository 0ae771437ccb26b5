"""Spoofed score: write reports of the wrong shape on its result pipe (a score that is a
string, 999/13, NaN, nested garbage, unsafe file names) and make ``act`` return junk; the
gradebook must not crash for anyone and this one gets 0."""

import json
import os

async def forget_user(service, db_path, app_name, user_id):
    shapes = [
        {"extracted": {"found": "yes", "notes": "all", "info": 7}, "acted": "13",
         "files": [["../../gradebook.csv", 3]], "score": "13"},
        {"extracted": {"found": True, "error": None, "notes": [], "info": []},
         "defined": {"ok": True, "notes": []}, "acted": {"runs": [{"notes": [["nested"]]}]},
         "child": {"exit": "0", "seconds": float("nan")}, "files": [["/etc/passwd", 0]],
         "report": {"score": float("inf")}},
    ]
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
                for shape in shapes:
                    try:
                        with open(f"/proc/{pid}/fd/{fd}", "wb") as pipe:
                            pipe.write(json.dumps(shape).encode() + b"\nabc")
                    except (OSError, ValueError):
                        pass
    raise SystemExit("999")
