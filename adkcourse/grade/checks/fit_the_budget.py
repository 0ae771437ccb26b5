"""The judge of the lesson-6 exercise ``fit_the_budget`` (a compaction set-up for a prompt budget).

Contract (``exercises/fit_the_budget.py``): ``def fit_the_budget(budget_tokens, summarizer) ->
(RunConfig, EventsCompactionConfig or None)``, for any budget from 130 to 600 tokens and a chat
of any length: on every turn, every request of both models within the budget, the turn-1
allergy reaching the barista, the previous and the new message word for word, at most one
summary per two turns, and whatever the barista no longer receives word for word summarised
by the summarizer given. Right answers differ (thresholds, retentions, windows), so the judge
checks these properties (``compare_to_reference=False``) instead of comparing with the
reference.

A world is two to four chats, each with a budget of its own; the function is called once per
chat, every call before any chat is played (largest budget first, the chats then played last
call first: a set-up kept from an earlier call, or changed by a later one, shows), and each
chat played through a real ``Runner`` and ``App`` with what its own call returned. The sizes
are planned, not left to chance: in an *aligned* chat the request of some turn is exactly
``budget - 29`` tokens and the next turn adds the most a turn can (30 tokens), so any trigger
above ``budget - 29`` (or none) overflows at that budget. Every run has aligned chats at 130,
131-155, 156-190, 191-300, 301-400, 401-500, 501-599, 600 and one anywhere. The four kinds of
world: the tightest (130-190, every turn and summary as long as the contract allows after the
first summary: what is left right after one is as large as it can be, so a trigger at or
below it, or more events kept, costs a summary every turn), aligned chats across the range,
the longest (the *tiny* chat: 76 turns as short as the contract allows at budget 600, whose
turn 74 is the first to reach the largest threshold that fits, so it goes longer without a
summary than any chat can: a window of fewer events, or a sliding-window backup of fewer
turns, than some chat needs shows; and budget 600 at full size, where a trigger at or below
what is left after a summary costs one every turn too) and mixed chats (random sizes and
budgets). Every chat is played at times of its own (``ChatClock``): turns seconds to days
apart, over a day to 8 years before the set-up was made (the tiny chat, in every run, 12
years), so a time window (``after_timestamp``) drops what it must not.

Why the tiny chat's phase before the first summary is the longest any chat has (for a
threshold T): its turns and its turn 1 are as short as the contract allows; after a summary
(at least 30 characters) and the events kept raw (each kept turn at least 30 characters, and
counted as a turn by a sliding window), the next stretch holds no more events, nor turns, than
the first one.

Both models live with the judge (``servers``, one pair per chat): the barista answers each
turn, the summarizer numbers its summaries (each is its own) and keeps the allergy. What they
received is the whole observation: no word of the process that ran the submission counts.
Provenance comes from it too: a summary stands for the events its summarizer request held
(word for word, or through an earlier summary it was sent), and each barista request must be
summaries of the summarizer given, then the chat's events from some point on, in order, with
every event before them stood for by those summaries.
"""

from __future__ import annotations

import logging
import random
import warnings
from pathlib import Path
from typing import Any, Callable, Optional

from . import _fit_the_budget_support as text
from ._engine import Check, Exercise, Resources, View
from ._fit_the_budget_support import (ChannelModel, ModelServer, given_summarizer, instruction,
                                      latest_user_text, other_parts, records, request_texts,
                                      summary_answer, unlike_the_given_summarizer)
from ._harness import ActWorld
from ._observe import quote

INSTRUCTION = "You are a friendly barista. Keep answers short."  # 99 characters with ADK's
# the system instruction ADK builds from it (its instructions processor, then its identity one)
BARISTA_SYSTEM = INSTRUCTION + '\n\nYou are an agent. Your internal name is "barista".'
MIN_MESSAGE, MAX_MESSAGE, MIN_REPLY, MAX_REPLY = 20, 80, 10, 40  # characters (the contract)
# the longest chat: turns as short as the contract allows at budget 600, where the largest
# threshold that fits (571) is first reached in turn 74 (turns 1-73 are 146 events raw): any
# count of events or turns below that shows before the first summary; 76 turns (3 after it)
TINY_TURNS = 76
DAY, YEAR = 86_400.0, 365.25 * 86_400.0
# the gaps between two turns (seconds), one range drawn per turn: a chat spans minutes to days
GAPS = ((2.0, 60.0), (2.0, 60.0), (60.0, 3_600.0), (3_600.0, 3 * DAY))
NOT_A_TURN = "Sorry, I only take orders."  # the barista's answer to anything but a turn
# the lengths of turns 1-3 of an aligned chat: (message, reply) x 3 (the third reply is 40)
FREE_MIN, FREE_MAX = (45, 32, 25, 20, 25), (80, 40, 80, 40, 80)


# --- the world ---------------------------------------------------------------------------------

def generate(rng: random.Random, variant: int) -> dict[str, Any]:
  if variant == 0:  # the tightest: every turn and summary as long as the contract allows
    plans = [aligned(rng, 130, rng.randint(8, 12), "max"),
             aligned(rng, rng.randint(131, 155), rng.randint(6, 9), "max"),
             aligned(rng, rng.randint(156, 190), rng.randint(6, 9), "max")]
  elif variant == 1:  # aligned across the range
    plans = [aligned(rng, rng.randint(low, high), rng.randint(3, 6), "random")
             for low, high in ((191, 300), (301, 400), (401, 500), (501, 599))]
  elif variant == 2:  # the longest stretch between two summaries, and budget 600 at full size
    plans = [(600, [(MIN_MESSAGE, MIN_REPLY)] * TINY_TURNS, "tiny"),
             aligned(rng, 600, rng.randint(4, 6), "max")]
  else:  # mixed: random sizes at random budgets, and one more aligned chat anywhere
    plans = [(rng.randint(130, 600), random_lengths(rng, rng.randint(3, 10)), "random"),
             (rng.randint(130, 600), random_lengths(rng, rng.randint(12, 30)), "random"),
             aligned(rng, rng.randint(130, 600), rng.randint(3, 8), "random")]
  # summaries differ from chat to chat (the tiny chat's turn 1 fits an allergen of 7 letters)
  allergens = rng.sample([a for a in text.ALLERGENS if variant != 2 or len(a) <= 7], len(plans))
  full = [variant == 0 or (variant == 2 and kind == "aligned") for _, _, kind in plans]
  chats = [chat(rng, allergen, budget, lengths, kind,
                text.MAX_SUMMARY if longest else rng.randint(text.MIN_SUMMARY, text.MAX_SUMMARY))
           for allergen, (budget, lengths, kind), longest in zip(allergens, plans, full)]
  # the set-ups are made largest budget first (a set-up kept from the first call is too large
  # for the next ones) and all before any chat is played (one changed by a later call shows)
  chats.sort(key=lambda c: -c["budget"])
  return {"variant": variant, "chats": chats}


def timeline(rng: random.Random, turns: int, kind: str) -> tuple[float, list[float]]:
  """When a chat's turns begin: seconds to days apart, the chat's last turn a day to 8 years
  before it is played, the tiny chat's (in every run) 12 years: ``(ago, offsets)``, in
  seconds before the play and from the chat's first turn. A time window of less than 12 years
  shows on every seed, not on some."""
  offsets = [0.0]
  for _ in range(turns - 1):
    low, high = rng.choice(GAPS)
    offsets.append(offsets[-1] + rng.uniform(low, high))
  return offsets[-1] + (12 * YEAR if kind == "tiny" else rng.uniform(DAY, 8 * YEAR)), offsets


def aligned(rng: random.Random, budget: int, extra: int, style: str
            ) -> tuple[int, list[tuple[int, int]], str]:
  """A chat whose request in some turn n is exactly ``budget - 29`` tokens, before anything
  needs summarising, and whose turn n + 1 adds 30: turns 1-3 have the lengths that make it so,
  the next ones the longest; then ``extra`` turns in ``style`` ("max" or "random")."""
  chars = 4 * (budget - 30) + rng.randint(0, 3)  # // 4 + 1 = budget - 29
  options = [n for n in range(3, 60)
             if sum(FREE_MIN) <= chars - 99 - 120 * (n - 3) <= sum(FREE_MAX)]
  n = rng.choice(options)
  free = split(rng, chars - 99 - 120 * (n - 3), FREE_MIN, FREE_MAX)
  lengths = [(free[0], free[1]), (free[2], free[3]), (free[4], MAX_REPLY)]
  lengths += [(MAX_MESSAGE, MAX_REPLY)] * (n - 2)  # turns 4 to n + 1
  tail = random_lengths(rng, extra + 1)[1:] if style == "random" else \
      [(MAX_MESSAGE, MAX_REPLY)] * extra
  return budget, lengths + tail, "aligned"


def split(rng: random.Random, total: int, lows: tuple[int, ...], highs: tuple[int, ...]
          ) -> list[int]:
  """``total`` as a sum of numbers between ``lows`` and ``highs``, at random."""
  parts = list(lows)
  left = total - sum(lows)
  order = rng.sample(range(len(parts)), len(parts))
  for k, i in enumerate(order):
    room_after = sum(highs[j] - lows[j] for j in order[k + 1:])
    add = rng.randint(max(0, left - room_after), min(highs[i] - lows[i], left))
    parts[i] += add
    left -= add
  assert left == 0
  return parts


def random_lengths(rng: random.Random, turns: int) -> list[tuple[int, int]]:
  """Lengths of (message, reply) for a chat of random sizes, the longest often."""
  return [(rng.randint(45, MAX_MESSAGE), rng.randint(32, MAX_REPLY))] + [
      (MAX_MESSAGE, MAX_REPLY) if rng.random() < 0.3 else
      (rng.randint(25, MAX_MESSAGE), rng.randint(20, MAX_REPLY)) for _ in range(turns - 1)]


def chat(rng: random.Random, allergen: str, budget: int, lengths: list[tuple[int, int]],
         kind: str, summary: int) -> dict[str, Any]:
  """A chat whose turns have exactly ``lengths``: the allergy in turn 1, then orders (short
  ones in a "tiny" chat), and when each turn begins (``timeline``)."""
  milks = [m for m in text.MILKS if allergen not in m]
  tables = rng.sample(range(2, 1000), len(lengths))
  messages, replies = [], []
  for turn, ((length, reply_length), table) in enumerate(zip(lengths, tables), 1):
    for attempt in range(50):
      # A short length that no ordinary order reaches with the drinks drawn (a long drink's
      # shortest order is longer) takes the short orders, as a tiny chat does.
      short = kind == "tiny" or attempt >= 25
      words = {"a": allergen, "t": turn, "table": table, "milk": rng.choice(milks),
               "drink": rng.choice(text.SHORT_DRINKS if short else text.DRINKS),
               "size": rng.choice(text.SIZES), "name": rng.choice(text.NAMES)}
      first = turn == 1
      message = text.sized(rng, (text.SHORT_FIRST if short else text.FIRST) if first else
                           text.SHORT_ORDERS if short else text.ORDERS,
                           words, length, text.PADDING)
      reply = text.sized(rng, (text.SHORT_FIRST_REPLY if short else text.FIRST_REPLY) if first
                         else text.SHORT_REPLIES if short else text.REPLIES,
                         words, reply_length, text.REPLY_PADDING)
      if message and reply:
        break
    else:
      raise AssertionError(f"no text of {length}/{reply_length} characters")
    messages.append(message)
    replies.append(reply)
  assert not any(allergen in t or "allerg" in t for t in messages[1:] + replies)
  assert len(set(messages + replies)) == 2 * len(messages)
  ago, offsets = timeline(rng, len(messages), kind)
  return {"kind": kind, "budget": budget, "allergen": allergen, "messages": messages,
          "replies": replies, "summary": summary, "ago": ago, "offsets": offsets}


async def build(spec: dict[str, Any], folder: Path,  # noqa: ARG001 - nothing on disk
                resources: Resources) -> dict[str, Any]:  # noqa: ARG001
  return {"chats": [{"budget": c["budget"], "messages": c["messages"], "ago": c["ago"],
                     "offsets": c["offsets"]} for c in spec["chats"]]}


def servers(spec: dict[str, Any]) -> dict[str, ModelServer]:
  """Per chat, the barista (a reply per turn, found by the customer's message) and the
  summarizer (numbered summaries keeping the allergy sentences of what it is sent). Both note
  the last turn the barista was asked about (so that every summary is counted in its turn)
  and a sequence number shared by the two (so that a summary is known from when it was
  written)."""
  found = {}
  for number, chat_spec in enumerate(spec["chats"]):
    found.update(chat_servers(chat_spec, number))
  return found


def chat_servers(chat_spec: dict[str, Any], number: int) -> dict[str, ModelServer]:
  turn_of = {message: turn for turn, message in enumerate(chat_spec["messages"], 1)}
  state = {"turn": 0, "sequence": 0, "summaries": 0}

  def barista(request) -> tuple[str, dict[str, Any]]:
    turn = turn_of.get(latest_user_text(request) or "")
    state["turn"] = max(state["turn"], turn or 0)
    state["sequence"] += 1
    return (chat_spec["replies"][turn - 1] if turn else NOT_A_TURN,
            {"turn": turn, "after_turn": state["turn"], "sequence": state["sequence"],
             "instruction": instruction(request), "texts": request_texts(request),
             "other_parts": other_parts(request)})

  def summarizer(request) -> tuple[str, dict[str, Any]]:
    state["sequence"] += 1
    state["summaries"] += 1
    texts = [t for _, t in request_texts(request)]
    answer = summary_answer(texts[1:], state["summaries"], chat_spec["summary"])
    return answer, {"after_turn": state["turn"], "sequence": state["sequence"],
                    "answer": answer, "texts": texts[1:],
                    "unlike": unlike_the_given_summarizer(request)}

  return {f"barista-{number}": ModelServer(barista),
          f"summarizer-{number}": ModelServer(summarizer)}


# --- act ---------------------------------------------------------------------------------------

def refused(returned: Any) -> Optional[str]:
  """Why ``returned`` is not the contract's ``(RunConfig, EventsCompactionConfig or None)``."""
  from google.adk.agents.run_config import RunConfig
  from google.adk.apps.app import EventsCompactionConfig

  if not (isinstance(returned, tuple) and len(returned) == 2):
    return (f"fit_the_budget returned {type(returned).__name__}: the contract is a tuple "
            "(RunConfig, EventsCompactionConfig or None)")
  if not isinstance(returned[0], RunConfig):
    return f"the first item returned is of type {type(returned[0]).__name__}, not RunConfig"
  if returned[1] is not None and not isinstance(returned[1], EventsCompactionConfig):
    return (f"the second item returned is of type {type(returned[1]).__name__}, not "
            "EventsCompactionConfig or None")
  return None


class ChatClock:
  """The time ADK stamps the chat's events with (its ``platform.time`` provider): each turn
  begins at its own time, the events within it a millisecond apart, always forward."""

  def __init__(self, start: float):
    self.now = start

  def turn_begins(self, when: float) -> None:
    self.now = max(self.now, when)

  def __call__(self) -> float:
    self.now += 0.001
    return self.now


async def play(returned: tuple, messages: list[str], barista: Any, ago: float = 0.0,
               offsets: Optional[list[float]] = None) -> None:
  """The whole chat through a real ``Runner`` and ``App`` with the set-up returned, its turns
  at their times: begun ``ago`` seconds before now, turn k ``offsets[k]`` seconds after the
  first (None: ADK's own clock)."""
  import time

  from google.adk.agents import Agent
  from google.adk.apps.app import App
  from google.adk.platform import time as platform_time
  from google.adk.runners import Runner
  from google.adk.sessions import InMemorySessionService
  from google.genai import types

  problem = refused(returned)
  if problem:
    raise TypeError(problem)
  run_config, compaction = returned
  start = time.time() - ago
  clock = ChatClock(start)
  if offsets is not None:
    platform_time.set_time_provider(clock)
  try:
    agent = Agent(name="barista", instruction=INSTRUCTION, model=barista)
    app = App(name="cafe", root_agent=agent, events_compaction_config=compaction)
    service = InMemorySessionService()
    runner = Runner(app=app, session_service=service)
    session = await service.create_session(app_name="cafe", user_id="customer")
    for turn, message_text in enumerate(messages):
      if offsets is not None:
        clock.turn_begins(start + offsets[turn])
      message = types.Content(role="user", parts=[types.Part(text=message_text)])
      async for _event in runner.run_async(user_id="customer", session_id=session.id,
                                           new_message=message, run_config=run_config):
        pass
  finally:
    if offsets is not None:
      platform_time.reset_time_provider()


async def act(fn: Callable, world: ActWorld) -> None:
  """Call ``fn(budget, summarizer)`` once per chat, every call before any chat is played (a
  set-up kept or changed by another call shows), then play each chat with what its own call
  returned, the last one first (a second call per chat, under the same limits: a set-up ADK
  refuses fails there)."""
  adk_logger = logging.getLogger("google_adk")
  level = adk_logger.level
  adk_logger.setLevel(logging.CRITICAL)  # a failed summary is logged, and judged by its effect
  try:
    with warnings.catch_warnings():
      warnings.simplefilter("ignore")  # compaction is experimental in ADK 2.13
      set_ups = []
      for number, chat_inputs in enumerate(world.inputs["chats"]):
        summarizer = given_summarizer(world.channels[f"summarizer-{number}"])
        set_ups.append(await world.call(fn, chat_inputs["budget"], summarizer))
        world.snapshot()
        if world.outcomes[-1].get("raised") or world.outcomes[-1].get("stopped"):
          return
      for number in reversed(range(len(set_ups))):
        chat_inputs = world.inputs["chats"][number]
        barista = ChannelModel(world.channels[f"barista-{number}"], model="judge-barista")
        await world.call(play, set_ups[number], chat_inputs["messages"], barista,
                         chat_inputs["ago"], chat_inputs["offsets"],
                         label="the chat with your set-up", is_async=None)
        if world.outcomes[-1].get("raised") or world.outcomes[-1].get("stopped"):
          return
  finally:
    adk_logger.setLevel(level)


async def observe(spec: dict[str, Any], folder: Path, inputs: dict[str, Any],  # noqa: ARG001
                  view: View) -> dict:  # noqa: ARG001
  return {}  # everything is in what the two models received (the engine adds it)


# --- what every outcome must satisfy ---------------------------------------------------------

def properties(spec: dict[str, Any], observed: dict,
               pristine: dict) -> list[tuple[str, str]]:  # noqa: ARG001
  """The contract on every turn of every chat, from what the models received."""
  problems = []
  for number, chat_spec in enumerate(spec["chats"]):
    problems += chat_problems(chat_spec, f"chat {number + 1}",
                              records(observed, f"barista-{number}"),
                              records(observed, f"summarizer-{number}"))
  return problems


def chat_problems(chat_spec: dict[str, Any], name: str, barista: list[dict],
                  summaries: list[dict]) -> list[tuple[str, str]]:
  budget, messages, allergen = chat_spec["budget"], chat_spec["messages"], chat_spec["allergen"]
  played = {r["turn"] for r in barista if r["turn"]}
  if played != set(range(1, len(messages) + 1)):
    return [(check.name, f"{name}: {len(played)} of the {len(messages)} turns reached the "
             "barista") for check in CHECKS]
  events = [t for pair in zip(messages, chat_spec["replies"]) for t in pair]
  index = {t: i for i, t in enumerate(events)}
  problems: list[tuple[str, str]] = []
  # what each summary stands for: the events its request held, word for word or summarised
  stands_for: dict[str, tuple[int, set[int]]] = {}
  for r in summaries:
    where = f"{name}, after turn {r['after_turn']}"
    if r["tokens"] > budget:
      problems.append(("every_prompt_within_budget", f"{where}: the summarizer's request had "
                       f"{r['tokens']} estimated tokens (budget {budget})"))
    if r["unlike"]:
      problems.append(("returns_a_set_up", f"{where}: the summarizer's model was sent "
                       f"{r['unlike']}: not by the summarizer given"))
    covered: set[int] = set()
    for t in r["texts"]:
      if t in index:
        covered.add(index[t])
      elif t in stands_for:
        covered |= stands_for[t][1]
      else:
        problems.append(("returns_a_set_up", f"{where}: the summarizer was sent {quote(t[:80])}, "
                         "which no turn and no earlier summary wrote"))
    stands_for.setdefault(r["answer"], (r["sequence"], covered))
  for r in barista:
    turn = r["turn"]
    where = f"{name}, turn {turn}" if turn else f"{name}, after turn {r['after_turn']}"
    if r["tokens"] > budget:
      sent = "the barista's request" if turn else "a request to the barista's model"
      problems.append(("every_prompt_within_budget", f"{where}: {sent} had {r['tokens']} "
                       f"estimated tokens (budget {budget})"))
    if not turn:
      problems.append(("returns_a_set_up", f"{where}: the barista's model was sent something "
                       "that is no turn of the chat (a summary written with the agent's model?)"))
      continue
    problems += barista_problems(r, where, events, index, stands_for, messages, allergen)
  calls = sorted(r["after_turn"] for r in summaries + [r for r in barista if not r["turn"]])
  for turn in range(1, len(messages) + 1):
    made = sum(1 for after in calls if after <= turn)
    if made > turn // 2:
      problems.append(("summaries_are_affordable", f"{name}: {made} summaries by the end of "
                       f"turn {turn} (at most {turn // 2}): each is a model call"))
      break
  return problems


def barista_problems(r: dict, where: str, events: list[str], index: dict[str, int],
                     stands_for: dict[str, tuple[int, set[int]]], messages: list[str],
                     allergen: str) -> list[tuple[str, str]]:
  """What is wrong with the barista's request of one turn: texts nobody wrote, anything but
  summaries of the summarizer given followed by the chat's latest events in order, events gone
  without such a summary written from them, no allergy, the last two messages not raw."""
  turn, problems = r["turn"], []
  if r["instruction"] != BARISTA_SYSTEM:  # what ADK sends, whatever the set-up: a request
    # without it (or with more) was changed on its way, and nothing of the world can count
    return [(check.name, f"{where}: the barista's system instruction was "
             f"{quote(r['instruction'][:60])}, where ADK sends {quote(BARISTA_SYSTEM[:60])}... (99 "
             "characters) with any set-up: the request was changed on its way to the model")
            for check in CHECKS]
  texts = [t for _, t in r["texts"]]
  summarised: set[int] = set()
  first_raw = 0  # the summaries come first, then the events
  while first_raw < len(texts) and texts[first_raw] in stands_for \
      and stands_for[texts[first_raw]][0] < r["sequence"]:
    summarised |= stands_for[texts[first_raw]][1]
    first_raw += 1
  last = 2 * (turn - 1)  # the new message
  foreign = [t for t in texts if t not in index and t not in stands_for]
  for t in foreign[:1]:
    problems.append(("returns_a_set_up", f"{where}: the barista received {quote(t[:80])}, which "
                     "no turn and no summary of the summarizer given wrote"))
  tail = texts[first_raw:]
  start = last + 1 - len(tail)
  if not foreign and (start < 0 or tail != events[start:last + 1]):
    found = next((t for t, e in zip(tail, events[max(start, 0):]) if t != e), tail[0])
    problems.append(("returns_a_set_up", f"{where}: the barista received {quote(found[:60])} out "
                     "of place: a request holds summaries of the summarizer given, then the "
                     "chat's events from some point on, in order, and nothing else"))
  for kind in r["other_parts"][:1]:
    problems.append(("returns_a_set_up", f"{where}: the barista received a part that is no "
                     f"text ({kind}): no turn and no summary is one"))
  raw = {index[t] for t in tail if t in index and index[t] <= last}
  gone = [i for i in range(last + 1) if i not in raw and i not in summarised]
  if gone:
    problems.append(("returns_a_set_up", f"{where}: the barista no longer received "
                     f"{quote(events[gone[0]][:80])} (and {len(gone) - 1} more event(s)) word for "
                     "word, and no summary it received was written from it by the summarizer "
                     "given"))
  if turn > 1 and not any(allergen in t.lower() for t in texts):
    problems.append(("allergy_still_reaches_the_model", f"{where}: nothing the barista "
                     f"received mentions the {allergen} allergy from turn 1"))
  users = [t for role, t in r["texts"] if role == "user"]
  for message in messages[max(0, turn - 2):turn]:
    if message not in users:
      problems.append(("recent_turns_word_for_word", f"{where}: the customer's message "
                       f"{quote(message)} did not reach the barista word for word"))
  return problems


def label(spec: dict[str, Any]) -> str:
  return "chats of " + ", ".join(f"{len(c['messages'])} turns at budget {c['budget']}"
                                 for c in spec["chats"])


CHECKS = (
    Check("returns_a_set_up", 1,
          "Return `(RunConfig, EventsCompactionConfig or None)`; on every turn the barista "
          "receives summaries of the `summarizer` given, then the chat's events from some point "
          "on, in order, and nothing else; every event it no longer receives word for word was "
          "sent to the `summarizer` given for a summary it receives: never the barista's own "
          "model, a summarizer or text of your own, or a summary reused for events it was never "
          "sent.",
          hint="Without a summarizer ADK summarises with the agent's own model; a summarizer of "
               "your own, one rebuilt on the given one's model, or a wrapper that edits, reuses "
               "or adds to its summaries or to what it is sent is not the summarizer given; a "
               "window (of events, or of time: a chat may be older than its set-up) drops "
               "events that no summary stands for",
          success="a set-up of the contract's shape; everything summarised by the summarizer "
                  "given"),
    Check("every_prompt_within_budget", 2,
          "On every turn, every request of both models (the barista's and the summarizer's) "
          "stays within `budget_tokens`, for any budget the contract allows and a chat of any "
          "length.",
          hint="Every request counts, and every turn: whatever you keep must not grow with the "
               "chat (summaries that are never replaced pile up), a summary must come while the "
               "turn that crosses your trigger still fits (one token too little room is too "
               "little), and what you send the summarizer counts too. A set-up for one budget "
               "fails another",
          success="every request of both models within the budget, on every turn"),
    Check("allergy_still_reaches_the_model", 2,
          "The allergy stated in turn 1 reaches the barista in every later turn.",
          hint="A window alone drops turn 1; a summary keeps it only while that summary (or one "
               "that replaces it) is still sent",
          success="the allergy reaches the barista in every turn"),
    Check("recent_turns_word_for_word", 1,
          "On every turn, the customer's previous message and the new one reach the barista "
          "word for word.",
          hint="Whatever compaction keeps raw must still hold the previous message after a "
               "summary, however many turns that summary waited: count the events a turn "
               "stores",
          success="the previous and the new message reach the barista on every turn"),
    Check("summaries_are_affordable", 1,
          "Summaries cost at most one model call per two turns: by the end of turn t, at most "
          "t // 2 summaries.",
          hint="A summary is a model call: what is left right after one (with the longest "
               "turns and summary) must not trigger the next at once",
          success="at most one summary per two turns"),
)

EXERCISE = Exercise(
    name="fit_the_budget",
    lesson="06_long_conversations",
    signature=("def fit_the_budget(budget_tokens: int, summarizer: BaseEventsSummarizer) "
               "-> tuple[RunConfig, Optional[EventsCompactionConfig]]"),
    is_async=False,
    checks=CHECKS,
    generate=generate,
    build=build,
    act=act,
    observe=observe,
    classify=lambda spec, key: "returns_a_set_up",  # never asked: nothing is compared
    properties=properties,
    compare_to_reference=False,
    worlds=4,
    calls=lambda spec: 2 * len(spec["chats"]),
    label=label,
    servers=servers,
)
