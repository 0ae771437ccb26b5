r"""Wraps the summarizer given and leaves the previous summary out of what it is sent
('summarise only the new events, it is cheaper'): no summary then replaces the one before, so
they pile up past the budget (and cost a call every turn at tight budgets)."""
from __future__ import annotations

from typing import Optional

from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.base_events_summarizer import BaseEventsSummarizer


class NewOnly(BaseEventsSummarizer):
  def __init__(self, inner):
    self.inner = inner

  async def maybe_summarize_events(self, *, events):
    fresh = [e for e in events if e.author != "model"]  # the seed ADK adds is authored 'model'
    return await self.inner.maybe_summarize_events(events=fresh or events)

LOSES = ('every_prompt_within_budget',)


def fit_the_budget(budget_tokens: int, summarizer: BaseEventsSummarizer
                   ) -> tuple[RunConfig, Optional[EventsCompactionConfig]]:
  return RunConfig(), EventsCompactionConfig(summarizer=NewOnly(summarizer),
                                             token_threshold=budget_tokens - 30,
                                             event_retention_size=2)
