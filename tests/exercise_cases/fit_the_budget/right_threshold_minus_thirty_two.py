"""Token threshold 32 below the budget (2 tokens more room than needed), settings passed as a dict."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig


def fit_the_budget(budget_tokens, summarizer):
    # A turn adds at most 30 tokens; what is left after a summary (95 at most) stays below 130 - 32.
    settings = {"summarizer": summarizer, "token_threshold": budget_tokens - 32,
                "event_retention_size": 2}
    return (RunConfig(), EventsCompactionConfig(**settings))
