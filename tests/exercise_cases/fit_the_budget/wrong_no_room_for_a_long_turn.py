"""Threshold 10 tokens below the budget: a turn adds up to 30, so the request that crosses the threshold can pass the budget."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig
LOSES = ("every_prompt_within_budget",)


def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer, token_threshold=budget_tokens - 10,
                                               event_retention_size=2)
