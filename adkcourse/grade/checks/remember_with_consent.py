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
earlier session and withdraws in a later one. ``act`` searches memory for every word (before
and after the withdrawal), reports which entries it found and on which customers' turns the
callback raised: plain JSON, judged by ``observe`` and the checks.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from ._base import Exercise, Resources, Trial, call_submission, check, untrusted_notes
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
  share = None if time_limit is None else time_limit / len(setup["script"])
  raised_on: set[str] = set()

  async def say(name: str, text: str) -> None:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    async for _event in runner.run_async(user_id=users[name.split("_")[0]],
                                         session_id=session_ids[name], new_message=message):
      pass

  async def found(role: str, word: str) -> list[str]:
    """The authors of the entries a search for ``word`` returns in ``role``'s memory."""
    result = await memory.search_memory(app_name=app, user_id=users[role], query=word)
    return sorted(str(m.author) for m in result.memories
                  if any(word in (p.text or "") for p in m.content.parts or []))

  probes: dict[str, list[str]] = {}
  adk_logger = logging.getLogger("google_adk")
  level = adk_logger.level
  adk_logger.setLevel(logging.CRITICAL)
  try:
    for name, text in setup["script"]:
      if name == "probe":
        probes[text] = await found("leaver", words[text])
        continue
      noted = len(trial.notes)
      await call_submission(trial, say, name, text, is_async=True, label=FUNCTION,
                            time_limit=share)
      if len(trial.notes) > noted:                       # the turn failed: the callback raised
        raised_on.add(name.split("_")[0])
  finally:
    adk_logger.setLevel(level)
  if not getattr(fn, "__code__", None) or not fn.__code__.co_flags & 0x80:  # CO_COROUTINE
    trial.notes.append(f"`{FUNCTION}` is not an `async def`: ADK awaits it, and the context's "
                       "memory methods are coroutines")
  final = {key: await found(key.split("_")[0], word) for key, word in words.items()}
  return {"notes": list(dict.fromkeys(trial.notes)), "probes": probes, "final": final,
          "raised_on": sorted(raised_on)}


# --- observe ---------------------------------------------------------------------------------------

@dataclass
class ConsentTrial(Trial):
  setup: dict[str, Any] = field(default_factory=dict)
  final: dict[str, list[str]] = field(default_factory=dict)
  saved_before_withdrawal: list[str] = field(default_factory=list)
  earlier_before_withdrawal: list[str] = field(default_factory=list)
  raised_on: list[str] = field(default_factory=list)


def _authors(value: Any) -> list[str]:
  if not isinstance(value, list) or not all(type(v) is str for v in value):
    return []
  return value


async def observe(workdir: Path, setup: dict[str, Any], acted: Any) -> ConsentTrial:  # noqa: ARG001
  trial = ConsentTrial(notes=untrusted_notes(acted), setup=setup)
  acted = acted if isinstance(acted, dict) else {}
  final = acted.get("final") if isinstance(acted.get("final"), dict) else {}
  probes = acted.get("probes") if isinstance(acted.get("probes"), dict) else {}
  trial.final = {key: _authors(final.get(key)) for key in setup["words"]}
  trial.saved_before_withdrawal = _authors(probes.get("leaver_before"))
  trial.earlier_before_withdrawal = _authors(probes.get("leaver_earlier"))
  trial.raised_on = [r for r in _authors(acted.get("raised_on")) if r in ROLES]
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
