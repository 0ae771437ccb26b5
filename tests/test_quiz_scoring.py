"""What counts toward the score (``adkcourse.quiz.scoring``), shared by the widget and the
class analytics, and the per-student option order (``adkcourse.quiz.shuffle``)."""

from __future__ import annotations

import pytest

from adkcourse.quiz.scoring import QuestionScore, QuizScore, score_attempts
from adkcourse.quiz.shuffle import option_order


@pytest.mark.parametrize("attempts, first_try, right, revealed", [
    ([], False, False, False),
    ([True], True, True, False),
    ([False, True], False, True, False),
    ([False, False], False, False, True),
    ([False, False, True], False, False, True),        # typed what was just shown
    ([True, False], True, True, False),                # a slip after a right answer
    ([True, False, False, False], True, True, False),  # never revealed: it was found first
    ([False, True, False, False], False, True, False),
])
def test_standing_from_attempts(attempts, first_try, right, revealed):
  score = score_attempts(attempts)
  assert (score.attempts, score.first_try, score.right, score.revealed) == (
      len(attempts), first_try, right, revealed)
  assert score.shows_answer == (right or revealed)


def test_quiz_score_sentence():
  scores = [score_attempts(a) for a in ([True], [False, True], [False, False, True], [])]
  result = QuizScore.of(scores)
  assert (result.right, result.first_try, result.answered, result.revealed) == (2, 1, 3, 1)
  assert result.sentence() == ("Score: 2 of 4 right (1 at the first attempt) · 3 of 4 answered"
                               " · 1 answer shown (not counted)")
  assert QuizScore.of([QuestionScore()]).sentence() == (
      "Score: 0 of 1 right (0 at the first attempt) · 0 of 1 answered")


def test_option_order_is_a_stable_permutation_per_student():
  plain = option_order(5, user_id="ann", bank="b", question_id="q", shuffle=False)
  assert plain == [0, 1, 2, 3, 4]
  orders = {user: option_order(5, user_id=user, bank="b", question_id="q", shuffle=True)
            for user in (f"student-{i}" for i in range(20))}
  assert all(sorted(order) == plain for order in orders.values())
  assert len({tuple(order) for order in orders.values()}) > 5
  assert orders["student-3"] == option_order(5, user_id="student-3", bank="b", question_id="q",
                                             shuffle=True)
  assert option_order(1, user_id="ann", bank="b", question_id="q", shuffle=True) == [0]
