"""Wraps the given summarizer in a class of its own that delegates to it: every summary is still the given one's."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.base_events_summarizer import BaseEventsSummarizer


class Counting(BaseEventsSummarizer):
    def __init__(self, inner):
        self.inner, self.calls = inner, 0

    async def maybe_summarize_events(self, *, events):
        self.calls += 1
        return await self.inner.maybe_summarize_events(events=events)


def fit_the_budget(budget_tokens, summarizer):
    room = (80 + 40) // 4  # the most one turn adds
    return RunConfig(), EventsCompactionConfig(summarizer=Counting(summarizer),
                                               token_threshold=budget_tokens - room,
                                               event_retention_size=2)
