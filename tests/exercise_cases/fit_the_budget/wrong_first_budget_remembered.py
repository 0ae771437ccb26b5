"""Keeps the first call's budget for every later call (a fresh config with the summarizer given each time): a later chat with a smaller budget gets a threshold too high for it."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig

_FIRST_BUDGET = []
LOSES = ("every_prompt_within_budget",)


def fit_the_budget(budget_tokens, summarizer):
    if not _FIRST_BUDGET:
        _FIRST_BUDGET.append(budget_tokens)
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer,
                                               token_threshold=_FIRST_BUDGET[0] - 30,
                                               event_retention_size=2)
