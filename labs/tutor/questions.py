"""The tutor's question bank, and how an answer is judged against it.

Kept apart from the tools so that both the tools (which pick a question by level) and the
offline model's rules (which must know the expected answer to judge the student) read the same
data. A real model judges answers itself; the offline one calls ``is_correct``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Question:
  """One question: ``answers`` are the accepted answers, the first one is shown as expected."""

  id: str
  topic: str
  level: int
  text: str
  answers: tuple[str, ...]
  concept: str


QUESTIONS: tuple[Question, ...] = (
    Question("py-1a", "python", 1, "Which keyword starts the definition of a function?",
             ("def",), "defining functions"),
    Question("py-1b", "python", 1, "What does len([4, 5, 6]) return?", ("3", "three"),
             "len() and lists"),
    Question("py-2a", "python", 2, "Which one is immutable: a list or a tuple?", ("tuple",),
             "mutability"),
    Question("py-2b", "python", 2, "What does 'abc'[1] evaluate to?", ("b",),
             "string indexing"),
    Question("py-3a", "python", 3,
             "Which built-in gives you both the index and the item while looping over a list?",
             ("enumerate",), "enumerate()"),
    Question("py-3b", "python", 3, "What is [x * 2 for x in range(3)]?", ("0 2 4",),
             "list comprehensions"),
    Question("py-4a", "python", 4, "Which keyword turns a function into a generator?",
             ("yield",), "generators"),
    Question("py-4b", "python", 4,
             "What do you call a function that takes a function and returns a new one, "
             "applied with @ above a def?", ("decorator", "decorators"), "function decorators"),
    Question("sql-1a", "sql", 1, "Which statement reads rows from a table?", ("select",),
             "SELECT"),
    Question("sql-1b", "sql", 1, "Which clause keeps only the rows that match a condition?",
             ("where",), "WHERE"),
    Question("sql-2a", "sql", 2, "Which clause sorts the result?", ("order by",), "ORDER BY"),
    Question("sql-2b", "sql", 2, "Which function counts rows?", ("count",), "COUNT()"),
    Question("sql-3a", "sql", 3, "Which clause makes COUNT(*) count each group separately?",
             ("group by",), "GROUP BY"),
    Question("sql-3b", "sql", 3, "Which statement removes rows from a table?", ("delete",),
             "DELETE"),
)

TOPICS: tuple[str, ...] = tuple(sorted({q.topic for q in QUESTIONS}))
_BY_ID = {q.id: q for q in QUESTIONS}


def question_by_id(question_id: str) -> Question | None:
  return _BY_ID.get(question_id)


def questions_at(topic: str, level: int) -> list[Question]:
  """The questions of ``topic`` at ``level``, in bank order."""
  return [q for q in QUESTIONS if q.topic == topic and q.level == level]


def max_level(topic: str) -> int:
  """The highest level the bank has questions for (levels start at 1)."""
  return max((q.level for q in QUESTIONS if q.topic == topic), default=1)


def pick_question(topic: str, level: int, asked_so_far: int) -> Question:
  """A question at ``level``, rotating through the level's questions as answers accumulate
  (deterministic, so that a replayed conversation asks the same questions)."""
  level = min(max(level, 1), max_level(topic))
  candidates = questions_at(topic, level)
  return candidates[asked_so_far % len(candidates)]


def _words(text: str) -> str:
  """Lower-case words and numbers only: "It's [0, 2, 4]!" -> "it s 0 2 4"."""
  return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def is_correct(question: Question, answer: str) -> bool:
  """True when one of the accepted answers appears, as whole words, in the student's answer."""
  said = f" {_words(answer)} "
  return any(f" {_words(accepted)} " in said for accepted in question.answers)
