"""Sliding-window compaction every 3 invocations without overlap, built from keyword arguments."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig


def fit_the_budget(budget_tokens, summarizer):
    settings = {"summarizer": summarizer, "compaction_interval": 3, "overlap_size": 0}
    return (RunConfig(), EventsCompactionConfig(**settings))
