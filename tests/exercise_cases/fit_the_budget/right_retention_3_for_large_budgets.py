"""Right, written differently: keeps 3 raw events from a budget of 200 up, where 105 tokens after a summary stay below the threshold."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig


def fit_the_budget(budget_tokens, summarizer):
    # 3 events keep the previous message too; after a summary at most 105 tokens remain.
    retention = 3 if budget_tokens >= 200 else 2
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer, token_threshold=budget_tokens - 30,
                                               event_retention_size=retention)
