"""Returns the compaction set-up first and the RunConfig second: not the contract's order."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
LOSES = ("returns_a_set_up",)


def fit_the_budget(budget_tokens, summarizer):
    compaction = EventsCompactionConfig(summarizer=summarizer, token_threshold=budget_tokens - 30,
                                        event_retention_size=2)
    return compaction, RunConfig()
