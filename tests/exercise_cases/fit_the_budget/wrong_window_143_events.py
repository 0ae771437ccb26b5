"""A window of 143 events, one short of what a threshold of budget - 30 needs: at budget 600 the shortest turns first reach it in turn 73, which must still see the 144 events of turns 1-72."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig
LOSES = ("allergy_still_reaches_the_model",)


def fit_the_budget(budget_tokens, summarizer):
    run_config = RunConfig(get_session_config=GetSessionConfig(num_recent_events=143))
    return run_config, EventsCompactionConfig(summarizer=summarizer,
                                              token_threshold=budget_tokens - 30,
                                              event_retention_size=2)
