r"""Builds its own LlmEventSummarizer on the given summarizer's model with a prompt
of its own: not the summarizer given (rule 5), only its model."""
from __future__ import annotations

from typing import Optional

from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.base_events_summarizer import BaseEventsSummarizer

from google.adk.apps.llm_event_summarizer import LlmEventSummarizer

LOSES = ('returns_a_set_up',)


def fit_the_budget(budget_tokens: int, summarizer: BaseEventsSummarizer
                   ) -> tuple[RunConfig, Optional[EventsCompactionConfig]]:
  mine = LlmEventSummarizer(llm=summarizer._llm, prompt_template="Summary:\n{conversation_history}")
  return RunConfig(), EventsCompactionConfig(summarizer=mine, token_threshold=budget_tokens - 50,
                                             event_retention_size=2)
