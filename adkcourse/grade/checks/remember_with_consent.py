"""The judge of the lesson-5 exercise ``remember_with_consent`` (memory only with consent).

Contract (``exercises/remember_with_consent.py``): an ``after_agent_callback`` on a Runner with
an ``InMemoryMemoryService``; after each turn, with ``user:memory_consent`` True memory holds
this conversation's events but the deleted ones, otherwise nothing of it is added, and with
False what it added is deleted (``delete_memory``: never to come back); nothing else changes.

A world is a script played through Runners of two look-alike apps: in every world, a trio
(``TRIO``: a customer who consents, withdraws, consents again and withdraws again in one shared
session and in a second one, another user of the app with a look-alike id in that session, and
the same user id in the other app there too), then customers of kinds drawn per variant
(``PLANS``: never asked, withdraws later, comes back, speaks in an older session after
withdrawing, answered on an earlier visit, a random walk), look-alike ids, session ids like
``default`` shared across customers and apps, interleaved turns, and earlier conversations (a
bystander's too) already in memory.

The memory service is the judge's (``MemoryServer``; the sandbox's Runner forwards every call).
Observed: its state after every turn, recorded by the server: every entry of every app, user
and session (what a search returns, whether it follows the one before in time, its other
fields), and the ids lost without ``delete_memory`` (a later add brings them back); and, as
each turn's return (``CallbackWatch``), what its callback returned and did to the conversation
(state written, events added), compared with the reference's. Event ids and times are the
script's (``4f2a-t03.1``); ``classify`` asks the contract's model why.
"""

from __future__ import annotations

import inspect
import random
from typing import Any, Callable, Optional

from google.adk.runners import Runner

from ._engine import Check, Exercise, Open, Resources
from ..wording import english
from ._harness import ActWorld, quiet_adk
from ._remember_with_consent_support import (SEARCHED, CallbackWatch, ChannelMemoryService,
                                             MemoryServer, StampedSessions, concierge, event_id,
                                             turn_call)
from ._world import FIRST_NAMES, SHARED_SESSION_IDS, awkward_user_id, secret
from ._observe import quote

FUNCTION = "remember_with_consent"
AGENT = "consent_concierge"
YES, NO = "consent yes", "consent no"
CHATTER = ("hello", "what is on the menu today?", "thanks, see you")
# What each kind of customer says, turn by turn: a session number, then n ("note WORD"), c
# (chatter), y (consent yes) or x (consent no); and the answer given on an earlier visit.
PLANS: dict[str, tuple[Optional[bool], str]] = {
    "consents after speaking": (None, "0n 0y 0n 0n"),
    "never asked": (None, "0n 0c 0n"),
    "refuses": (None, "0n 0x 0n"),
    "withdraws later": (None, "0y 0n 1n 1x 1n"),
    "withdraws, consents again": (None, "0n 0y 0n 0x 0n 0y 0n"),
    "comes back": (None, "0y 0n 1x 1n 2n 2y 2n"),
    "back to an old session": (None, "0y 0n 1n 1x 0n"),
    "consented before": (True, "0n 0n 0x"),
    "refused before": (False, "0n 0y 0n 0x 0n"),
}
# The kinds the trio below does not play already (it speaks, consents, withdraws and consents
# again; refuses; consented before), two per world, and a random walk in one world.
VARIANTS = (
    ("withdraws later", "never asked"),
    ("comes back", "refused before"),
    ("back to an old session", "never asked"),
    (),  # a random kind and a random walk
)
# Three customers every world holds, whose turns keep this order (the others' come in between):
# A; L, another user of the app with an id like A's (of another case, or A's with a suffix);
# O, A's user id in the other app (of another case, or suffixed), who consented on an earlier
# visit; all three in one session id (A also in a second session). The other two's False turns
# come between A's consent and A's withdrawal; A withdraws twice in one session, with a False
# turn and a new consent in between, then speaks in the other one; A's False turn comes between
# L's consent and L's withdrawal; at the end A consents again in the first session, speaks in
# the second, and withdraws in the first and then in the second (its second withdrawal, the
# consent given elsewhere). What is kept per session id, per user and session, per app and
# session, or per customer instead of per conversation mixes them up, and "forgotten already"
# (reset on consent or not) misses a second withdrawal. Nobody else speaks in that session.
TRIO = ("A0n O0n A0y A0n L0n A1n L0x A0x A0n A0y A0n O0x A0x A1n L0y L0n A0n L0x "
        "A0y A1n A0x A1n")
TRIO_KINDS = {"A": "consents and withdraws again and again, in a shared session and another",
              "L": "a look-alike in that session", "O": "the same id in the other app"}


# --- the world ---------------------------------------------------------------------------------

def _user_ids(rng: random.Random, count: int, variant: int) -> list[str]:
  """A's id and L's, alike (of another case in even variants, one the other's prefix in odd
  ones), then others: the remaining look-alike and an awkward one among them."""
  first = rng.choice(FIRST_NAMES)
  case, prefix = first.title(), f"{first}_{rng.randrange(2, 9)}"
  pair = [first, case if variant % 2 == 0 else prefix]
  rng.shuffle(pair)
  rest = [prefix if variant % 2 == 0 else case,
          awkward_user_id(rng, rng.choice(("quotes", "unicode", "emoji", "spaces")))]
  rng.shuffle(rest)
  rest += [n for n in rng.sample(FIRST_NAMES, count) if n != first]
  return (pair + rest)[:count]


def _seeded(rng: random.Random, app: str, user: str, session: str, start: float, tag: str,
            number: int) -> dict[str, Any]:
  """An earlier conversation already in memory (from a session no longer around)."""
  word = f"w{secret(rng)}"
  said = ((f"note {word}", "user", "user"), (f"Noted {word}.", AGENT, "model"))
  return {"app": app, "user": user, "session": session, "events": [
      {"id": f"{tag}-m{number:02d}.{n}", "author": author, "timestamp": start - 86400 + n,
       "invocation_id": f"e-{secret(rng)}", "content": {"role": role, "parts": [{"text": text}]}}
      for n, (text, author, role) in enumerate(said)]}


def generate(rng: random.Random, variant: int) -> dict[str, Any]:
  app = f"cafe_{rng.randrange(100, 999)}"
  other_app = app.upper() if variant < 2 else f"{app}_beta"  # of another case, or prefixed
  kinds = list(VARIANTS[variant]) or rng.sample(sorted(PLANS), 1) + ["random walk"]
  rng.shuffle(kinds)
  users = _user_ids(rng, len(kinds) + 3, variant)  # A, L, the others, a bystander
  start = 1_750_000_000.0 + rng.randrange(10**6)
  tag = secret(rng)[:4]
  shared, elsewhere = rng.sample(SHARED_SESSION_IDS, 2)
  customers, memory, plans = [], [], []

  def customer(app_: str, user: str, kind: str, consent: Optional[bool],
               sessions: list[str]) -> None:
    customers.append({"app": app_, "user": user, "kind": kind, "consent": consent,
                      "sessions": sessions})
    if consent is not None or rng.random() < 0.3:  # a returning customer: memory already
      memory.append(_seeded(rng, app_, user, f"s-{secret(rng)}", start, tag, len(memory)))

  def planned(app_: str, user: str, kind: str) -> None:
    walk = " ".join(f"{rng.randrange(2)}{rng.choice('nnyxc')}" for _ in range(8))
    consent, plan = PLANS.get(kind) or (rng.choice((None, True, False)), walk)
    steps = [(int(step[0]), step[1]) for step in plan.split()]
    count = max(number for number, _ in steps) + 1
    sessions = [elsewhere if rng.random() < 0.6 else f"s-{secret(rng)}"]
    sessions += [f"s-{secret(rng)}" for _ in range(count - 1)]
    customer(app_, user, kind, consent, sessions)
    plans.append([(app_, user, sessions[number], text) for number, text in steps])

  second = rng.choice([s for s in SHARED_SESSION_IDS if s not in (shared, elsewhere)]
                      + [f"s-{secret(rng)}"] * 3)
  trio = {"A": (app, users[0], [shared, second], None), "L": (app, users[1], [shared], None),
          "O": (other_app, users[0], [shared], True)}
  for who, (app_, user, sessions, consent) in trio.items():
    customer(app_, user, TRIO_KINDS[who], consent, sessions)
  plans.append([(trio[step[0]][0], trio[step[0]][1], trio[step[0]][2][int(step[1])],
                 "c" if step[2] == "n" and rng.random() < 0.2 else step[2])
                for step in TRIO.split()])
  for user, kind in zip(users[2:], kinds):
    planned(app, user, kind)
  planned(other_app, rng.choice(users[2:2 + len(kinds)]),
          rng.choice([k for k in PLANS if k not in kinds] or sorted(PLANS)))
  memory.append(_seeded(rng, app, users[-1], shared, start, tag, len(memory)))  # a bystander
  turns = []
  while any(plans):  # interleaved, each customer's steps in order
    plan = rng.choice([p for p in plans if p])
    app_, user, session, text = plan.pop(0)
    text = {"n": f"note w{secret(rng)}", "c": rng.choice(CHATTER), "y": YES, "x": NO}[text]
    turns.append({"app": app_, "user": user, "session": session, "text": text})
  return {"variant": variant, "apps": [app, other_app], "start": start, "tag": tag,
          "customers": customers, "memory": memory, "turns": turns}


async def build(spec: dict[str, Any], folder, resources: Resources) -> dict[str, Any]:  # noqa: ARG001
  """Nothing on disk: the memory is the judge's server; act needs the script."""
  return {key: spec[key] for key in ("apps", "start", "tag", "turns", "customers")}


# --- act ---------------------------------------------------------------------------------------

async def act(fn: Callable, world: ActWorld) -> None:
  """Play the script, one call per turn; after each, tell the judge's memory server that the
  turn is over (it records its state then)."""
  inputs = world.inputs
  memory = ChannelMemoryService(world.channels["memory"])
  sessions = StampedSessions(inputs["start"], inputs["tag"])
  watch = CallbackWatch(fn, sessions)
  if not inspect.iscoroutinefunction(fn):
    world.snapshot_notes.append(f"`{FUNCTION}` is defined with `def`: the contract is `async def` "
                                "(ADK also calls a plain callback, so it is judged as it behaves)")
  runners = {app: Runner(app_name=app, agent=concierge(AGENT, watch), session_service=sessions,
                         memory_service=memory) for app in inputs["apps"]}
  await sessions.open(inputs["customers"])
  with quiet_adk():
    for number, turn in enumerate(inputs["turns"], start=1):
      sessions.turn = number
      call = turn_call(fn, runners[turn["app"]], watch, turn["user"], turn["session"],
                       turn["text"])
      await world.call(call, label=FUNCTION)
      memory.turn_done(number)
      if world.outcomes[-1].get("stopped"):
        break
  if watch.left_running:
    world.snapshot_notes.append(english("left_running_callback", count=watch.left_running))
  world.snapshot()


async def observe(spec: dict[str, Any], folder, inputs: dict[str, Any], view) -> dict:  # noqa: ARG001
  """Nothing but the memory server's own record (added by the engine)."""
  return {}


# --- what the contract expects, and why a difference costs what it costs ----------------------

def _events_of(text: str) -> int:
  """Events a turn stores: the message and the reply, plus a tool call and its result."""
  return 4 if text in (YES, NO) else 2


def expected(spec: dict[str, Any]) -> list[dict[str, Any]]:
  """The contract played on the script: after each turn, the consent the callback saw, where
  the turn was, each (app, user, session)'s entry ids in order, each (app, user)'s deleted
  ids, and who had consented at some time before the turn."""
  consent = {(c["app"], c["user"]): c["consent"] for c in spec["customers"]}
  trusted = {user for user, answer in consent.items() if answer is True}
  buckets = {(m["app"], m["user"], m["session"]): [e["id"] for e in m["events"]]
             for m in spec["memory"]}
  deleted: dict[tuple, set] = {}
  said: dict[tuple, list[str]] = {}
  states = []
  for number, turn in enumerate(spec["turns"], start=1):
    user, where = (turn["app"], turn["user"]), (turn["app"], turn["user"], turn["session"])
    trusted_before = set(trusted)
    said.setdefault(where, []).extend(event_id(spec["tag"], number, n)
                                      for n in range(_events_of(turn["text"])))
    if turn["text"] in (YES, NO):
      consent[user] = turn["text"] == YES
      trusted.update([user] if consent[user] else [])
    gone = deleted.setdefault(user, set())
    if consent.get(user) is True:
      buckets[where] = [e for e in said[where] if e not in gone]
    elif consent.get(user) is False:
      for key in [k for k in buckets if k[:2] == user]:
        kept = [e for e in buckets[key] if e not in said[where]]
        gone.update(set(buckets[key]) - set(kept))
        buckets[key] = kept
    states.append({"consent": dict(consent), "where": where, "trusted_before": trusted_before,
                   "buckets": {k: list(v) for k, v in buckets.items() if v},
                   "deleted": {k: set(v) for k, v in deleted.items() if v}})
  return states


_MODELS: dict[int, tuple[dict, list]] = {}


def _model(spec: dict[str, Any]) -> list[dict[str, Any]]:
  """``expected(spec)``, computed once per world (classify asks for each difference)."""
  held = _MODELS.get(id(spec))
  if held is None or held[0] is not spec:
    if len(_MODELS) > 16:
      _MODELS.clear()
    held = _MODELS[id(spec)] = (spec, expected(spec))
  return held[1]


def _origin(entry: str) -> Optional[int]:
  """The turn whose event ``entry`` is (``4f2a-t03.1`` -> 3; None: not an event of the
  script)."""
  head = entry.partition("-t")[2].partition(".")[0]
  return int(head) if head.isdigit() else None


def classify(spec: dict[str, Any], key: tuple) -> Any:
  """Why the contract wants this entry there or not, after this turn: the check it costs."""
  if len(key) < 7 or key[1] != "memory" or type(key[2]) is not int:
    return tuple(c.name for c in CHECKS)  # the turns were not reported as they happened
  states = _model(spec)
  turn, kind, app, user = key[2], key[3], key[4], key[5]
  if kind == "dropped" or not 1 <= turn <= len(states):
    return "forgotten_on_withdrawal"  # removed without delete_memory: it would come back
  session, entry = key[6], key[7] if len(key) > 7 else ""
  now = states[turn - 1]
  if entry in now["buckets"].get((app, user, session), ()):  # it should be there
    withdrawn = now["consent"].get((app, user)) is False
    return "forgotten_on_withdrawal" if withdrawn else "saved_with_consent"
  if entry in now["deleted"].get((app, user), ()):
    return "forgotten_on_withdrawal"
  origin = _origin(entry) or turn
  said = spec["turns"][origin - 1] if origin <= len(spec["turns"]) else {}
  if (said.get("app"), said.get("user")) == (app, user):
    session = said["session"]  # judged where it was said (an entry may be filed elsewhere)
  seen = [s["consent"].get((app, user)) for s in states[:turn]
          if s["where"] == (app, user, session)] or [now["consent"].get((app, user))]
  if seen[-1] is None:
    return "never_asked_not_saved"
  if seen[-1] is True or session != key[6]:
    return "saved_with_consent"
  withdrawn = (app, user) in states[min(origin, turn) - 1]["trusted_before"]
  return "nothing_after_withdrawal" if withdrawn else "refusal_respected"


def properties(spec: dict[str, Any], observed: dict, pristine: dict) -> list[tuple[str, str]]:  # noqa: ARG001
  """The contract's model (``expected``) after every turn: the entries of each session, each
  after the one before it in time, none lost without ``delete_memory`` (first miss per check)."""
  held: dict[tuple, set] = {}
  problems: dict[str, str] = {}
  for key, value in observed.items():
    if key[:2] == ("service", "memory") and len(key) == 8 and key[3] == "entry":
      held.setdefault(key[2:3] + key[4:7], set()).add(key[7])
      if not (value or {}).get("in_order", True):
        problems.setdefault("saved_with_consent", f"{describe(spec, key)}: out of order")
    elif key[:2] == ("service", "memory") and len(key) == 7 and key[3] == "dropped":
      problems.setdefault("forgotten_on_withdrawal", f"{describe(spec, key)}: {value}")
  for turn, state in enumerate(_model(spec), start=1):
    for where in sorted(set(state["buckets"]) | {k[1:] for k in held if k[0] == turn}):
      want, got = set(state["buckets"].get(where, [])), held.get((turn,) + where, set())
      for entry in sorted(want ^ got)[:1]:
        check = classify(spec, ("service", "memory", turn, "entry") + where + (entry,))
        problems.setdefault(check, f"after turn {turn}, {_bucket(where)}: the contract leaves "
                                   f"{sorted(want)}, found {sorted(got)}")
  return sorted(problems.items())


def _bucket(where: tuple) -> str:
  return f"the memory of {quote(where[1])} (app {quote(where[0])})" + "".join(
      f", session {quote(session)}" for session in where[2:3])


ROLES = {4: ("message", "tool call", "tool result", "reply"), 2: ("message", "reply")}


def describe(spec: dict[str, Any], key: tuple) -> str:
  """``after turn 5 ('ada' in session 'default': 'consent no'), the memory of 'ada' (app
  'cafe_123'), session 'default', entry 4f2a-t03.1 (turn 3's tool call)``."""
  if len(key) < 7 or key[1] != "memory" or type(key[2]) is not int:
    return "the memory service's record (each turn over once, in order, nothing after the last)"
  turns, turn, kind = spec["turns"], key[2], key[3]
  entry = str(key[7] if kind == "event" else key[-1])
  said = turns[turn - 1] if 1 <= turn <= len(turns) else {}
  app = "" if said.get("app") == spec["apps"][0] else f" of app {quote(said.get('app'))}"
  what, origin, number = entry, _origin(entry), entry.partition(".")[2]
  if origin and origin <= len(turns) and number.isdigit():
    roles = ROLES[_events_of(turns[origin - 1]["text"])]
    what += f" (turn {origin}'s {roles[int(number)] if int(number) < len(roles) else 'event'})"
  elif "-m" in entry:
    what += " (an earlier conversation)"
  return (f"after turn {turn} ({quote(said.get('user'))} in session {quote(said.get('session'))}{app}: "
          f"{quote(said.get('text'))}), {_bucket(key[4:6] if kind == 'dropped' else key[4:7])}, "
          f"entry {what}" + (f", its {key[8]}" if kind == "event" else ""))


CHECKS = (
    Check("saved_with_consent", 3,
          "After each turn where the customer's user:memory_consent is True, memory holds this "
          "conversation's events in order (messages, tool calls, their results and replies, those "
          "from before the consent included), all but the deleted ones, under this session.",
          hint="add_session_to_memory stores the whole session as it is now; the last event, "
               "or this turn's events only, miss what came before",
          success="a consenting customer's conversation is in memory after every turn"),
    Check("never_asked_not_saved", 1,
          "Nothing is added for a customer never asked (no user:memory_consent), and their "
          "turns end normally.",
          hint="A customer never asked has no user:memory_consent at all: read it with .get",
          success="nothing is kept for customers never asked", needs_action=True),
    Check("refusal_respected", 2,
          "Nothing is added for a customer whose user:memory_consent is False.",
          hint="Save only when the value is True, not when the key is merely there",
          success="nothing is kept for customers who refused", needs_action=True),
    Check("forgotten_on_withdrawal", 3,
          "On every turn where user:memory_consent is False (a second withdrawal too), every "
          "memory this conversation holds is deleted with delete_memory (it never comes back, "
          "even after a new consent), and only those: the customer's other conversations and "
          "other customers (in a session of the same id, or the same user id in another app) "
          "keep theirs.",
          hint="delete_memory takes a memory id, which is the event's id here; re-adding an "
               "emptied session hides entries without deleting them, so a later add brings them "
               "back; a search finds other conversations too, and never tool calls; a mark "
               "'forgotten already' misses the next withdrawal, and anything kept per "
               "conversation needs its app, user and session ids, exactly",
          success="withdrawing consent removes exactly this conversation's memories"),
    Check("nothing_after_withdrawal", 2,
          "Nothing the customer says after withdrawing consent is added, until they consent "
          "again.",
          hint="Read the consent on every turn: it can change in any session",
          success="nothing said after a withdrawal is kept", needs_action=True),
    Check("conversation_untouched", 1,
          "The callback returns None and leaves the conversation as it is: it adds no event "
          "and writes no state (consent is read, never written).",
          hint="Return nothing: ADK turns a returned Content (even an empty one) into an event, "
               "and every state written from a callback is an event with a state change; what "
               "must be remembered of earlier turns is in the memory service already",
          success="the callback leaves every conversation as the agent left it",
          needs_action=True),
)

EXERCISE = Exercise(
    name=FUNCTION, lesson="05_long_term_memory", is_async=True, checks=CHECKS,
    signature="async def remember_with_consent(callback_context) -> None",
    generate=generate, build=build, act=act, observe=observe, classify=classify,
    outcome_check="conversation_untouched",
    leaves_open=(
        Open(("service", "memory", "*", "event", "**"),
             "an entry's fields that no search returns (its invocation, actions, node): the "
             "contract is about what memory gives back: " + ", ".join(SEARCHED)),
    ),
    properties=properties, worlds=len(VARIANTS), calls=lambda spec: len(spec["turns"]),
    describe_key=describe,
    label=lambda spec: "customers: " + "; ".join(c["kind"] for c in spec["customers"]),
    servers=lambda spec: {"memory": MemoryServer(spec["memory"], len(spec["turns"]))},
)
