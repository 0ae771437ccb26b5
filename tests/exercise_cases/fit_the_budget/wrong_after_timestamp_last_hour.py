"""Token compaction plus a time window (events of the hour before the set-up): a chat begun earlier, resumed now, loses its turn 1 and every event before that hour."""
import time

from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig
LOSES = ("recent_turns_word_for_word", "returns_a_set_up")


def fit_the_budget(budget_tokens, summarizer):
    window = GetSessionConfig(after_timestamp=time.time() - 3600)
    return RunConfig(get_session_config=window), EventsCompactionConfig(
        summarizer=summarizer, token_threshold=budget_tokens - 30, event_retention_size=2)
