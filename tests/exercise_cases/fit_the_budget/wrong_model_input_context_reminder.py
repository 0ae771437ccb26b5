r"""A window of raw events plus a standing reminder in RunConfig.model_input_context
('mind the allergy'): the allergen itself never reaches the barista."""
from __future__ import annotations

from typing import Optional

from google.adk.agents.run_config import RunConfig
from google.adk.apps.app import EventsCompactionConfig
from google.adk.apps.base_events_summarizer import BaseEventsSummarizer

from google.adk.sessions.base_session_service import GetSessionConfig
from google.genai import types

LOSES = ('returns_a_set_up', 'allergy_still_reaches_the_model')


def fit_the_budget(budget_tokens: int, summarizer: BaseEventsSummarizer
                   ) -> tuple[RunConfig, Optional[EventsCompactionConfig]]:
  note = types.Content(role="user", parts=[types.Part(text="Mind my allergy from turn 1.")])
  return RunConfig(model_input_context=[note],
                   get_session_config=GetSessionConfig(num_recent_events=2)), None
