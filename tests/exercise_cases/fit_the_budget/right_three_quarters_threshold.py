"""A threshold at three quarters of the budget: at least 30 tokens of room from 130 up, and never below 97 tokens."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig


def fit_the_budget(budget_tokens, summarizer):
    threshold = int(budget_tokens * 0.75)
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer, token_threshold=threshold,
                                               event_retention_size=2)
