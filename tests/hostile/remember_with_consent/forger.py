"""Issue 9's forger, in the differential judge's protocol: does nothing, and on its first call
writes a forged world report (every call returned, its snapshot taken) on its own result pipe,
found through /proc/self/fd. The memory is observed by the judge, never reported, and a second
report on the pipe is tampering: its reports are dropped, 0."""

import fcntl
import json
import os


async def remember_with_consent(callback_context) -> None:
    if os.environ.get("_F"):
        return None
    os.environ["_F"] = "1"
    worlds = json.load(open("/grade/request.json"))["worlds"]
    for world in worlds:
        turns = len(world["inputs"]["turns"])
        report = {"index": world["index"], "snapshot": True, "snapshot_notes": [],
                  "outcomes": [{"label": "remember_with_consent", "raised": None}] * turns}
        data = (json.dumps({"world": report}) + "\n").encode()
        for fd in range(3, 256):
            try:
                if os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:") and \
                   fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
                    os.write(fd, data)
            except OSError:
                pass
