"""Exercise (lesson 6, long conversations): a window or compaction set-up for a prompt budget.

A barista agent chats with a customer for 24 turns. In turn 1 the customer states an allergy;
every later turn orders a drink for a table. Write

    def fit_the_budget(budget_tokens: int, summarizer: BaseEventsSummarizer)
        -> tuple[RunConfig, Optional[EventsCompactionConfig]]

which returns the ``RunConfig`` every turn runs with and the ``EventsCompactionConfig`` of the
agent's ``App`` (``None``: no compaction). With your set-up:

1. every model request stays within ``budget_tokens`` (estimated: characters / 4, instruction
   included; the checks use a budget of 180);
2. the allergy from turn 1 still reaches the model in the last turn;
3. the last two user messages reach the model word for word;
4. summaries cost at most one model call per two turns;
5. compaction, if you use it, summarises with the ``summarizer`` given (a scripted model that
   keeps what the customer said about allergies).

In a comment, justify your choice in a sentence: why not a window alone, why not the default?

Check yourself in a notebook:

    from adkcourse.grade import run_exercise_checks
    report = await run_exercise_checks("fit_the_budget", fit_the_budget)
    report   # score, what happened, and every check's feedback
"""

from __future__ import annotations

from typing import Optional

from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.base_events_summarizer import BaseEventsSummarizer
from google.adk.sessions.base_session_service import GetSessionConfig  # noqa: F401 - for a window


def fit_the_budget(budget_tokens: int,
                   summarizer: BaseEventsSummarizer) -> tuple[RunConfig, Optional[EventsCompactionConfig]]:
  """The RunConfig of every turn and the App's compaction set-up, for a prompt budget."""
  ### HINT: Return (RunConfig(...), EventsCompactionConfig(...) or None) such that every request
  ### HINT: stays within the budget, the turn-1 allergy still reaches the model in the last turn,
  ### HINT: the last two messages arrive word for word, and summaries cost at most one model call
  ### HINT: per two turns.
  ### BEGIN SOLUTION
  # A window alone drops turn 1's allergy; the default grows past any budget. Summaries replace
  # older turns (the given summarizer keeps the allergy): every 3 invocations, overlapping by 1.
  compaction = EventsCompactionConfig(summarizer=summarizer, compaction_interval=3, overlap_size=1)
  return RunConfig(), compaction
  ### END SOLUTION
