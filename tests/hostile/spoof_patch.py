"""Spoofed score: patch the judge at definition time (the engine's judge, world_problems,
same and differences, the harness's call and snapshot, builtins.max/min, the report's classes,
ADK's service classes, json), return a str subclass whose __eq__ is always True, and do none
of the work: 0."""

import builtins
import json

from google.adk.sessions.sqlite_session_service import SqliteSessionService

from adkcourse.grade import report as _report
from adkcourse.grade.checks import _engine, _harness


class AlwaysEqual(str):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = str.__hash__


_engine.judge = lambda exercise, results: _report.Report(
    exercise.name, [_report.CheckResult(c.name, c.points, c.points, "patched")
                    for c in exercise.checks])
_engine.world_problems = lambda exercise, result: {c.name: [] for c in exercise.checks}
_engine.same = lambda a, b: True
_engine.differences = lambda *args, **kwargs: []
_harness.describe = lambda value, depth=0: None
builtins.max = lambda *args, **kwargs: 999
builtins.min = lambda *args, **kwargs: 999
_report.Report.score = property(lambda self: 999.0)
_report.CheckResult.passed = property(lambda self: True)
json.dumps = lambda *args, **kwargs: '{"world": {"index": 0, "outcomes": [], "snapshot": true}}'


async def _nothing(self, *args, **kwargs):
    return None


SqliteSessionService.list_sessions = _nothing
SqliteSessionService.get_session = _nothing


async def forget_user(service, db_path, app_name, user_id):
    return AlwaysEqual("all checks passed")
