"""Threshold budget - 30 below 300 but budget - 27 above: from 300 up the turn that crosses it can end 2 tokens over."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
LOSES = ("every_prompt_within_budget",)


def fit_the_budget(budget_tokens, summarizer):
    # Larger budgets "need less margin": they do not, a turn still adds up to 30 tokens.
    room = 30 if budget_tokens < 300 else 27
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer, token_threshold=budget_tokens - room,
                                               event_retention_size=2)
