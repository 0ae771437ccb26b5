"""A fixed threshold of 100, right for the smallest budget (130) and so for every larger one: it never reads budget_tokens."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig


def fit_the_budget(budget_tokens, summarizer):
    # 100 + 30 = 130, the smallest budget allowed; after a summary at most 95 tokens are left.
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer, token_threshold=100,
                                               event_retention_size=2)
