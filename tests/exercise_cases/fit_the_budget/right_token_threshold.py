"""Token-threshold compaction at 150 estimated tokens, keeping the 2 newest events raw: few, timely summaries."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig


def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer, token_threshold=150, event_retention_size=2)
