"""Wraps the given summarizer and adds the turn-1 message word for word to each summary: a text of its own in the summary (rule 5)."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.base_events_summarizer import BaseEventsSummarizer
from google.genai import types
LOSES = ("returns_a_set_up",)


class QuoteTheAllergy(BaseEventsSummarizer):
    def __init__(self, inner):
        self.inner, self.first = inner, None

    async def maybe_summarize_events(self, *, events):
        if self.first is None:
            self.first = next(p.text for e in events if e.content for p in e.content.parts if p.text)
        found = await self.inner.maybe_summarize_events(events=events)
        if found is None:
            return None
        summary = found.actions.compaction.compacted_content
        parts = [types.Part(text=self.first)] + list(summary.parts)
        found.actions.compaction.compacted_content = types.Content(role=summary.role, parts=parts)
        return found


def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(), EventsCompactionConfig(summarizer=QuoteTheAllergy(summarizer),
                                               token_threshold=budget_tokens - 50,
                                               event_retention_size=2)
