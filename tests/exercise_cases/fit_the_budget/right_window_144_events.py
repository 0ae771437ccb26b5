"""A window of exactly the 144 events that a threshold of budget - 30 can need: no chat within the contract's sizes holds more between two summaries, so it never drops anything."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig


def fit_the_budget(budget_tokens, summarizer):
    run_config = RunConfig(get_session_config=GetSessionConfig(num_recent_events=144))
    return run_config, EventsCompactionConfig(summarizer=summarizer,
                                              token_threshold=budget_tokens - 30,
                                              event_retention_size=2)
