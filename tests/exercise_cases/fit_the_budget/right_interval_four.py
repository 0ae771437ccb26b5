"""Sliding-window compaction every 4 invocations with no overlap: fewer, larger summaries."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig


def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer, compaction_interval=4, overlap_size=0)
