"""Threshold at 90% of the budget: below a budget of 290 that leaves less than the 29 tokens of room a turn needs."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
LOSES = ("every_prompt_within_budget",)


def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer,
                                               token_threshold=budget_tokens * 9 // 10,
                                               event_retention_size=2)
