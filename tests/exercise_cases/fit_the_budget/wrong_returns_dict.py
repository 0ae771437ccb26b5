"""Returns a dict instead of the (RunConfig, EventsCompactionConfig) tuple of the contract."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig
LOSES = ("returns_a_set_up",)

def fit_the_budget(budget_tokens, summarizer):
    return {"run_config": RunConfig(), "compaction": EventsCompactionConfig(summarizer=summarizer, compaction_interval=3, overlap_size=1)}
