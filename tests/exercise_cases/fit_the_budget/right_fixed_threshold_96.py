r"""Right, without reading the budget: a threshold of 96 fits the smallest budget the
contract allows (96 + 30 <= 130), and a request right after a summary is at most 95 tokens."""
from __future__ import annotations

from typing import Optional

from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.base_events_summarizer import BaseEventsSummarizer


def fit_the_budget(budget_tokens: int, summarizer: BaseEventsSummarizer
                   ) -> tuple[RunConfig, Optional[EventsCompactionConfig]]:
  # A window alone drops the allergy; the lesson's interval piles summaries up; the default
  # grows without bound. 100 + 30 <= 130 <= any budget allowed.
  return RunConfig(), EventsCompactionConfig(summarizer=summarizer, token_threshold=96,
                                             event_retention_size=2)
