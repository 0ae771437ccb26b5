"""Sliding window with an overlap reaching back to turn 1: each summary replaces the last, but the summarizer is sent the whole chat."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig
LOSES = ("every_prompt_within_budget",)


def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer, compaction_interval=2, overlap_size=1000)
