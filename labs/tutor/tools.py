"""The tutor's two tools, and the progression rules they apply.

State keys, and how long each one lives (the prefix alone decides):

* ``user:progression`` (``user:``) every session of this student, on any service that persists
  sessions. One entry per topic::

      {"python": {"level": 2, "streak": [True], "right": 3, "total": 4,
                  "to_review": ["string indexing"]}}

* ``current_question`` (no prefix) this session only: the question waiting for an answer.
  A new session has none; a resumed session still has it.

Level rules (``apply_answer``), deliberately simple:

* every topic starts at level 1; levels go from 1 to the highest level of the question bank;
* ``streak`` keeps the answers given since the last level change (at most ``STREAK_LENGTH``);
* two right answers in a row: level + 1; two wrong answers in a row: level - 1; after a
  change the streak starts again, empty;
* a wrong answer puts the question's concept in ``to_review``; a right one takes it out.
"""

from __future__ import annotations

import copy
from typing import Any, Optional

from google.adk.tools import ToolContext

from .questions import TOPICS, max_level, pick_question, question_by_id

PROGRESSION_KEY = "user:progression"
CURRENT_QUESTION_KEY = "current_question"
STREAK_LENGTH = 3


def new_entry() -> dict[str, Any]:
  """A topic the student has never answered a question about."""
  return {"level": 1, "streak": [], "right": 0, "total": 0, "to_review": []}


def apply_answer(entry: Optional[dict[str, Any]], correct: bool, concept: str = "",
                 top_level: int = 1) -> tuple[dict[str, Any], int]:
  """One answer applied to one topic's entry: returns (new entry, level change -1/0/+1).

  Pure (the input is not modified), so the rules can be tested without ADK.
  """
  entry = copy.deepcopy(entry) if entry else new_entry()
  entry["total"] += 1
  entry["right"] += 1 if correct else 0
  entry["streak"] = (list(entry["streak"]) + [bool(correct)])[-STREAK_LENGTH:]
  to_review = [c for c in entry["to_review"] if c != concept]
  if concept and not correct:
    to_review.append(concept)
  entry["to_review"] = to_review
  change = 0
  last_two = entry["streak"][-2:]
  if last_two == [True, True] and entry["level"] < top_level:
    change = 1
  elif last_two == [False, False] and entry["level"] > 1:
    change = -1
  if change:
    entry["level"] += change
    entry["streak"] = []
  return entry, change


def _progression(tool_context: ToolContext) -> dict[str, Any]:
  """A copy of the stored progression: changes reach storage only through a state write."""
  value = tool_context.state.get(PROGRESSION_KEY)
  return copy.deepcopy(value) if isinstance(value, dict) else {}


def _unknown_topic(topic: str) -> dict[str, Any]:
  return {"error": f"I have no questions about {topic!r}. Topics: {', '.join(TOPICS)}."}


def ask_question(tool_context: ToolContext, topic: str) -> dict:
  """Gets the next question for the student on a topic, at the student's current level.

  Use this tool when the student asks to be quizzed or wants another question. Ask the
  returned question word for word, and do not reveal the expected answer.

  Args:
    tool_context: Provided automatically by ADK.
    topic: The topic to ask about, e.g. "python" or "sql".
  """
  topic = topic.lower().strip()
  if topic not in TOPICS:
    return _unknown_topic(topic)
  entry = _progression(tool_context).get(topic) or new_entry()
  question = pick_question(topic, entry["level"], entry["total"])
  tool_context.state[CURRENT_QUESTION_KEY] = {"topic": topic, "question_id": question.id}
  return {"topic": topic, "level": question.level, "question_id": question.id,
          "question": question.text, "concept": question.concept,
          "expected_answer": question.answers[0]}


def record_answer(tool_context: ToolContext, topic: str, correct: bool,
                  concept: str = "") -> dict:
  """Records whether the student's answer to the current question was right.

  Use this tool after the student answers the question you asked: judge the answer against
  the expected answer from ask_question, then call this tool once.

  Args:
    tool_context: Provided automatically by ADK.
    topic: The topic of the question, e.g. "python". The answer is always recorded on the
      topic of the question waiting for an answer; a different topic is reported in "note".
    correct: True when the student's answer is right.
    concept: The concept the question tests (from ask_question), to review when wrong.
  """
  pending = tool_context.state.get(CURRENT_QUESTION_KEY)
  if not pending:
    return {"error": "No question is waiting for an answer in this conversation. "
                     "Ask for one first, e.g. 'quiz me on python'."}
  # The pending question decides the topic, not the model: a model that names another topic
  # (or none) must not move the student's level in a topic they were not asked about.
  asked_topic = (topic or "").lower().strip()
  topic = pending["topic"]
  question = question_by_id(pending["question_id"])
  concept = concept or (question.concept if question else "")
  progression = _progression(tool_context)
  entry, change = apply_answer(progression.get(topic), correct, concept, max_level(topic))
  progression[topic] = entry
  tool_context.state[PROGRESSION_KEY] = progression
  tool_context.state[CURRENT_QUESTION_KEY] = None
  result = {"topic": topic, "correct": bool(correct),
            "expected_answer": question.answers[0] if question else "",
            "level": entry["level"], "level_change": change, "streak": entry["streak"],
            "right": entry["right"], "total": entry["total"], "to_review": entry["to_review"]}
  if asked_topic and asked_topic != topic:
    result["note"] = (f"recorded on {topic!r}, the topic of the question waiting for an answer, "
                      f"not on {asked_topic!r}")
  return result
