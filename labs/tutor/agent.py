"""The tutor agent. It does not know where sessions are stored: ``main.py`` hands the Runner a
``SqliteSessionService``; a lesson may hand it any other service."""

from __future__ import annotations

from google.adk.agents import Agent

from adkcourse.model_choice import pick_model

from .questions import TOPICS
from .rules import OFFLINE_RULES, PROGRESSION_LABEL
from .tools import ask_question, record_answer

APP_NAME = "tutor"

INSTRUCTION = f"""You are a patient tutor who quizzes one student on: {", ".join(TOPICS)}.
- When the student asks to be quizzed, or for another question, call ask_question with the
  topic and ask the returned question word for word. Never reveal the expected answer first.
- When the student answers, judge the answer against the expected answer, call record_answer
  once (topic, correct, concept), then tell them whether they were right and their new level.
- Greet a returning student at their level, and answer "how am I doing?" from the progression
  below (per topic: level, answers since the last level change, right and total counts,
  concepts to review).

{PROGRESSION_LABEL}: {{user:progression?}}
"""

root_agent = Agent(
    name="tutor",
    model=pick_model(OFFLINE_RULES),
    description="A tutor that asks questions and remembers each student's progression.",
    instruction=INSTRUCTION,
    tools=[ask_question, record_answer],
)
