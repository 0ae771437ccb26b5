"""Token threshold plus a sliding-window backup every 60 turns, with an overlap: never due in a chat of 60 turns, but a longer one of short turns reaches it before any token summary."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
LOSES = ("recent_turns_word_for_word",)


def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer,
                                               token_threshold=budget_tokens - 30,
                                               event_retention_size=2,
                                               compaction_interval=60, overlap_size=1)
