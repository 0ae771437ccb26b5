"""The judge of the lesson-6 exercise ``fit_the_budget`` (a compaction set-up for a prompt budget).

Contract (``exercises/fit_the_budget.py``): ``def fit_the_budget(budget_tokens, summarizer) ->
(RunConfig, EventsCompactionConfig or None)``, for any budget from 130 to 600 tokens and a chat
of any length: on every turn, every request of both models within the budget, the turn-1
allergy reaching the barista, the previous and the new message word for word, at most one
summary per two turns, summaries written by the summarizer given. Right answers differ
(thresholds, retentions, windows), so the judge checks these properties on every world
(``compare_to_reference=False``) instead of comparing with the reference.

A world is a chat (3 to 60 turns; sizes vary up to the contract's bounds) and a budget; the
four kinds of world are short chats at any budget, medium chats at tight budgets, long chats
at large budgets and the longest chats at the tightest budgets. ``act`` calls the function
with a summarizer of the judge's, then plays the whole chat through a real ``Runner`` and
``App`` with what it returned. Both models live with the judge (``servers``): the barista and
the summarizer answer from scripted rules and record every request they receive. That record
is the whole observation: no word of the process that ran the submission counts.
"""

from __future__ import annotations

import logging
import random
import re
import warnings
from pathlib import Path
from typing import Any, Callable, Optional

from ._engine import Check, Exercise, Resources, View
from ._fit_the_budget_support import (ALLERGENS, DRINKS, FIRST, MILKS, NAMES, ORDERS, PADDING,
                                      REPLIES, REPLY_PADDING, SIZES, ChannelModel, ModelServer,
                                      allergy_sentences, given_summarizer, instruction,
                                      latest_user_text, records, request_texts)
from ._harness import ActWorld

INSTRUCTION = "You are a friendly barista. Keep answers short."  # 99 characters with ADK's
MAX_MESSAGE, MAX_REPLY = 80, 40  # characters (the contract says so)
NOT_A_TURN = "Sorry, I only take orders."  # the barista's answer to anything but a turn
# (turns from, to, budget from, to, shortest message, shortest reply) of each kind of world: see
# the docstring (medium chats near the longest messages, long ones many turns between summaries)
VARIANTS = ((3, 10, 130, 600, 0, 0), (14, 24, 130, 160, 66, 32), (34, 46, 340, 520, 0, 0),
            (48, 60, 130, 150, 30, 20))


# --- the world ---------------------------------------------------------------------------------

def generate(rng: random.Random, variant: int) -> dict[str, Any]:
  fewest, most, smallest, largest, shortest, shortest_reply = VARIANTS[variant]
  allergen = rng.choice(ALLERGENS)
  milks = [m for m in MILKS if allergen not in m]
  turns = rng.randint(fewest, most)
  messages: list[str] = []
  while len(messages) < turns:
    words = {"a": allergen, "t": len(messages) + 1, "table": rng.randrange(2, 99),
             "drink": rng.choice(DRINKS), "milk": rng.choice(milks), "size": rng.choice(SIZES),
             "name": rng.choice(NAMES)}
    text = re.sub(r"\b([Aa]) ([aeiou])", r"\1n \2",  # "an espresso"
                  rng.choice(FIRST if not messages else ORDERS).format(**words))
    text = padded(rng, text, shortest, MAX_MESSAGE, PADDING)
    if len(text) <= MAX_MESSAGE and text not in messages:
      messages.append(text)
  replies = ["Noted, I will keep that in mind."]
  for message in messages[1:]:
    table = re.search(r"table (\d+)", message)
    drink = next(d for d in sorted(DRINKS, key=len, reverse=True) if d in message)
    reply = rng.choice(REPLIES).format(drink=drink, table=table.group(1) if table else "7")
    replies.append(padded(rng, reply, shortest_reply, MAX_REPLY, REPLY_PADDING))
  assert all(len(r) <= MAX_REPLY for r in replies)
  assert not any(allergen in text or "allerg" in text for text in messages[1:] + replies)
  return {"variant": variant, "budget": rng.randint(smallest, largest), "allergen": allergen,
          "messages": messages, "replies": replies}


def padded(rng: random.Random, text: str, shortest: int, longest: int,
           padding: tuple[str, ...]) -> str:
  """``text`` with polite words added until it has ``shortest`` characters, if they fit."""
  fitting = [p for p in padding if len(text) + len(p) <= longest and p not in text]
  while len(text) < shortest and fitting:
    text += rng.choice(fitting)
    fitting = [p for p in padding if len(text) + len(p) <= longest and p not in text]
  return text


async def build(spec: dict[str, Any], folder: Path,  # noqa: ARG001 - nothing on disk
                resources: Resources) -> dict[str, Any]:  # noqa: ARG001
  return {"budget": spec["budget"], "messages": spec["messages"]}


def servers(spec: dict[str, Any]) -> dict[str, ModelServer]:
  """The barista (a reply per turn, found by the customer's message) and the summarizer (the
  allergy sentences of what it is sent). Both note the last turn the barista was asked about,
  so that every summary is counted in its turn."""
  turn_of = {text: number for number, text in enumerate(spec["messages"], 1)}
  chat = {"turn": 0}

  def barista(request) -> tuple[str, dict[str, Any]]:
    turn = turn_of.get(latest_user_text(request) or "")
    chat["turn"] = max(chat["turn"], turn or 0)
    return (spec["replies"][turn - 1] if turn else NOT_A_TURN,
            {"turn": turn, "after_turn": chat["turn"], "instruction": instruction(request),
             "texts": request_texts(request)})

  def summarizer(request) -> tuple[str, dict[str, Any]]:
    kept = allergy_sentences([text for _, text in request_texts(request)])
    answer = "Summary: " + (" ".join(kept) if kept else "drinks were ordered.")
    return answer, {"after_turn": chat["turn"], "answer": answer}

  return {"barista": ModelServer(barista), "summarizer": ModelServer(summarizer)}


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


async def play(returned: tuple, messages: list[str], barista: Any) -> None:
  """The whole chat through a real ``Runner`` and ``App`` with the set-up returned."""
  from google.adk.agents import Agent
  from google.adk.apps.app import App
  from google.adk.runners import Runner
  from google.adk.sessions import InMemorySessionService
  from google.genai import types

  problem = refused(returned)
  if problem:
    raise TypeError(problem)
  run_config, compaction = returned
  agent = Agent(name="barista", instruction=INSTRUCTION, model=barista)
  app = App(name="cafe", root_agent=agent, events_compaction_config=compaction)
  service = InMemorySessionService()
  runner = Runner(app=app, session_service=service)
  session = await service.create_session(app_name="cafe", user_id="customer")
  for text in messages:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    async for _event in runner.run_async(user_id="customer", session_id=session.id,
                                         new_message=message, run_config=run_config):
      pass


async def act(fn: Callable, world: ActWorld) -> None:
  """Call ``fn(budget, summarizer)``, then play the chat with what it returned (a second call,
  under the same limits: a set-up ADK refuses fails there)."""
  summarizer = given_summarizer(world.channels["summarizer"])
  barista = ChannelModel(world.channels["barista"], model="judge-barista")
  adk_logger = logging.getLogger("google_adk")
  level = adk_logger.level
  adk_logger.setLevel(logging.CRITICAL)  # a failed summary is logged, and judged by its effect
  try:
    with warnings.catch_warnings():
      warnings.simplefilter("ignore")  # compaction is experimental in ADK 2.13
      returned = await world.call(fn, world.inputs["budget"], summarizer)
      world.snapshot()
      if not world.outcomes[-1].get("raised") and not world.outcomes[-1].get("stopped"):
        await world.call(play, returned, world.inputs["messages"], barista,
                         label="the chat with your set-up", is_async=None)
  finally:
    adk_logger.setLevel(level)


async def observe(spec: dict[str, Any], folder: Path, inputs: dict[str, Any],  # noqa: ARG001
                  view: View) -> dict:  # noqa: ARG001
  return {}  # everything is in what the two models received (the engine adds it)


# --- what every outcome must satisfy ---------------------------------------------------------

def properties(spec: dict[str, Any], observed: dict,
               pristine: dict) -> list[tuple[str, str]]:  # noqa: ARG001
  """The contract on every turn, from what the two models received."""
  budget, messages, allergen = spec["budget"], spec["messages"], spec["allergen"]
  barista, summaries = records(observed, "barista"), records(observed, "summarizer")
  played = {r["turn"] for r in barista if r["turn"]}
  if played != set(range(1, len(messages) + 1)):
    return [(check.name, f"{len(played)} of the {len(messages)} turns reached the barista")
            for check in CHECKS]
  known = set(messages) | set(spec["replies"]) | {r["answer"] for r in summaries}
  problems = []
  for r in barista:
    turn = r["turn"]
    where = f"turn {turn}" if turn else f"after turn {r['after_turn']}"
    if r["tokens"] > budget:
      sent = "the barista's request" if turn else "a request to the barista's model"
      problems.append(("every_prompt_within_budget", f"{where}: {sent} had {r['tokens']} "
                       f"estimated tokens (budget {budget})"))
    if not turn:
      problems.append(("returns_a_set_up", f"{where}: the barista's model was sent something "
                       "that is no turn of the chat (a summary written with the agent's model?)"))
      continue
    texts = [text for _, text in r["texts"]]
    foreign = [text for text in texts if text not in known]
    if foreign:
      problems.append(("returns_a_set_up", f"{where}: the barista received {foreign[0]!r}, "
                       "which no turn and no summary of the given summarizer wrote"))
    if turn > 1 and not any(allergen in text.lower() for text in texts + [r["instruction"]]):
      problems.append(("allergy_still_reaches_the_model", f"{where}: nothing the barista "
                       f"received mentions the {allergen} allergy from turn 1"))
    users = [text for role, text in r["texts"] if role == "user"]
    for message in messages[max(0, turn - 2):turn]:
      if message not in users:
        problems.append(("recent_turns_word_for_word", f"{where}: the customer's message "
                         f"{message!r} did not reach the barista word for word"))
  for r in summaries:
    if r["tokens"] > budget:
      problems.append(("every_prompt_within_budget", f"after turn {r['after_turn']}: the "
                       f"summarizer's request had {r['tokens']} estimated tokens "
                       f"(budget {budget})"))
  calls = sorted(r["after_turn"] for r in summaries + [r for r in barista if not r["turn"]])
  for turn in range(1, len(messages) + 1):
    made = sum(1 for after in calls if after <= turn)
    if made > turn // 2:
      problems.append(("summaries_are_affordable", f"{made} summaries by the end of turn "
                       f"{turn} (at most {turn // 2}): each is a model call"))
      break
  return problems


def label(spec: dict[str, Any]) -> str:
  return f"{len(spec['messages'])} turns, budget {spec['budget']}"


CHECKS = (
    Check("returns_a_set_up", 1,
          "Return `(RunConfig, EventsCompactionConfig or None)`; compaction summarises with the "
          "`summarizer` given, never with the barista's model.",
          hint="Without a summarizer ADK summarises with the agent's own model; a summarizer of "
               "your own is not the one given",
          success="a set-up of the contract's shape, summarising with the summarizer given"),
    Check("every_prompt_within_budget", 2,
          "On every turn, every request of both models (the barista's and the summarizer's) "
          "stays within `budget_tokens`, for any budget the contract allows and a chat of any "
          "length.",
          hint="Every request counts, and every turn: whatever you keep must not grow with the "
               "chat (summaries that are never replaced pile up), a summary must come while the "
               "turn that crosses your trigger still fits, and what you send the summarizer "
               "counts too. A set-up for one budget fails another",
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
               "summary: count the events a turn stores",
          success="the previous and the new message reach the barista on every turn"),
    Check("summaries_are_affordable", 1,
          "Summaries cost at most one model call per two turns: by the end of turn t, at most "
          "t // 2 summaries.",
          hint="A summary is a model call: what is left right after one must not trigger the "
               "next at once",
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
    worlds=len(VARIANTS),
    calls=lambda spec: 2,
    label=label,
    servers=servers,
)
