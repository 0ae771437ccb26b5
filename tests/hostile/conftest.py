"""The hostile class: submissions, not tests. Nothing here is collected (not even by nbval:
these notebooks must only ever run inside the grader's sandbox, through
tests/test_grade_hostile.py)."""

collect_ignore_glob = ["*"]
