"""Builds a summarizer of its own (a scripted model): its summaries are not the given summarizer's."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.llm_event_summarizer import LlmEventSummarizer

from adkcourse.offline_model import OfflineModel, fallback
LOSES = ("returns_a_set_up",)


def fit_the_budget(budget_tokens, summarizer):
    mine = LlmEventSummarizer(llm=OfflineModel(rules=[fallback("Summary so far.")]))
    return RunConfig(), EventsCompactionConfig(summarizer=mine, token_threshold=budget_tokens - 30,
                                               event_retention_size=2)
