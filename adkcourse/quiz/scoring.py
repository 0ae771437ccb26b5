"""What counts toward a quiz score: one definition for the widget and for class analytics.

Why it is defined from the whole history of a question rather than from its last attempt: a
student who retries a question they already got right must not lose the point by a slip, and a
student who is shown the right answer after two wrong attempts must not earn it by typing what
they have just been shown. Both follow from reading the attempts in order:

* **right at the first attempt**: the very first attempt ever was right;
* **right**: some attempt was right *before* the answer was revealed (a question is revealed
  once ``REVEAL_AFTER_WRONG`` wrong attempts came before any right one);
* **revealed**: the answer was shown before the student found it; later right attempts are
  practice and do not count.

Attempts are booleans (``correct``), oldest first, as ``progress.history`` and the exported
files hold them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

from .messages import plural
from .model import REVEAL_AFTER_WRONG


@dataclass(frozen=True)
class QuestionScore:
  """One question's standing for one student, derived from their attempts in order."""
  attempts: int = 0
  first_try: bool = False
  """The first attempt ever was right."""
  right: bool = False
  """Right before the answer was revealed: what the score counts."""
  revealed: bool = False
  """The right answer was shown after ``REVEAL_AFTER_WRONG`` wrong attempts, none right before."""
  wrong: int = 0

  @property
  def answered(self) -> bool:
    return self.attempts > 0

  @property
  def shows_answer(self) -> bool:
    """Whether the card may show the right answer and the explanation."""
    return self.right or self.revealed

  def after(self, correct: bool) -> "QuestionScore":
    """The standing after one more attempt."""
    first_try = self.first_try or (self.attempts == 0 and correct)
    right = self.right or (correct and not self.revealed)
    wrong = self.wrong + (0 if correct else 1)
    revealed = self.revealed or (not right and wrong >= REVEAL_AFTER_WRONG)
    return QuestionScore(attempts=self.attempts + 1, first_try=first_try, right=right,
                         revealed=revealed, wrong=wrong)


def score_attempts(corrects: Iterable[bool]) -> QuestionScore:
  """The standing after these attempts (oldest first)."""
  score = QuestionScore()
  for correct in corrects:
    score = score.after(bool(correct))
  return score


@dataclass(frozen=True)
class QuizScore:
  """A bank's score: how many questions are right, right at the first attempt, revealed."""
  total: int
  right: int
  first_try: int
  answered: int
  revealed: int

  @classmethod
  def of(cls, scores: Sequence[QuestionScore]) -> "QuizScore":
    return cls(total=len(scores), right=sum(s.right for s in scores),
               first_try=sum(s.first_try for s in scores),
               answered=sum(s.answered for s in scores),
               revealed=sum(s.revealed for s in scores))

  def sentence(self, lang: Optional[str] = None) -> str:
    """The score as the student reads it, in ``lang`` (``messages.py``), e.g. ``Score: 3 of
    10 right (2 at the first attempt) · 4 of 10 answered · 1 answer shown (not counted)``."""
    parts = [plural("score_right", self.right, lang, right=self.right, total=self.total,
                    first_try=self.first_try),
             plural("score_answered", self.answered, lang, answered=self.answered,
                    total=self.total)]
    if self.revealed:
      parts.append(plural("score_revealed", self.revealed, lang))
    return " · ".join(parts)
