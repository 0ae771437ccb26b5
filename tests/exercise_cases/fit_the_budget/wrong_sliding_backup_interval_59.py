"""Token threshold plus a sliding-window backup every 59 turns: in a 60-turn chat that never nears the budget, turn 60 misses turn 59 word for word."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
LOSES = ("recent_turns_word_for_word",)


def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer,
                                               token_threshold=budget_tokens - 30,
                                               event_retention_size=2,
                                               compaction_interval=59, overlap_size=0)
