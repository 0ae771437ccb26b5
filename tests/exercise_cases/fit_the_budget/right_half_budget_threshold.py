r"""Right, with a lower trigger: max(100, budget // 2), summarising earlier than needed
at large budgets."""
from __future__ import annotations

from typing import Optional

from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.base_events_summarizer import BaseEventsSummarizer


def fit_the_budget(budget_tokens: int, summarizer: BaseEventsSummarizer
                   ) -> tuple[RunConfig, Optional[EventsCompactionConfig]]:
  return RunConfig(), EventsCompactionConfig(summarizer=summarizer,
                                             token_threshold=max(100, budget_tokens // 2),
                                             event_retention_size=2)
