"""Checks of the lesson-5 exercise ``remember_with_consent`` (memory only with consent, and
forgetting on request).

Contract: ``async def remember_with_consent(callback_context) -> None`` is an agent's
``after_agent_callback``. When the customer's ``user:memory_consent`` is ``True``, the whole
conversation (what was said before the consent included) is in the memory service afterwards;
otherwise nothing of it is added; and when it is ``False`` (consent refused or withdrawn), every
memory copied from *this* conversation is deleted, while the customer's earlier conversations
stay in memory. On ``InMemoryMemoryService`` a deleted entry never comes back, even after a new
consent.

The trial runs the function in a real ``Runner`` with ``InMemorySessionService`` and
``InMemoryMemoryService`` (the one ADK 2.13 memory service with ``delete_memory``); an offline
model calls a ``set_memory_consent`` tool when a customer says "consent yes/no" and echoes
"note WORD" messages. Four customers, names and words drawn from the run's seed: one who speaks
first and consents afterwards, one never asked, one who refuses, and one who consents in an
earlier session and withdraws in a later one. ``act`` only plays the script and dumps the
memory service's raw entries (app, user, session id, event id, author, timestamp, text parts:
plain JSON) when the script probes memory (before the withdrawal) and at the end, plus on which
customers' turns the callback raised. ``observe`` (trusted) validates the dumps strictly,
rebuilds an ``InMemoryMemoryService`` from each and runs every search itself: no search result
computed in the submission's process is used. (The dumps come from that process: forging them
is the documented residual risk, and earns what leaving such entries would.)
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from ._base import Exercise, Resources, TimeBudget, Trial, call_submission, check, untrusted_notes
from ._world import FIRST_NAMES, app_name, rng_for, secret

FUNCTION = "remember_with_consent"
AGENT = "consent_concierge"
ROLES = ("keeper", "silent", "refuser", "leaver")


# --- prepare ---------------------------------------------------------------------------------------

async def prepare(workdir: Path, resources: Resources) -> dict[str, Any]:  # noqa: ARG001
  seed, rng = rng_for(resources.seed)
  app = app_name(rng, set())
  users = dict(zip(ROLES, rng.sample(FIRST_NAMES, len(ROLES))))
  words = {key: f"w{secret(rng)}" for key in ("keeper_0", "keeper_1", "keeper_2", "silent",
                                               "refuser", "leaver_earlier", "leaver_before",
                                               "leaver_after")}
  # (session, message): a session is named after its customer's role; the leaver has two.
  script = [
      ("keeper", f"note {words['keeper_0']}"),            # said before consenting: saved later
      ("keeper", "consent yes"), ("keeper", f"note {words['keeper_1']}"),
      ("silent", f"note {words['silent']}"),
      ("refuser", "consent no"), ("refuser", f"note {words['refuser']}"),
      ("leaver_earlier", "consent yes"), ("leaver_earlier", f"note {words['leaver_earlier']}"),
      ("leaver", f"note {words['leaver_before']}"),      # user: consent carries over: saved
      ("probe", "leaver_before"), ("probe", "leaver_earlier"),   # act searches: both saved?
      ("leaver", "consent no"), ("leaver", f"note {words['leaver_after']}"),
      ("keeper", f"note {words['keeper_2']}"),
  ]
  return {"seed": seed, "app": app, "users": users, "words": words, "script": script}


# --- act -------------------------------------------------------------------------------------------

def _rules():
  from adkcourse.offline_model import fallback, on_tool, on_user

  return [
      on_user(r"^consent (?P<answer>yes|no)$", call="set_memory_consent",
              args=lambda match, turn: {"consent": match.group("answer") == "yes"}),
      on_tool("set_memory_consent", reply="Your choice is saved."),
      on_user(r"^note (?P<word>\w+)$", reply=lambda turn: f"Noted {turn.user_text.split()[-1]}."),
      fallback("Hello!"),
  ]


def set_memory_consent(tool_context, consent: bool) -> dict:
  """Records whether the customer lets the cafe remember their conversations.

  Args:
    consent: True when the customer agrees, False when they refuse or withdraw.
  """
  tool_context.state["user:memory_consent"] = consent
  return {"memory_consent": consent}


async def act(fn: Callable, workdir: Path, setup: dict[str, Any],  # noqa: ARG001
              time_limit: Optional[float] = None) -> dict[str, Any]:
  """Play the script through a real Runner whose agent has ``fn`` as after_agent_callback."""
  from google.adk.agents import Agent
  from google.adk.memory import InMemoryMemoryService
  from google.adk.runners import Runner
  from google.adk.sessions import InMemorySessionService
  from google.genai import types

  from adkcourse.offline_model import OfflineModel

  trial = Trial()
  app, users, words = setup["app"], setup["users"], setup["words"]
  sessions, memory = InMemorySessionService(), InMemoryMemoryService()
  agent = Agent(name=AGENT, model=OfflineModel(rules=_rules()), tools=[set_memory_consent],
                instruction="Ask for consent before remembering.", after_agent_callback=fn)
  runner = Runner(app_name=app, agent=agent, session_service=sessions, memory_service=memory)
  session_ids = {}
  for name in dict.fromkeys(name for name, _ in setup["script"] if name != "probe"):
    user = users[name.split("_")[0]]
    session_ids[name] = (await sessions.create_session(app_name=app, user_id=user)).id
  budget = TimeBudget(time_limit, sum(name != "probe" for name, _ in setup["script"]))
  raised_on: set[str] = set()

  async def say(name: str, text: str) -> None:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    async for _event in runner.run_async(user_id=users[name.split("_")[0]],
                                         session_id=session_ids[name], new_message=message):
      pass

  at_probe: Optional[list[dict[str, Any]]] = None
  adk_logger = logging.getLogger("google_adk")
  level = adk_logger.level
  adk_logger.setLevel(logging.CRITICAL)
  try:
    for name, text in setup["script"]:
      if name == "probe":
        if at_probe is None:
          at_probe = dump_memory(memory)
        continue
      noted = len(trial.notes)
      await call_submission(trial, say, name, text, is_async=True, label=FUNCTION,
                            budget=budget)
      if len(trial.notes) > noted:                       # the turn failed: the callback raised
        raised_on.add(name.split("_")[0])
  finally:
    adk_logger.setLevel(level)
  if not getattr(fn, "__code__", None) or not fn.__code__.co_flags & 0x80:  # CO_COROUTINE
    trial.notes.append(f"`{FUNCTION}` is not an `async def`: ADK awaits it, and the context's "
                       "memory methods are coroutines")
  return {"notes": list(dict.fromkeys(trial.notes)), "raised_on": sorted(raised_on),
          "memory": {"at_probe": at_probe if at_probe is not None else [],
                     "final": dump_memory(memory)}}


def dump_memory(memory: Any) -> list[dict[str, Any]]:
  """Every entry of an ``InMemoryMemoryService``, in its own order (user, session, event), as
  plain JSON: what ``observe`` rebuilds a service from. Nothing is searched here."""
  entries = []
  for (app, user), sessions in list(memory._session_events.items()):  # noqa: SLF001
    for session_id, events in list(sessions.items()):
      for event in list(events):
        parts = (event.content.parts or []) if event.content else []
        entries.append({"app": str(app), "user": str(user), "session": str(session_id),
                        "id": str(event.id), "author": str(event.author),
                        "timestamp": float(event.timestamp),
                        "texts": [None if part.text is None else str(part.text)
                                  for part in parts]})
  return entries


# --- observe ---------------------------------------------------------------------------------------

@dataclass
class ConsentTrial(Trial):
  setup: dict[str, Any] = field(default_factory=dict)
  final: dict[str, list[str]] = field(default_factory=dict)
  saved_before_withdrawal: list[str] = field(default_factory=list)
  earlier_before_withdrawal: list[str] = field(default_factory=list)
  raised_on: list[str] = field(default_factory=list)


MAX_ENTRIES = 1_000   # entries in one dump (the script makes a few dozen)
MAX_PARTS = 50        # text parts of one entry
MAX_CHARS = 10_000    # characters of one field
ENTRY_KEYS = {"app": str, "user": str, "session": str, "id": str, "author": str,
              "timestamp": float, "texts": list}


class MalformedDump(ValueError):
  """A memory dump from ``act`` that is not exactly what ``dump_memory`` writes."""


def _entries(value: Any, what: str) -> list[dict[str, Any]]:
  """The entries of one dump, exactly typed and bounded; MalformedDump otherwise."""
  if type(value) is not list:
    raise MalformedDump(f"the {what} dump is a {type(value).__name__}, not a list")
  if len(value) > MAX_ENTRIES:
    raise MalformedDump(f"the {what} dump holds {len(value)} entries (at most {MAX_ENTRIES})")
  for entry in value:
    if type(entry) is not dict or set(entry) != set(ENTRY_KEYS):
      raise MalformedDump(f"an entry of the {what} dump does not have exactly the keys "
                          f"{', '.join(ENTRY_KEYS)}")
    for key, kind in ENTRY_KEYS.items():
      if type(entry[key]) is not kind:
        raise MalformedDump(f"an entry's {key} in the {what} dump is a "
                            f"{type(entry[key]).__name__}, not a {kind.__name__}")
      if kind is str and len(entry[key]) > MAX_CHARS:
        raise MalformedDump(f"an entry's {key} in the {what} dump is too long")
    texts = entry["texts"]
    if len(texts) > MAX_PARTS or not all(t is None or (type(t) is str and len(t) <= MAX_CHARS)
                                         for t in texts):
      raise MalformedDump(f"an entry's texts in the {what} dump are not a short list of "
                          "strings (or nulls)")
  return value


async def _rebuild(entries: list[dict[str, Any]]):
  """A fresh ``InMemoryMemoryService`` holding ``entries``, in their order."""
  from google.adk.events import Event
  from google.adk.memory import InMemoryMemoryService
  from google.genai import types

  memory = InMemoryMemoryService()
  for entry in entries:
    try:
      content = types.Content(parts=[types.Part(text=t) for t in entry["texts"]])
      event = Event(id=entry["id"], author=entry["author"], timestamp=entry["timestamp"],
                    invocation_id="", content=content)
    except Exception as error:  # noqa: BLE001 - pydantic refusing a value
      raise MalformedDump(f"an entry of a dump could not be rebuilt ({type(error).__name__})")
    await memory.add_events_to_memory(app_name=entry["app"], user_id=entry["user"],
                                      events=[event], session_id=entry["session"])
  return memory


async def _found(memory: Any, app: str, user: str, word: str) -> list[str]:
  """The authors of the entries a search for ``word`` returns in ``user``'s memory."""
  result = await memory.search_memory(app_name=app, user_id=user, query=word)
  return sorted(str(m.author) for m in result.memories
                if any(word in (p.text or "") for p in (m.content.parts or [])))


async def observe(workdir: Path, setup: dict[str, Any], acted: Any) -> ConsentTrial:  # noqa: ARG001
  trial = ConsentTrial(notes=untrusted_notes(acted), setup=setup)
  acted = acted if isinstance(acted, dict) else {}
  app, users, words = setup["app"], setup["users"], setup["words"]
  dumps = acted.get("memory")
  try:
    if type(dumps) is not dict or set(dumps) != {"at_probe", "final"}:
      raise MalformedDump("the run did not report the memory service's contents")
    before = await _rebuild(_entries(dumps["at_probe"], "probe"))
    after = await _rebuild(_entries(dumps["final"], "final"))
  except MalformedDump as error:
    trial.notes.append(f"{error}: nothing could be judged")
    trial.final = {key: [] for key in words}
    trial.acted = False
    return trial
  trial.saved_before_withdrawal = await _found(before, app, users["leaver"],
                                               words["leaver_before"])
  trial.earlier_before_withdrawal = await _found(before, app, users["leaver"],
                                                 words["leaver_earlier"])
  trial.final = {key: await _found(after, app, users[key.split("_")[0]], word)
                 for key, word in words.items()}
  raised = acted.get("raised_on")
  if isinstance(raised, list) and all(type(r) is str for r in raised):
    trial.raised_on = [r for r in raised if r in ROLES]
  trial.acted = bool(trial.saved_before_withdrawal) or any(trial.final.values())
  return trial


# --- checks ----------------------------------------------------------------------------------------

BOTH = sorted(["user", AGENT])


@check(3)
def saved_with_consent(trial: ConsentTrial) -> tuple[float, str]:
  """A customer whose ``user:memory_consent`` is True finds every message of the conversation
  and every reply in memory afterwards."""
  wanted = ["keeper_0", "keeper_1", "keeper_2"]
  complete = [key for key in wanted if trial.final.get(key) == BOTH]
  if len(complete) == len(wanted):
    return 1, "a consenting customer's messages and the replies are in memory"
  partial = [f"{key}: {trial.final.get(key) or 'nothing'}" for key in wanted if key not in complete]
  return len(complete) / len(wanted), (
      "the consenting customer's memory is incomplete (" + "; ".join(partial) + "): each turn's "
      "message and reply, those said before the consent included, must be searchable once a "
      "turn with consent is over")


def _not_kept(trial: ConsentTrial, key: str, who: str) -> tuple[float, str]:
  found = trial.final.get(key)
  if not found:
    return 1, f"nothing is kept for {who}"
  return 0, (f"memory was kept for {who} (entries by {', '.join(found)}): save only when "
             "user:memory_consent is True")


@check(2, needs_action=True)
def never_asked_not_saved(trial: ConsentTrial) -> tuple[float, str]:
  """Nothing is added for a customer who was never asked (no ``user:memory_consent``), and the
  callback does not fail on their turns."""
  if "silent" in trial.raised_on:
    return 0, ("the callback raised on the turns of a customer never asked: they have no "
               "user:memory_consent at all, and their turns must still end normally")
  return _not_kept(trial, "silent", "a customer never asked")


@check(2, needs_action=True)
def refusal_respected(trial: ConsentTrial) -> tuple[float, str]:
  """Nothing is added for a customer who refused (``user:memory_consent`` is False)."""
  return _not_kept(trial, "refuser", "a customer who refused")


@check(2, needs_action=True)
def nothing_after_withdrawal(trial: ConsentTrial) -> tuple[float, str]:
  """Nothing the customer says after withdrawing consent is added."""
  return _not_kept(trial, "leaver_after", "a customer after withdrawing")


@check(3)
def forgotten_on_withdrawal(trial: ConsentTrial) -> tuple[float, str]:
  """When consent is withdrawn (False), what this conversation had put in memory is deleted
  (messages and replies), and only that: the customer's earlier conversations stay."""
  if trial.saved_before_withdrawal != BOTH:
    return 0, ("could not be tested: while the customer consented, their message and the reply "
               "were not both in memory")
  left = trial.final.get("leaver_before", [])
  earlier = trial.final.get("leaver_earlier", [])
  if not left and trial.earlier_before_withdrawal == BOTH and earlier != BOTH:
    return 0.5, ("withdrawing consent also deleted the customer's earlier conversation: delete "
                 "only the memories this conversation added")
  if not left:
    return 1, "withdrawing consent removed this conversation's memories"
  return 0.5 if len(left) < 2 else 0, (
      f"after withdrawal a search still finds entries by {', '.join(left)}: delete every memory "
      "this conversation added (delete_memory takes the id a search returns: the event's id)")


EXERCISE = Exercise(
    name=FUNCTION,
    lesson="05_long_term_memory",
    signature="async def remember_with_consent(callback_context) -> None",
    is_async=True,
    checks=(saved_with_consent, never_asked_not_saved, refusal_respected, forgotten_on_withdrawal,
            nothing_after_withdrawal),
    prepare=prepare,
    act=act,
    observe=observe,
)
