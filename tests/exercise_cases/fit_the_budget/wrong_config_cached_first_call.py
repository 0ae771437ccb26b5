r"""Builds the set-up once and returns it on every later call (module-level cache): the
first budget (and the first summarizer) is used for every budget after it."""
from __future__ import annotations

from typing import Optional

from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.base_events_summarizer import BaseEventsSummarizer

_SETUP = None

LOSES = ('returns_a_set_up',)


def fit_the_budget(budget_tokens: int, summarizer: BaseEventsSummarizer
                   ) -> tuple[RunConfig, Optional[EventsCompactionConfig]]:
  global _SETUP
  if _SETUP is None:
    _SETUP = (RunConfig(), EventsCompactionConfig(summarizer=summarizer,
                                                  token_threshold=budget_tokens - 30,
                                                  event_retention_size=2))
  return _SETUP
