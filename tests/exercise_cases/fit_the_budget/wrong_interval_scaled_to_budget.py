"""A sliding-window interval scaled to the budget: it reads budget_tokens, but its summaries still pile up in a long chat."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig
LOSES = ("every_prompt_within_budget",)


def fit_the_budget(budget_tokens, summarizer):
    interval = max(2, budget_tokens // 50)
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer, compaction_interval=interval, overlap_size=0)
