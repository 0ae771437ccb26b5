"""What the offline model does for the tutor (used only when no Gemini key is set).

The rules cover a whole short tutoring session: a greeting that knows the student's level,
"quiz me on python" / "next" (calls ``ask_question``), an answer (judged here, then
``record_answer``; with no question waiting, a reply saying so and no tool call), "how am I
doing?", "what did we talk about?" and "bye".

They read only what a real model would see in its request:

* the student's level and scores come from the system instruction, where ADK has filled in
  ``{user:progression?}``; so a brand-new session greets a returning student at their level;
* the question waiting for an answer comes from the conversation history (the last
  ``ask_question`` result, which carries the question id); a new session has no history, so
  an answer typed there cannot be judged, while a resumed session can.
"""

from __future__ import annotations

import ast
import re
from typing import Any, Optional

from google.genai import types

from adkcourse.offline_model import Turn, fallback, on_tool, on_user

from .questions import TOPICS, is_correct, question_by_id

PROGRESSION_LABEL = "Student's progression"


# --- reading the request -------------------------------------------------------------------

def progression_from_instruction(turn: Turn) -> dict[str, Any]:
  """The ``user:progression`` value ADK injected into the instruction ({} when empty)."""
  found = re.search(rf"^{re.escape(PROGRESSION_LABEL)}:[ \t]*(.*)$", turn.instruction,
                    re.MULTILINE)
  if not found or not found.group(1).strip():
    return {}
  try:
    value = ast.literal_eval(found.group(1).strip())
  except (ValueError, SyntaxError):
    return {}
  return value if isinstance(value, dict) else {}


def _parts(turn: Turn) -> list[types.Part]:
  return [part for content in turn.request.contents for part in content.parts or []]


def pending_question(turn: Turn) -> Optional[dict[str, Any]]:
  """The latest ``ask_question`` result in the history, unless it was already answered."""
  for part in reversed(_parts(turn)):
    response = part.function_response
    if response is None:
      continue
    if response.name == "record_answer" and "error" not in (response.response or {}):
      return None
    if response.name == "ask_question" and "question_id" in (response.response or {}):
      return dict(response.response)
  return None


def _last_topic(turn: Turn) -> Optional[str]:
  for part in reversed(_parts(turn)):
    response = part.function_response
    if response is not None and response.name == "ask_question":
      topic = (response.response or {}).get("topic")
      if topic:
        return topic
  return None


def earlier_user_messages(turn: Turn) -> list[str]:
  """The student's earlier texts in this conversation (the current one excluded)."""
  texts = []
  for content in turn.request.contents:
    if content.role != "user":
      continue
    text = " ".join(p.text for p in content.parts or [] if p.text)
    if text:
      texts.append(text)
  return texts[:-1]


# --- arguments for tool calls ----------------------------------------------------------------

def quiz_topic(match: re.Match[str], turn: Turn) -> dict:
  """The topic named in the message, else the topic of the last question, else python."""
  named = re.search(rf"\b({'|'.join(TOPICS)})\b", turn.user_text, re.IGNORECASE)
  topic = named.group(1).lower() if named else _last_topic(turn) or "python"
  return {"topic": topic}


def question_waiting(turn: Turn) -> bool:
  """True when the history holds a question that has not been answered yet."""
  pending = pending_question(turn)
  return pending is not None and question_by_id(pending["question_id"]) is not None


def judged_answer(match: re.Match[str], turn: Turn) -> dict:
  """Judge the student's text against the pending question's accepted answers (the rule
  runs only when ``question_waiting``)."""
  question = question_by_id(pending_question(turn)["question_id"])
  return {"topic": question.topic, "correct": is_correct(question, turn.user_text),
          "concept": question.concept}


# --- replies ---------------------------------------------------------------------------------

def _topic_line(topic: str, entry: dict[str, Any]) -> str:
  review = ", ".join(entry.get("to_review") or []) or "nothing"
  streak = " ".join("right" if ok else "wrong" for ok in entry.get("streak") or []) or "none"
  return (f"{topic}: level {entry.get('level', 1)}, {entry.get('right', 0)} of "
          f"{entry.get('total', 0)} right; answers at this level: {streak}; "
          f"to review: {review}.")


def greeting(turn: Turn) -> str:
  progression = progression_from_instruction(turn)
  hello = "Hello, I'm your tutor for " + " and ".join(TOPICS) + "."
  if not progression:
    return (f"{hello} This is our first lesson together: say 'quiz me on python' "
            "(or sql) to start at level 1.")
  levels = ", ".join(f"level {entry.get('level', 1)} in {topic}"
                     for topic, entry in progression.items())
  return f"{hello} Welcome back: you are at {levels}. Say 'quiz me' to continue."


def progress_report(turn: Turn) -> str:
  progression = progression_from_instruction(turn)
  if not progression:
    return "You haven't answered any question yet: say 'quiz me on python' to start."
  return "Your progress: " + " ".join(_topic_line(t, e) for t, e in progression.items())


def history_reply(turn: Turn) -> str:
  earlier = earlier_user_messages(turn)
  if not earlier:
    return ("This conversation has no earlier messages: it is a new session. What I know "
            "about your level comes from your saved progression, not from our past chats.")
  return (f"I can see {len(earlier)} earlier messages from you in this conversation, "
          f"from {earlier[0]!r} to {earlier[-1]!r}.")


def nothing_to_judge(turn: Turn) -> str:
  """An answer typed when no question is waiting: say so, without calling record_answer.

  Built from the request: the history has no unanswered question (a new session has no
  history at all), while the level still comes from the injected progression.
  """
  progression = progression_from_instruction(turn)
  text = ("No question is waiting for an answer in this conversation, so I cannot judge "
          f"{turn.user_text.strip()!r}.")
  if not earlier_user_messages(turn):
    text += " This is a new session: it has no earlier messages."
  if progression:
    levels = ", ".join(f"level {entry.get('level', 1)} in {topic}"
                       for topic, entry in progression.items())
    text += f" You are at {levels}: say 'quiz me' for a question at your level."
  else:
    text += " Say 'quiz me on python' (or sql) to get one."
  return text


def goodbye(turn: Turn) -> str:
  return "Goodbye! Your progression is saved; see you next time."


def question_reply(turn: Turn) -> str:
  result = turn.result
  if "error" in result:
    return f"Sorry: {result['error']}"
  return f"{result['topic']}, level {result['level']}: {result['question']}"


def answer_reply(turn: Turn) -> str:
  result = turn.result
  if "error" in result:
    return result["error"]
  topic = result["topic"]
  if result["correct"]:
    text = f"Correct ({result['expected_answer']})!"
  else:
    text = (f"Not quite: the expected answer is {result['expected_answer']!r}. "
            f"To review: {', '.join(result['to_review'])}.")
  if result["level_change"] > 0:
    text += f" Two right in a row: you move up to level {result['level']} in {topic}!"
  elif result["level_change"] < 0:
    text += f" Two misses in a row: back to level {result['level']} in {topic}."
  return f"{text} Score in {topic}: {result['right']}/{result['total']}. Say 'next' for more."


OFFLINE_RULES = [
    on_user(r"^\s*(?:bye|goodbye|see you|thanks|thank you)\W*$", reply=goodbye),
    on_user(r"\bwhat (?:did|have) we\b|\bhistory\b|\bearlier\b", reply=history_reply),
    on_user(r"\bhow am i doing\b|\bmy progress\b|\bmy level\b", reply=progress_report),
    on_user(r"\b(?:quiz|test|ask) me\b|^\s*(?:next|another|more)\b|\bnext question\b",
            call="ask_question", args=quiz_topic),
    on_user(r"^\s*(?:hi|hello|hey|good (?:morning|afternoon|evening))\b", reply=greeting),
    on_user(r"\S", call="record_answer", args=judged_answer, when=question_waiting),
    on_user(r"\S", reply=nothing_to_judge),
    on_tool("ask_question", reply=question_reply),
    on_tool("record_answer", reply=answer_reply),
    fallback(greeting),
]
