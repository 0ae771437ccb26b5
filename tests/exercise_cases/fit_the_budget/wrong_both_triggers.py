"""Token threshold plus a sliding window of 4: sliding summaries see raw events only (no allergy) and seed the next ones."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig


def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer, token_threshold=budget_tokens - 30,
                                               event_retention_size=2, compaction_interval=4, overlap_size=0)
