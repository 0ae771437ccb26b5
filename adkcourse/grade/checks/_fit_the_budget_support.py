"""Models as trusted services: what a model received is evidence only where the model lives.

A conversation graded by what its model received must not take the word of the process that
ran it. So the models live with the judge (``ModelServer``: it answers from scripted rules and
records every request it received, as the judge will read them), and the code being graded
talks to them through a ``BaseLlm`` that forwards each ``LlmRequest`` as JSON over a
``_channel`` channel (``ChannelModel``). Those two are specific to no exercise: candidates for
the shared ``_channel`` module. Then ``fit_the_budget``'s own pieces: the summarizer the
function is given (``given_summarizer``), the rule its model answers by (``summary_answer``),
and texts of an exact length (``sized``), for chats whose every request size is planned.
"""

from __future__ import annotations

import json
import re
import random
from typing import Any, AsyncGenerator, Callable, Optional, Sequence

from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.genai import types
from pydantic import PrivateAttr

from adkcourse.offline_model import estimate_tokens
from ._observe import quote

MAX_REQUESTS = 1_000  # requests one model server records (then it refuses)
MAX_TEXT = 4_000  # characters of one text kept in a record
MAX_CONTENTS = 5_000  # validated contents one model server keeps for the requests to come
PROMPT = "Summarise this chat briefly."  # the given summarizer's prompt (28 characters)
MIN_SUMMARY, MAX_SUMMARY = 30, 80  # characters of a summary (the contract says so)


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


def other_parts(request: LlmRequest) -> list[str]:
  """The kind of every part of a request's contents that is not a plain text (inline data,
  a function call, code...): no turn and no summary of the chat is one."""
  kinds = []
  for content in request.contents:
    for part in content.parts or []:
      fields = part.model_dump(exclude_none=True, exclude_defaults=True)
      others = sorted(set(fields) - {"text"})
      if others or not part.text:
        kinds.append(", ".join(others) or "empty")
  return kinds[:20]


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
    self._contents: dict[str, types.Content] = {}  # each content validated once, by its JSON

  def handle(self, method: str, params: dict) -> dict[str, Any]:
    if method != "generate":
      raise ValueError(f"unknown method {method!r}")
    if len(self.records) >= MAX_REQUESTS:
      raise ValueError(f"more than {MAX_REQUESTS} requests")
    request = self.validated(params.get("request"))
    tokens = estimate_tokens(request)
    text, record = self.answer(request)
    self.records.append({"tokens": tokens, **record})
    return {"text": text, "prompt_tokens": tokens, "answer_tokens": len(text) // 4 + 1}

  def validated(self, request: Any) -> LlmRequest:
    """``LlmRequest.model_validate(request)``, each of its contents validated as a
    ``types.Content`` once: a chat's history comes back in every later request, and
    validating it anew each time would cost the judge a time quadratic in the chat's length.
    The contents are only read (never changed), so a request may share them with another."""
    if not isinstance(request, dict) or not isinstance(request.get("contents"), list):
      return LlmRequest.model_validate(request)
    contents = [self.content(data) for data in request["contents"]]
    found = LlmRequest.model_validate({**request, "contents": []})
    found.contents = contents
    return found

  def content(self, data: Any) -> types.Content:
    key = json.dumps(data, sort_keys=True)
    found = self._contents.get(key)
    if found is None:
      if len(self._contents) >= MAX_CONTENTS:
        self._contents.clear()
      found = self._contents[key] = types.Content.model_validate(data)
    return found

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


def unlike_the_given_summarizer(request: LlmRequest) -> Optional[str]:
  """How a request to the summarizer's model differs from every request the summarizer
  given sends (one user content: the prompt, then one text part per event; nothing else),
  or None."""
  if instruction(request) or (request.config and request.config.tools):
    return "a system instruction or tools"
  if len(request.contents) != 1 or request.contents[0].role != "user":
    return f"{len(request.contents)} contents (the summarizer given sends one, as the user)"
  parts = request.contents[0].parts or []
  if not parts or parts[0].text != PROMPT:
    first = parts[0].text if parts and parts[0].text else ""
    return f"a prompt of its own ({quote(first[:60])}...)"
  if other_parts(request):
    return f"a part of another kind than text ({other_parts(request)[0]})"
  return None


def allergy_sentences(texts: list[str]) -> list[str]:
  """The given summarizer's rule: every sentence about an allergy, each once (a line's
  author and an earlier summary's "Summary N: " are not part of it)."""
  kept: list[str] = []
  for line in (line for text in texts for line in text.splitlines()):
    line = re.sub(r"^Summary \d+: ", "", line.strip())
    while re.match(r"\w+: ", line):
      line = line.split(": ", 1)[1]
    for sentence in re.split(r"(?<=[.!?])\s+", line.strip()):
      if "allerg" in sentence.lower() and sentence not in kept:
        kept.append(sentence)
  return kept


SUMMARY_PADDING = (" Noted.", " Mind it.", " Every order.", " Take care.", " Always.",
                   " Ok.", " Yes.", " So.", " Thanks.", " All good.")


def summary_answer(texts: list[str], number: int, length: int) -> str:
  """What the given summarizer's model answers to its ``number``-th request: "Summary N: "
  and the allergy sentences of ``texts``, made ``length`` characters long where they fit
  (at most 80): each answer of a chat is its own, and its length is the world's choice."""
  kept = allergy_sentences(texts)
  answer = f"Summary {number}: " + (" ".join(kept) if kept else "drinks were ordered.")
  answer = answer[:MAX_SUMMARY]
  gap = min(length, MAX_SUMMARY) - len(answer)
  if gap > 0:
    answer += fill(random.Random(number), gap, SUMMARY_PADDING) or "." * gap
  return answer


# --- texts of an exact length -------------------------------------------------------------

def fill(rng: random.Random, gap: int, padding: Sequence[str], avoid: str = ""
         ) -> Optional[str]:
  """Distinct phrases of ``padding`` (none already in ``avoid``) whose lengths add up to
  exactly ``gap``, in a random order ("" for 0; None when no choice adds up)."""
  phrases = [p for p in padding if p not in avoid]
  rng.shuffle(phrases)

  def search(start: int, left: int) -> Optional[list[str]]:
    if left == 0:
      return []
    for i in range(start, len(phrases)):
      if len(phrases[i]) <= left:
        rest = search(i + 1, left - len(phrases[i]))
        if rest is not None:
          return [phrases[i]] + rest
    return None

  found = search(0, gap)
  return None if found is None else "".join(found)


def sized(rng: random.Random, templates: Sequence[str], words: dict[str, Any], length: int,
          padding: Sequence[str]) -> Optional[str]:
  """A text of exactly ``length`` characters: one of ``templates`` with ``words`` filled in
  ("a" before a vowel made "an"), then polite phrases (None: no template fits)."""
  fitting = []
  for template in rng.sample(list(templates), len(templates)):
    text = re.sub(r"\b([Aa]) ([aeiou])", r"\1n \2", template.format(**words))
    text = text[0].upper() + text[1:]
    if len(text) <= length:
      padded = fill(rng, length - len(text), padding, avoid=text)
      if padded is not None:
        return text + padded
      fitting.append(text)
  if not fitting:
    return None
  text = fitting[0]  # no phrases add up: phrases that fit, then exclamation marks
  for phrase in rng.sample(list(padding), len(padding)):
    if phrase not in text and len(text) + len(phrase) <= length:
      text += phrase
  return text + "!" * (length - len(text))


# --- fit_the_budget's chats: what the customer says, what the barista answers ------------
# (no later message, no reply mentions an allergy: the check for the allergy relies on it;
# every one after turn 1 names its turn's table, a number of its own: no two texts alike)

ALLERGENS = ("almond", "sesame", "peanut", "walnut", "cashew", "celery", "hazelnut", "mustard",
             "soy", "lupin", "pistachio", "coconut")
DRINKS = ("latte", "mocha", "cocoa", "flat white", "cortado", "chai", "espresso", "americano",
          "matcha latte", "iced tea")
SHORT_DRINKS = ("latte", "mocha", "cocoa", "chai")
MILKS = ("oat milk", "whole milk", "soy milk", "almond milk", "coconut milk", "no milk")
SIZES = ("small", "medium", "large")
NAMES = ("Ada", "Grace", "Alan", "Katherine", "Edsger", "Barbara", "Radia", "Hedy")
FIRST = ("Please note: I'm allergic to {a}.",
         "Hi! I am allergic to {a}. A {drink} for table {table}, please.",
         "Hello, {name} here. Before I order: I'm allergic to {a}.",
         "I'm allergic to {a}, so please keep it out of everything. Thanks!")
FIRST_REPLY = ("Noted, I will keep that in mind.",)
SHORT_FIRST = ("I'm allergic to {a}.", "Allergic to {a}.")  # the shortest chat's turn 1
SHORT_FIRST_REPLY = ("Noted.", "Noted!", "Got it.")
ORDERS = ("Turn {t}: a {drink} for table {table}.",
          "Could I get a {size} {drink} with {milk} for table {table}, please?",
          "Another {drink} for table {table}, thanks.",
          "Table {table} would like a {size} {drink}.",
          "Is the {drink} for table {table} ready yet?",
          "For table {table}: a {size} {drink} with {milk}, extra hot, and some water.",
          "One more {drink}, table {table}.")
SHORT_ORDERS = ("{drink} for {table}.", "A {drink}, {table}.", "{drink}, table {table}.",
                "Table {table}: {drink}.")
REPLIES = ("Sure: a {drink} for table {table}.", "One {drink} for table {table}!",
           "Table {table}, got it.", "Table {table}: coming right up.",
           "Ready in two minutes, table {table}.", "On it, table {table}.")
SHORT_REPLIES = ("OK, {table}.", "Sure, {table}!", "{table}: on it.", "Yes, {table}.",
                 "{table}, ok.", "Done, {table}.")
PADDING = (" Thanks!", " No rush.", " Extra hot.", " To go.", " Cheers!", " Quickly, please.",
           " Ta.", " Hi.", " :)", " Ok!", " Yes.", " Great.", " Lovely.", " Oh, and a napkin.")
REPLY_PADDING = (" Enjoy!", " Thank you!", " Coming up.", " Any snacks?", " Sure.", " Ta.",
                 " :)", " Yes.", " Ok!", " Great.")
