"""Sliding-window compaction every 4 invocations: summaries are never replaced, so they pile up past a tight budget in a long chat."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig
LOSES = ("every_prompt_within_budget",)


def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer, compaction_interval=4, overlap_size=0)
