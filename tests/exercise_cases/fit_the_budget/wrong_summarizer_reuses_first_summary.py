r"""Wraps the summarizer given but calls it only once: every later compaction re-uses
that first summary without summarising (saves model calls; rule 5 broken from then on)."""
from __future__ import annotations

from typing import Optional

from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.base_events_summarizer import BaseEventsSummarizer


class OnceSummarizer(BaseEventsSummarizer):
  def __init__(self, inner):
    self.inner, self.first = inner, None

  async def maybe_summarize_events(self, *, events):
    if self.first is None:
      self.first = await self.inner.maybe_summarize_events(events=events)
      return self.first
    compaction = self.first.actions.compaction.model_copy(update={
        "start_timestamp": events[0].timestamp, "end_timestamp": events[-1].timestamp})
    return self.first.model_copy(update={
        "id": "", "actions": self.first.actions.model_copy(update={"compaction": compaction})})

LOSES = ('returns_a_set_up',)


def fit_the_budget(budget_tokens: int, summarizer: BaseEventsSummarizer
                   ) -> tuple[RunConfig, Optional[EventsCompactionConfig]]:
  return RunConfig(), EventsCompactionConfig(summarizer=OnceSummarizer(summarizer),
                                             token_threshold=budget_tokens - 30,
                                             event_retention_size=2)
