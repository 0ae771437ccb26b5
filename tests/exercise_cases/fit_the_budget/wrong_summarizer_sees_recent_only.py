"""Wraps the given summarizer and sends it only the previous summary and the last 2 events (cheaper): older events vanish unsummarised."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.base_events_summarizer import BaseEventsSummarizer
LOSES = ("returns_a_set_up",)


class RecentOnly(BaseEventsSummarizer):
    def __init__(self, inner):
        self.inner = inner

    async def maybe_summarize_events(self, *, events):
        seed = [e for e in events[:1] if e.author == "model"]  # the previous summary ADK adds
        rest = events[len(seed):]
        return await self.inner.maybe_summarize_events(events=seed + rest[-2:])


def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(), EventsCompactionConfig(summarizer=RecentOnly(summarizer),
                                               token_threshold=budget_tokens - 30,
                                               event_retention_size=2)
