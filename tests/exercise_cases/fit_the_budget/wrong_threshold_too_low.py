"""A fixed token threshold of 100 keeping 4 events: with long turns what is left after a summary triggers the next, too many model calls."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig
LOSES = ("summaries_are_affordable",)

def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer, token_threshold=100, event_retention_size=4)
