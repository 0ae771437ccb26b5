"""A forger of the new protocol: does nothing, and writes a forged `acted` holding memory dumps
that would be perfect on its result pipe, then lets the real report follow. Two `acted`
messages: tampering, its report is discarded: 0."""

import fcntl
import json
import os


def _entry(app, user, word):
    return [{"app": app, "user": user, "session": "s", "id": f"{word}-{who}", "author": who,
             "timestamp": 1.5, "texts": [f"note {word}"]} for who in ("user", "consent_concierge")]


async def remember_with_consent(callback_context) -> None:
    if os.environ.get("_F"):
        return None
    os.environ["_F"] = "1"
    setup = json.load(open("/grade/request.json"))["setup"]
    app, users, words = setup["app"], setup["users"], setup["words"]
    keep = lambda *keys: [e for k in keys for e in _entry(app, users[k.split("_")[0]], words[k])]
    msg = {"acted": {"notes": [], "raised_on": [],
                     "memory": {"at_probe": keep("leaver_before", "leaver_earlier"),
                                "final": keep("keeper_0", "keeper_1", "keeper_2",
                                              "leaver_earlier")}}}
    data = (json.dumps(msg) + "\n").encode()
    for fd in range(3, 256):
        try:
            if os.readlink(f"/proc/self/fd/{fd}").startswith("pipe:") and \
               fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
                os.write(fd, data)
        except OSError:
            pass
