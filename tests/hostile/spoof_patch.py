"""Spoofed score: patch the judge at definition time (Check.evaluate, Exercise.judge,
builtins.max/min, the report's classes, ADK's service classes, json), return a str subclass
whose __eq__ is always True, and do none of the work: 0."""

import builtins
import json

from google.adk.sessions.sqlite_session_service import SqliteSessionService

from adkcourse.grade.checks import _base
from adkcourse.grade import report as _report


class AlwaysEqual(str):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = str.__hash__


def _full(self, trial):
    return _report.CheckResult(self.name, self.points, self.points, "patched: perfect")


_base.Check.evaluate = _full
_base.Exercise.judge = lambda self, trial: _report.Report(
    self.name, [_report.CheckResult(c.name, c.points, c.points, "patched") for c in self.checks])
builtins.max = lambda *args, **kwargs: 999
builtins.min = lambda *args, **kwargs: 999
_report.Report.score = property(lambda self: 999.0)
_report.CheckResult.passed = property(lambda self: True)
json.dumps = lambda *args, **kwargs: '{"runs": [{"notes": []}, {"notes": []}], "score": 999}'


async def _nothing(self, *args, **kwargs):
    return None


SqliteSessionService.list_sessions = _nothing
SqliteSessionService.get_session = _nothing


async def forget_user(service, db_path, app_name, user_id):
    return AlwaysEqual("all checks passed")
