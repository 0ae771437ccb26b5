"""Threshold budget - 28 only for budgets above 450 (budget - 30 below): the largest budgets overflow by 2 tokens."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
LOSES = ("every_prompt_within_budget",)


def fit_the_budget(budget_tokens, summarizer):
    threshold = budget_tokens - (28 if budget_tokens > 450 else 30)
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer, token_threshold=threshold,
                                               event_retention_size=2)
