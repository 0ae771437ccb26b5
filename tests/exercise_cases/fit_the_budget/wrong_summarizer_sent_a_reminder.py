"""Wraps the given summarizer and adds an event of its own (a reminder to keep allergies) to what it summarises: a text no turn wrote."""
from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.base_events_summarizer import BaseEventsSummarizer
from google.adk.events.event import Event
from google.genai import types
LOSES = ("returns_a_set_up",)


class WithReminder(BaseEventsSummarizer):
    def __init__(self, inner):
        self.inner = inner

    async def maybe_summarize_events(self, *, events):
        note = Event(author="user", invocation_id=Event.new_id(), timestamp=events[0].timestamp,
                     content=types.Content(role="user", parts=[types.Part(text="Keep allergies.")]))
        return await self.inner.maybe_summarize_events(events=[note] + list(events))


def fit_the_budget(budget_tokens, summarizer):
    return RunConfig(), EventsCompactionConfig(summarizer=WithReminder(summarizer),
                                               token_threshold=budget_tokens - 30,
                                               event_retention_size=2)
