"""A fixed threshold of 95: right after a summary the request can be 95 tokens, so with long turns it summarises every turn."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
LOSES = ("summaries_are_affordable",)


def fit_the_budget(budget_tokens, summarizer):
    # One token short of the smallest safe fixed threshold (96).
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer, token_threshold=95,
                                               event_retention_size=2)
