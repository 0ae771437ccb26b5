"""One module-level EventsCompactionConfig, updated by each call with its budget and summarizer: a chat played after a later call runs with that call's set-up."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig

_CONFIG = None
LOSES = ("returns_a_set_up",)


def fit_the_budget(budget_tokens, summarizer):
    global _CONFIG
    if _CONFIG is None:
        _CONFIG = EventsCompactionConfig(summarizer=summarizer, token_threshold=budget_tokens - 30,
                                         event_retention_size=2)
    _CONFIG.summarizer = summarizer
    _CONFIG.token_threshold = budget_tokens - 30
    return RunConfig(), _CONFIG
