"""Compaction every 6 invocations without overlap: four summaries in 24 turns, the prompt still within budget."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig


def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(), EventsCompactionConfig(summarizer=summarizer, compaction_interval=6, overlap_size=0)
