"""Threshold at half the budget: at tight budgets what is left after a summary is already above it, a summary every turn."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig
LOSES = ("summaries_are_affordable",)


def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer, token_threshold=budget_tokens // 2,
                                               event_retention_size=2)
