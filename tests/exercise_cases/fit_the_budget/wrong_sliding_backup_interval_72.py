"""Token threshold plus a sliding-window backup every 72 turns: the shortest turns at budget 600 go 72 turns without a token summary, so the backup summarises turn 72 and turn 73 misses it word for word."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
LOSES = ("recent_turns_word_for_word",)


def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer,
                                               token_threshold=budget_tokens - 30,
                                               event_retention_size=2,
                                               compaction_interval=72, overlap_size=3)
