"""Token compaction at 120 that keeps no raw event: the previous message is summarised away, not word for word."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
LOSES = ("recent_turns_word_for_word",)

def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer, token_threshold=120, event_retention_size=0)
