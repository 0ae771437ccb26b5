"""Interval 3 with no overlap (the issue): one summary per 3 turns that nothing replaces, so 60 turns carry 20 of them."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig
LOSES = ("every_prompt_within_budget",)


def fit_the_budget(budget_tokens, summarizer):
    settings = {"summarizer": summarizer, "compaction_interval": 3, "overlap_size": 0}
    return (RunConfig(), EventsCompactionConfig(**settings))
