"""Keeps 6 raw events (3 turns): at a tight budget what is left after a summary crosses the threshold again, summaries pile on."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig
LOSES = ("summaries_are_affordable",)


def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer, token_threshold=budget_tokens - 30,
                                               event_retention_size=6)
