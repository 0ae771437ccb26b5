r"""Keeps 3 raw events: right after a summary the request can still be above a tight
threshold, so the next turn summarises again (one summary per turn at budget ~130)."""
from __future__ import annotations

from typing import Optional

from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.base_events_summarizer import BaseEventsSummarizer

LOSES = ('summaries_are_affordable',)


def fit_the_budget(budget_tokens: int, summarizer: BaseEventsSummarizer
                   ) -> tuple[RunConfig, Optional[EventsCompactionConfig]]:
  return RunConfig(), EventsCompactionConfig(summarizer=summarizer,
                                             token_threshold=budget_tokens - 30,
                                             event_retention_size=3)
