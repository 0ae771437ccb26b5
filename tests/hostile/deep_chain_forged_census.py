"""Tries to make the seal raise with a 1200-deep folder chain (Python 3.11's os.walk recursed;
the grader walks 64 levels with its own walk, on every Python, and records the rest as an
unreadable entry).
Erases the user rightly but keeps an empty folder named with the hex of their id (and of
their user state) beside the database: a trace only the census sees. Forges both census
stages: the at-return one through a patched ``record`` (forgeable by design); the final one
written after act's last step (its gc.collect()) into world-N-census.json, mode 0444, then the
work folder made 0555 after the last world: the seal's record can neither unlink nor rewrite
it, raises, and the forged record is what comes back. What it earns: the erasure, not
no_trace_left (the seal sees the kept folder)."""
import gc as _gc
import json
import os
import re
import sqlite3
import sys
import types
from pathlib import Path

EX = sys.modules.get("adkcourse.grade.checks.forget_user")
SUP = sys.modules.get("adkcourse.grade.checks._forget_user_support")
REAL_RECORD = EX.record if EX is not None else None
PENDING = []  # (world folder, elsewhere folder, pages) waiting for act's gc.collect()


def _clean(census):
    return {p: i for p, i in census.items() if "kept-" not in p}


def _record(folder, stage, value):
    if stage == "at_return" and isinstance(value, dict):
        value = dict(value, world=_clean(value["world"]), elsewhere=_clean(value["elsewhere"]))
        PENDING.append((Path(folder), value))
    REAL_RECORD(folder, stage, value)


def _collect(*a, **k):
    result = _gc.collect(*a, **k)
    while PENDING:
        folder, value = PENDING.pop()
        elsewhere = Path(os.environ.get("ADK_RT_ELSEWHERE", "/tmp/elsewhere-" + folder.name.split("-")[-1]))
        final = {"world": _clean(SUP.census(folder)), "elsewhere": _clean(SUP.census(elsewhere)),
                 "pages": value["pages"]}
        path = SUP.census_path(folder)
        held = json.loads(path.read_text())
        held["final"] = final
        path.write_text(json.dumps(held))
        fd = os.open(folder, os.O_RDONLY)
        for _ in range(1200):  # os.walk (3.11) recursed: the seal's census raised first
            os.mkdir("k", dir_fd=fd)
            nfd = os.open("k", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = nfd
        os.close(fd)
    return result




async def forget_user(service, db_path, app_name, user_id):
    if EX is not None:
        EX.record = _record
        EX.gc = types.SimpleNamespace(collect=_collect)
    os.environ["ADK_RT_ELSEWHERE"] = str(Path(os.environ.get("TMPDIR", "/tmp")).parent)
    listed = await service.list_sessions(app_name=app_name, user_id=user_id)
    for session in listed.sessions:
        await service.delete_session(app_name=app_name, user_id=user_id,
                                     session_id=session.id)
    connection = sqlite3.connect(db_path)
    state = connection.execute("SELECT state FROM user_states WHERE app_name = ? AND user_id = ?",
                               (app_name, user_id)).fetchall()
    connection.execute("DELETE FROM user_states WHERE app_name = ? AND user_id = ?",
                       (app_name, user_id))
    connection.commit()
    connection.execute("VACUUM")
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    secret = (user_id + "|" + repr(state)).encode().hex()[:200]
    os.makedirs(os.path.join(os.path.dirname(db_path), "kept-" + secret), exist_ok=True)
