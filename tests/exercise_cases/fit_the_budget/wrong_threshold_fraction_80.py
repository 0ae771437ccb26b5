r"""Token threshold at 80% of the budget: at budgets under 150 the turn crossing it
ends over the budget."""
from __future__ import annotations

from typing import Optional

from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.base_events_summarizer import BaseEventsSummarizer

LOSES = ('every_prompt_within_budget',)


def fit_the_budget(budget_tokens: int, summarizer: BaseEventsSummarizer
                   ) -> tuple[RunConfig, Optional[EventsCompactionConfig]]:
  return RunConfig(), EventsCompactionConfig(summarizer=summarizer,
                                             token_threshold=int(budget_tokens * 0.8),
                                             event_retention_size=2)
