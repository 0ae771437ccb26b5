"""Token compaction behind a window of 120 events: a chat of short turns reaches the threshold only after 73 turns (146 events), so the window drops turn 1 before any summary."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig
LOSES = ("allergy_still_reaches_the_model", "returns_a_set_up")


def fit_the_budget(budget_tokens, summarizer):
    run_config = RunConfig(get_session_config=GetSessionConfig(num_recent_events=120))
    return run_config, EventsCompactionConfig(summarizer=summarizer,
                                              token_threshold=budget_tokens - 30,
                                              event_retention_size=2)
