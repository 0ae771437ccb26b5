"""The default loads and sends every event: the prompt grows past the budget."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig
LOSES = ("every_prompt_within_budget",)

def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(), None
