"""Compaction every 6 invocations without overlap: six raw turns already pass a tight budget, and the summaries pile up."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig
LOSES = ("every_prompt_within_budget",)


def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer, compaction_interval=6, overlap_size=0)
