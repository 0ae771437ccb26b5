r"""Right, at the exact bound: a request under budget - 29 plus one turn (30 tokens)
is at most the budget."""
from __future__ import annotations

from typing import Optional

from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.base_events_summarizer import BaseEventsSummarizer


def fit_the_budget(budget_tokens: int, summarizer: BaseEventsSummarizer
                   ) -> tuple[RunConfig, Optional[EventsCompactionConfig]]:
  # Why not a window alone / the sliding interval / the default: see the lesson.
  return RunConfig(), EventsCompactionConfig(summarizer=summarizer,
                                             token_threshold=budget_tokens - 29,
                                             event_retention_size=2)
