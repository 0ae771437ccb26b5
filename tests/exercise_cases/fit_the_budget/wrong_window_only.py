"""A window of 8 events stays small but drops the allergy stated in turn 1."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig
LOSES = ("allergy_still_reaches_the_model",)

def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(get_session_config=GetSessionConfig(num_recent_events=8)), None
