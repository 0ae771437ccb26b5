"""Exercise (lesson 6, long conversations): a compaction set-up for a prompt budget.

A barista agent chats with a customer. In turn 1 the customer states an allergy; every later
turn orders something. Write

    def fit_the_budget(budget_tokens: int, summarizer: BaseEventsSummarizer)
        -> tuple[RunConfig, Optional[EventsCompactionConfig]]

which returns the ``RunConfig`` every turn runs with and the ``EventsCompactionConfig`` of the
agent's ``App`` (``None``: no compaction), for any ``budget_tokens`` from 130 to 600 and a
chat of any length, sizes and times within the bounds below (the checks play chats of 3 to 76
turns at budgets across that whole range, the longest of the shortest turns at budget 600:
more turns and events than any chat can hold between two summaries; each chat with a set-up
of its own call, every call made before any chat is played).
On every turn, with your set-up:

1. every model request, the barista's and the summarizer's, stays within ``budget_tokens``
   (estimated as ``estimate_tokens`` does: every character of the request, instruction
   included, divided by 4, plus 1);
2. the allergy from turn 1 reaches the barista in every later turn;
3. the customer's previous message and the new one reach the barista word for word;
4. summaries cost at most one model call per two turns: by the end of turn t (before the
   barista receives turn t + 1), at most t // 2 summaries, so none in turn 1;
5. compaction summarises with the ``summarizer`` given, never with the barista's own model or
   a summarizer of your own: on every turn the barista receives summaries written by the
   ``summarizer`` given, then the chat's events from some point on, word for word and in
   order, and nothing else; every event it no longer receives word for word was sent to the
   ``summarizer`` given for a summary it receives (directly, or within an earlier summary
   that one was written from).

What you can count on:

- the system instruction the barista's model receives is 99 characters (the agent's own 47,
  and the 52 with which ADK names the agent); the barista has no tools: a turn stores two
  events, the customer's message (20 to 80 characters) and the barista's reply (10 to 40),
  so one turn adds 7.5 to 30 estimated tokens to the next request;
- a chat's turns come seconds to days apart, and a chat may have begun years before your
  set-up was made (resumed after the app restarted): its events carry the times they
  happened;
- the ``summarizer`` given keeps every sentence about an allergy, in a summary of 30 to 80
  characters. It sends its model a 28-character prompt followed by the text of each event
  it summarises (an earlier summary included), and nothing else: a summary of events the
  barista has already received costs less than the barista's request that received them.

In a comment, justify your choice in a sentence: why not a window alone, why not the
lesson's sliding-window interval, why not the default?

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
  ### HINT: Return (RunConfig(...), EventsCompactionConfig(...) or None) such that on every turn
  ### HINT: every request of both models stays within the budget, the turn-1 allergy reaches the
  ### HINT: barista, the previous and the new message arrive word for word, and summaries cost at
  ### HINT: most one model call per two turns.
  ### BEGIN SOLUTION
  # A window alone drops turn 1's allergy; the default grows past any budget; sliding-window
  # summaries are never replaced, so they pile up in a long chat. A token threshold replaces
  # the previous summary each time (the new one starts from it, so the allergy stays).
  # It must leave room for the turn that crosses it: that turn adds at most 30 tokens, so
  # the largest request is below threshold + 30 = budget. Keeping the 2 newest events raw
  # keeps the previous message (a turn is 2 events). Right after a summary the request is
  # at most (99 + 80 + 80 + 40 + 80) / 4 + 1 = 95 tokens, below the smallest threshold (100):
  # the next turn does not summarise again. The summarizer is sent less than the barista's
  # request that crossed the threshold, so it fits too.
  compaction = EventsCompactionConfig(summarizer=summarizer,
                                      token_threshold=budget_tokens - 30,
                                      event_retention_size=2)
  return RunConfig(), compaction
  ### END SOLUTION
