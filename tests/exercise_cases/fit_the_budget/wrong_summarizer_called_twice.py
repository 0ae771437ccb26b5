"""Wraps the given summarizer and asks it twice per compaction (keeps the second answer): two model calls per summary."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.base_events_summarizer import BaseEventsSummarizer
LOSES = ("summaries_are_affordable",)


class Twice(BaseEventsSummarizer):
    def __init__(self, inner):
        self.inner = inner

    async def maybe_summarize_events(self, *, events):
        await self.inner.maybe_summarize_events(events=events)  # a draft, thrown away
        return await self.inner.maybe_summarize_events(events=events)


def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(), EventsCompactionConfig(summarizer=Twice(summarizer),
                                               token_threshold=budget_tokens - 30,
                                               event_retention_size=2)
