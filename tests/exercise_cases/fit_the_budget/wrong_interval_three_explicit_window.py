"""The old reference (interval 3, overlap 1) with a generous window: overlapping summaries all stay and grow past the budget at 36 turns."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig
LOSES = ("every_prompt_within_budget",)


def fit_the_budget(budget_tokens, summarizer):
    run_config = RunConfig(get_session_config=GetSessionConfig(num_recent_events=10_000))
    return run_config, EventsCompactionConfig(summarizer=summarizer, compaction_interval=3, overlap_size=1)
