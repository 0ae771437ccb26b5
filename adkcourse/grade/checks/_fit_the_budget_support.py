"""Models as trusted services: what a model received is evidence only where the model lives.

A conversation graded by what its model received must not take the word of the process that
ran it. So the models live with the judge (``ModelServer``: it answers from scripted rules and
records every request it received, as the judge will read them), and the code being graded
talks to them through a ``BaseLlm`` that forwards each ``LlmRequest`` as JSON over a
``_channel`` channel (``ChannelModel``). Those two are specific to no exercise: candidates for
the shared ``_channel`` module. Then ``fit_the_budget``'s own summarizer: the object the
function is given (``given_summarizer``) and the rule its model answers by.
"""

from __future__ import annotations

import re
from typing import Any, AsyncGenerator, Callable, Optional

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import PrivateAttr

from adkcourse.offline_model import estimate_tokens

MAX_REQUESTS = 1_000  # requests one model server records (then it refuses)
MAX_TEXT = 4_000  # characters of one text kept in a record
PROMPT = "Summarise this chat briefly."  # the given summarizer's prompt (28 characters)


class ChannelModel(BaseLlm):
  """A ``BaseLlm`` whose answers come from a model server across a channel (the acting side).

  The request travels whole (``model_dump(mode="json")``); the answer is a text and the
  server's own count of the request's tokens, reported as ``usage_metadata`` the way a real
  model reports it (ADK's token-threshold compaction reads it)."""

  _channel: Any = PrivateAttr(default=None)

  def __init__(self, channel: Any, **data: Any):
    super().__init__(**data)
    self._channel = channel

  async def generate_content_async(self, llm_request: LlmRequest, stream: bool = False
                                   ) -> AsyncGenerator[LlmResponse, None]:
    del stream  # one whole answer either way
    request = llm_request.model_dump(mode="json", exclude_none=True)
    answer = self._channel.call("generate", {"request": request})
    usage = types.GenerateContentResponseUsageMetadata(
        prompt_token_count=int(answer["prompt_tokens"]),
        candidates_token_count=int(answer["answer_tokens"]),
        total_token_count=int(answer["prompt_tokens"]) + int(answer["answer_tokens"]))
    content = types.Content(role="model", parts=[types.Part(text=str(answer["text"]))])
    yield LlmResponse(content=content, partial=False, turn_complete=True, usage_metadata=usage)


def request_texts(request: LlmRequest) -> list[list[str]]:
  """Every text of a request's contents, as ``[role, text]`` pairs, in order."""
  return [[str(content.role), part.text[:MAX_TEXT]] for content in request.contents
          for part in content.parts or [] if part.text]


def instruction(request: LlmRequest) -> str:
  """The system instruction as the model received it ("" when there is none)."""
  found = request.config.system_instruction if request.config else None
  return found[:MAX_TEXT] if isinstance(found, str) else ""


class ModelServer:
  """A scripted model living with the judge: ``answer(request) -> (text, record)`` decides;
  every request is measured here (``estimate_tokens``) and recorded with what ``answer``
  adds to it. ``observe()`` is the list of records, ``{(number,): record}``."""

  def __init__(self, answer: Callable[[LlmRequest], tuple[str, dict[str, Any]]]):
    self.answer = answer
    self.records: list[dict[str, Any]] = []

  def handle(self, method: str, params: dict) -> dict[str, Any]:
    if method != "generate":
      raise ValueError(f"unknown method {method!r}")
    if len(self.records) >= MAX_REQUESTS:
      raise ValueError(f"more than {MAX_REQUESTS} requests")
    request = LlmRequest.model_validate(params.get("request"))
    tokens = estimate_tokens(request)
    text, record = self.answer(request)
    self.records.append({"tokens": tokens, **record})
    return {"text": text, "prompt_tokens": tokens, "answer_tokens": len(text) // 4 + 1}

  def observe(self) -> dict[tuple, Any]:
    return {(number,): record for number, record in enumerate(self.records)}


def records(observed: dict, name: str) -> list[dict[str, Any]]:
  """The records of the server ``name`` in an observation (the engine files them under
  ``("service", name, number)``), in the order the server received them."""
  found = [(key[2], value) for key, value in observed.items()
           if len(key) == 3 and key[0] == "service" and key[1] == name]
  return [value for _, value in sorted(found, key=lambda item: item[0])]


def latest_user_text(request: LlmRequest) -> Optional[str]:
  """The text of the request's last user content (None: it has none)."""
  for content in reversed(request.contents):
    if content.role == "user":
      texts = [part.text for part in content.parts or [] if part.text]
      if texts:
        return "\n".join(texts)
  return None


# --- fit_the_budget's summarizer ----------------------------------------------------------

def given_summarizer(channel: Any) -> Any:
  """The summarizer the function is given: an ``LlmEventSummarizer`` on the judge's model
  that sends a short prompt and each event's text as a part of its own (no separators, no
  authors), so a summary of events the barista received is never larger than its request."""
  from google.adk.apps.llm_event_summarizer import LlmEventSummarizer
  from google.adk.events.event import Event
  from google.adk.events.event_actions import EventActions, EventCompaction
  from google.adk.models.llm_request import LlmRequest
  from google.genai import types

  class CafeSummarizer(LlmEventSummarizer):
    async def maybe_summarize_events(self, *, events: list[Event]) -> Optional[Event]:
      texts = [part.text for event in events if event.content
               for part in event.content.parts or [] if part.text and not part.thought]
      if not texts:
        return None
      parts = [types.Part(text=text) for text in [PROMPT] + texts]
      request = LlmRequest(model=self._llm.model,
                           contents=[types.Content(role="user", parts=parts)])
      async for response in self._llm.generate_content_async(request):
        summary = response.content.model_copy(update={"role": "model"})
        compaction = EventCompaction(start_timestamp=events[0].timestamp,
                                     end_timestamp=events[-1].timestamp,
                                     compacted_content=summary)
        return Event(author="user", invocation_id=Event.new_id(),
                     actions=EventActions(compaction=compaction),
                     usage_metadata=response.usage_metadata)
      return None

  return CafeSummarizer(llm=ChannelModel(channel, model="judge-summarizer"))


def allergy_sentences(texts: list[str]) -> list[str]:
  """The given summarizer's rule: every sentence about an allergy, each once (a line's
  author and an earlier summary's "Summary: " are not part of it)."""
  kept: list[str] = []
  for line in (line for text in texts for line in text.splitlines()):
    while re.match(r"\w+: ", line):
      line = line.split(": ", 1)[1]
    for sentence in re.split(r"(?<=[.!?])\s+", line.strip()):
      if "allerg" in sentence.lower() and sentence not in kept:
        kept.append(sentence)
  return kept


# --- fit_the_budget's chats: what the customer says, what the barista answers ------------
# (no later message, no reply mentions an allergy: the check for the allergy relies on it)

ALLERGENS = ("almond", "sesame", "peanut", "walnut", "cashew", "celery", "hazelnut", "mustard",
             "soy", "lupin", "pistachio", "coconut")
DRINKS = ("latte", "mocha", "cocoa", "flat white", "cortado", "chai", "espresso", "americano",
          "matcha latte", "iced tea")
MILKS = ("oat milk", "whole milk", "soy milk", "almond milk", "coconut milk", "no milk")
SIZES = ("small", "medium", "large")
NAMES = ("Ada", "Grace", "Alan", "Katherine", "Edsger", "Barbara", "Radia", "Hedy")
FIRST = ("Please note: I'm allergic to {a}.",
         "Hi! I am allergic to {a}. A {drink} for table {table}, please.",
         "Hello, {name} here. Before I order: I'm allergic to {a}.",
         "I'm allergic to {a}, so please keep it out of everything. Thanks!")
ORDERS = ("Turn {t}: a {drink} for table {table}.",
          "Could I get a {size} {drink} with {milk} for table {table}, please?",
          "Another {drink} for table {table}, thanks.",
          "Table {table} would like a {size} {drink}.",
          "Is the {drink} for table {table} ready yet?",
          "For table {table}: a {size} {drink} with {milk}, extra hot, and some water.",
          "One more {drink}, table {table}.")
REPLIES = ("Noted, coming right up.", "Sure: a {drink} for table {table}.",
           "One {drink}, on its way!", "Table {table}, got it.", "Of course. Anything else?",
           "Ready in two minutes.")
PADDING = (" Thanks!", " No rush.", " Extra hot.", " To go.", " Cheers!", " Quickly, please.")
REPLY_PADDING = (" Enjoy!", " Thank you!", " Coming up.", " Any snacks?")
