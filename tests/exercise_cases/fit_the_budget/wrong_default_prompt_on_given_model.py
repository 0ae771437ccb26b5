"""Rebuilds an LlmEventSummarizer on the given summarizer's model: ADK's long default prompt passes tight budgets."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.llm_event_summarizer import LlmEventSummarizer
LOSES = ("every_prompt_within_budget",)


def fit_the_budget(budget_tokens, summarizer):
    rebuilt = LlmEventSummarizer(llm=summarizer._llm)
    return RunConfig(), EventsCompactionConfig(summarizer=rebuilt, token_threshold=budget_tokens - 30,
                                               event_retention_size=2)
