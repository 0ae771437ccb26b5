r"""Token threshold budget - 28: a turn adds up to 30 tokens, so the turn that
crosses the threshold can end 2 token(s) over the budget (off by a few)."""
from __future__ import annotations

from typing import Optional

from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.base_events_summarizer import BaseEventsSummarizer

LOSES = ('every_prompt_within_budget',)


def fit_the_budget(budget_tokens: int, summarizer: BaseEventsSummarizer
                   ) -> tuple[RunConfig, Optional[EventsCompactionConfig]]:
  return RunConfig(), EventsCompactionConfig(summarizer=summarizer,
                                             token_threshold=budget_tokens - 28,
                                             event_retention_size=2)
