"""Token threshold plus a window of 100 events: a chat of short turns passes 50 turns without a summary, and turn 1 falls out of the window."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig
LOSES = ("allergy_still_reaches_the_model",)


def fit_the_budget(budget_tokens, summarizer):
    run_config = RunConfig(get_session_config=GetSessionConfig(num_recent_events=100))
    return run_config, EventsCompactionConfig(summarizer=summarizer,
                                              token_threshold=budget_tokens - 30,
                                              event_retention_size=2)
