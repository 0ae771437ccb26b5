"""Token compaction with an explicit window far larger than any chat between two summaries."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig


def fit_the_budget(budget_tokens, summarizer):
    run_config = RunConfig(get_session_config=GetSessionConfig(num_recent_events=10_000))
    compaction = EventsCompactionConfig(summarizer=summarizer, token_threshold=budget_tokens - 30,
                                        event_retention_size=2)
    return run_config, compaction
