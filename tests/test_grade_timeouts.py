"""A time limit never costs points because of the machine: a submission that reached one is
graded again, alone, and only then does the limit count."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from adkcourse.grade import runner
from adkcourse.grade.demo import write_submission
from adkcourse.grade.report import Report
from adkcourse.grade.runner import Graded, find_submissions, grade_all
from adkcourse.grade.sandbox import SandboxUnavailable, detect


def test_a_submission_that_reached_a_limit_is_graded_again_alone(tmp_path, monkeypatch):
  """The first grading of ``slow`` reports a time limit; the second, run when nothing else is
  being graded, does not: the second one is the grade, and its notes say so."""
  (tmp_path / "subs").mkdir()
  for student in ("ada", "slow", "zoe"):
    write_submission(tmp_path / "subs", student, "correct_script")
  calls: dict[str, int] = {}
  running = []
  concurrency: list[int] = []
  lock = threading.Lock()
  exercise = runner.get_exercise("forget_user")

  def grade(self, submission, private, problem):
    with lock:
      calls[submission.student] = calls.get(submission.student, 0) + 1
      running.append(submission.student)
      concurrency.append(len(running))
      first = calls[submission.student] == 1
    time.sleep(0.2)
    with lock:
      running.remove(submission.student)
    report = Report("forget_user", [], ["graded"])
    return Graded(submission.student, submission.path, report,
                  timed_out=submission.student == "slow" and first)

  monkeypatch.setattr(runner.Grader, "grade", grade)
  def init(self, *args, **kwargs):
    self._all_judges = []

  monkeypatch.setattr(runner.Grader, "__init__", init)
  monkeypatch.setattr(runner.Grader, "close", lambda self: None)
  graded = {g.student: g for g in grade_all("forget_user", find_submissions(tmp_path / "subs"),
                                            jobs=3, progress=False, sandbox="none")}
  assert calls == {"ada": 1, "slow": 2, "zoe": 1}
  assert graded["slow"].regraded and not graded["ada"].regraded
  assert "graded again, alone" in graded["slow"].report.notes[0]
  assert "3 submissions were graded at a time" in graded["slow"].report.notes[0]
  assert max(concurrency[3:]) == 1  # the second grading ran with nothing beside it
  assert exercise.name == "forget_user"


@pytest.fixture(scope="module")
def isolation():
  try:
    found = detect("bwrap")
  except SandboxUnavailable as error:  # CI installs bubblewrap: a failure, never a skip
    pytest.fail(f"bubblewrap is required: {error}")
  yield found
  found.close()


def test_an_endless_loop_is_stopped_by_cpu_time_twice_and_scores_zero(tmp_path, isolation):
  (tmp_path / "subs").mkdir()
  write_submission(tmp_path / "subs", "spins", "loops_forever")
  write_submission(tmp_path / "subs", "fine", "correct_script")
  graded = {g.student: g for g in grade_all(
      "forget_user", find_submissions(tmp_path / "subs"), jobs=2, time_limit=2.0,
      progress=False, isolation=isolation, seed=3)}
  spins, fine = graded["spins"], graded["fine"]
  assert spins.report.score == 0 and spins.regraded and spins.timed_out
  assert "it reached a limit again" in spins.report.notes[0]
  assert any("endless loop" in note for note in spins.report.notes)
  assert fine.report.score == fine.report.max_score and not fine.regraded
