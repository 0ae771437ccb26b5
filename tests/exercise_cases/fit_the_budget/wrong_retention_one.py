"""Token threshold with event_retention_size=1 (the issue): after a summary only the reply is raw, the previous message is gone."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.sessions.base_session_service import GetSessionConfig
LOSES = ("recent_turns_word_for_word",)


def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer, token_threshold=budget_tokens - 30,
                                               event_retention_size=1)
