"""A window of 10 events on top of a fixed token threshold of 100 keeping 4 events: with long turns a summary on almost every turn."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig
LOSES = ("summaries_are_affordable",)

def fit_the_budget(budget_tokens, summarizer):
    return (RunConfig(get_session_config=GetSessionConfig(num_recent_events=10)),
            EventsCompactionConfig(summarizer=summarizer, token_threshold=100, event_retention_size=4))
