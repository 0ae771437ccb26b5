r"""No compaction when the budget holds 17 full turns ('a big budget fits any chat'):
a chat longer than that goes over budget (budget >= 535 with 20+ turns)."""
from __future__ import annotations

from typing import Optional

from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.base_events_summarizer import BaseEventsSummarizer

LOSES = ('every_prompt_within_budget',)


def fit_the_budget(budget_tokens: int, summarizer: BaseEventsSummarizer
                   ) -> tuple[RunConfig, Optional[EventsCompactionConfig]]:
  if (budget_tokens - 25) // 30 >= 17:  # 17 full turns fit: no need to summarise
    return RunConfig(), None
  return RunConfig(), EventsCompactionConfig(summarizer=summarizer,
                                             token_threshold=budget_tokens - 30,
                                             event_retention_size=2)
