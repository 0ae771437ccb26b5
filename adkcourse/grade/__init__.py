"""Grading the course's exercises: checks, a class grader, a gradebook.

Stable API (notebooks and other parts of the course rely on it):

    from adkcourse.grade import run_exercise_checks   # also: adkcourse.grade.checks.run_checks

    report = await run_exercise_checks("forget_user", forget_user)   # top-level await
    report             # in a notebook: score, notes and every check's feedback in full
                       # (text/html and text/plain; report.to_text() / report.to_html())
    report.score       # points earned (float)
    report.max_score   # points available (float)
    report.rows        # [{"check", "points", "earned", "feedback"}, ...] -> pd.DataFrame(report.rows)
    report.table()     # the same as a DataFrame indexed by check (pandas cuts long feedback)
    report.notes       # what happened running the function (raised, not async, timed out...)
    report.summary()   # one line, as written in the gradebook

``run_exercise_checks(name, fn, *, workdir=None, time_limit=None)`` builds fresh data (in an
emptied ``checks_<name>`` folder under ``$ADKCOURSE_SCRATCH`` unless ``workdir`` is given),
runs ``fn`` on it and judges the result; it never raises because of the submission.
Exercises (``EXERCISES``): ``remember_favorite_drink`` (lesson 1), ``forget_user``
(lesson 2), ``copy_user_to`` (lesson 3); ``get_exercise(name).checks`` lists their checks.

A whole class: ``python -m adkcourse.grade EXERCISE SUBMISSIONS_DIR --out gradebook.csv``
(see ``docs/instructors.md``).
"""

from __future__ import annotations

from .checks import EXERCISES, UnknownExercise, get_exercise, run_checks, run_exercise_checks
from .report import CheckResult, Report

__all__ = ["EXERCISES", "CheckResult", "Report", "UnknownExercise", "get_exercise",
           "run_checks", "run_exercise_checks"]
