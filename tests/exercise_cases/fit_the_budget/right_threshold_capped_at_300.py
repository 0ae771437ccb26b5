"""Right, written differently: the threshold is budget - 30 up to 330 and 300 above, summarising earlier than needed at large budgets."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig


def fit_the_budget(budget_tokens, summarizer):
    # A turn adds at most 30 tokens; what is left after a summary (95 at most) stays below 100.
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer,
                                               token_threshold=min(budget_tokens - 30, 300),
                                               event_retention_size=2)
