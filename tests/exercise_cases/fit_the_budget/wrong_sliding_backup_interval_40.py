r"""Token threshold plus a sliding window 'as a backup' every 40 turns: when the
backup fires it summarises everything up to the last turn, so the previous message is lost
on the next turn (and its summaries are never replaced)."""
from __future__ import annotations

from typing import Optional

from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.base_events_summarizer import BaseEventsSummarizer

LOSES = ('recent_turns_word_for_word',)


def fit_the_budget(budget_tokens: int, summarizer: BaseEventsSummarizer
                   ) -> tuple[RunConfig, Optional[EventsCompactionConfig]]:
  return RunConfig(), EventsCompactionConfig(summarizer=summarizer,
                                             token_threshold=budget_tokens - 30,
                                             event_retention_size=2,
                                             compaction_interval=40, overlap_size=1)
