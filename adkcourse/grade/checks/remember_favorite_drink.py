"""Checks of the lesson-1 exercise ``remember_favorite_drink`` (state at the right scope).

Contract: ``def remember_favorite_drink(tool_context: ToolContext, drink: str) -> dict`` is a
tool that keeps the drink the customer names as their favourite, seen in every later
conversation of this customer and by no one else (``user:favorite_drink``), and as
``last_drink``, seen in this conversation only; it returns a dict that tells the model what
it saved. The one decision is the scope of each key, and the scenario tells them apart.

The trial runs the function as a real tool: an agent driven by the offline model, a real
``Runner``, on a ``SqliteSessionService`` file. With names and drinks drawn from the run's
seed: a customer names a drink in a first conversation, then two others in a second one,
which changes its mind (so the first conversation's ``last_drink`` is no longer the favourite,
and the second one's is the drink it named last); a customer whose id
starts with the first one's names a third drink; the first conversation goes on. Other
customers, another app (where the same customer has another favourite) and the app's state
are there from the start. The checks read what the file holds (stdlib ``sqlite3``, JSON: a
``str`` subclass that claims to equal anything is just its text there).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from google.adk.sessions.sqlite_session_service import SqliteSessionService

from ..safe_sqlite import open_untrusted
from ._base import Exercise, Resources, TimeBudget, Trial, call_submission, check, untrusted_notes
from ._world import FIRST_NAMES, app_name, rng_for

TOOL = "remember_favorite_drink"
AGENT = "drink_buddy"
DB_NAME = "drinks.db"
SIZES = ("small", "large", "double", "iced", "hot", "decaf", "extra-hot", "half-sweet")
MILKS = ("oat milk", "almond milk", "whole milk", "soy", "coconut milk", "skimmed milk", "")
BASES = ("latte", "flat white", "cortado", "oolong tea", "matcha latte", "chai", "mocha",
         "builder's tea", "café crème", "hibiscus tea", "cold brew", "macchiato")


# --- prepare ---------------------------------------------------------------------------------------

def _drinks(rng, count: int) -> list[str]:
  chosen: list[str] = []
  while len(chosen) < count:
    drink = " ".join(w for w in (rng.choice(SIZES), rng.choice(MILKS), rng.choice(BASES)) if w)
    if drink not in chosen:
      chosen.append(drink)
  return chosen


def _table_rows(db_path: Path, trusted: bool = False) -> dict[str, Any]:
  """The file's four tables as JSON-able data, read with stdlib sqlite3 (empty: unreadable,
  or not ADK's schema: a file the submission left is opened read-only with caps,
  ``safe_sqlite``)."""
  if not db_path.is_file():
    return {}
  try:
    with closing(sqlite3.connect(db_path) if trusted else open_untrusted(db_path)) as connection:
      def rows(query: str) -> list[list[Any]]:
        return json.loads(json.dumps(sorted(connection.execute(query).fetchall(), key=repr)))

      return {
          "app_states": rows("SELECT app_name, state FROM app_states"),
          "user_states": rows("SELECT app_name, user_id, state FROM user_states"),
          "sessions": rows("SELECT app_name, user_id, id, state FROM sessions"),
          "events": rows("SELECT app_name, user_id, session_id, timestamp, event_data "
                         "FROM events ORDER BY timestamp, rowid"),
      }
  except sqlite3.Error:
    return {}


async def prepare(workdir: Path, resources: Resources) -> dict[str, Any]:
  seed, rng = rng_for(resources.seed)
  taken: set[str] = set()
  app, other_app = app_name(rng, taken), app_name(rng, taken)
  first, other = rng.sample(FIRST_NAMES, 2)
  customer = first
  neighbour = f"{first}{rng.choice(('a', 'ie', 'y', '_jr'))}"  # shares the customer's prefix
  first_drink, tried, second_drink, neighbour_drink, elsewhere = _drinks(rng, 5)
  db_path = Path(workdir) / DB_NAME
  service = SqliteSessionService(str(db_path))
  sessions = {}
  for label, user in (("first", customer), ("second", customer), ("neighbour", neighbour)):
    created = await service.create_session(app_name=app, user_id=user,
                                           session_id=f"{label}-{rng.getrandbits(32):08x}")
    sessions[label] = created.id
  # Already there: the app's state, a user key of the customer, another customer, and the
  # same customer in another app with another favourite.
  await service.create_session(app_name=app, user_id=customer,
                               state={"app:menu": {"season": "autumn", "items": 12},
                                      "user:name": customer.title()})
  await service.create_session(app_name=app, user_id=other,
                               state={"user:favorite_drink": "water", "user:name": other.title()})
  await service.create_session(app_name=other_app, user_id=customer,
                               state={"user:favorite_drink": elsewhere})
  del service
  said = 'My favorite drink is "{}" now.'
  script = [
      {"user": customer, "session": sessions["first"], "drink": first_drink,
       "text": f'Hi! {said.format(first_drink)}'},
      {"user": customer, "session": sessions["second"], "drink": tried,
       "text": f'Back again. {said.format(tried)}'},
      # The same conversation changes its mind: its last_drink is the second drink it named.
      {"user": customer, "session": sessions["second"], "drink": second_drink,
       "text": f'Actually, no. {said.format(second_drink)}'},
      {"user": neighbour, "session": sessions["neighbour"], "drink": neighbour_drink,
       "text": said.format(neighbour_drink)},
      {"user": customer, "session": sessions["first"], "drink": None,
       "text": "Thanks, see you tomorrow!"},
  ]
  return {"seed": seed, "db_path": str(db_path), "app": app, "other_app": other_app,
          "customer": customer, "neighbour": neighbour, "other": other,
          "sessions": sessions, "script": script,
          "drinks": {"first": first_drink, "tried": tried, "second": second_drink,
                     "neighbour": neighbour_drink, "elsewhere": elsewhere},
          "before": _table_rows(db_path, trusted=True)}


# --- act -------------------------------------------------------------------------------------------

def _rules():
  """The offline model: a quoted drink in the customer's message -> a call of the tool with
  exactly that text; the tool's answer -> a confirmation; anything else -> a greeting."""
  from adkcourse.offline_model import fallback, on_tool, on_user

  return [
      on_user(r'favou?rite drink is "(?P<drink>[^"]+)"', call=TOOL,
              args=lambda match, turn: {"drink": match.group("drink")}),
      on_tool(TOOL, reply=lambda turn: f"Saved: {turn.result}"),
      fallback("Hello! What can I get you?"),
  ]


def _renamed(fn: Callable) -> Callable:
  """Keep grading a function that has another name, under the tool name the agent expects."""
  try:
    fn.__name__ = TOOL
  except (AttributeError, TypeError):
    pass
  return fn


async def act(fn: Callable, workdir: Path, setup: dict[str, Any],  # noqa: ARG001
              time_limit: Optional[float] = None) -> dict[str, Any]:
  """Play the script through a real Runner whose agent has ``fn`` as its tool."""
  from google.adk.agents import Agent
  from google.adk.runners import Runner
  from google.genai import types

  from adkcourse.offline_model import OfflineModel

  trial = Trial()
  if getattr(fn, "__name__", TOOL) != TOOL:
    trial.notes.append(f"the function is called {fn.__name__!r}; the tool must be named {TOOL}")
    fn = _renamed(fn)
  if callable(fn) and hasattr(fn, "__code__") and fn.__code__.co_flags & 0x80:  # CO_COROUTINE
    trial.notes.append(f"`{TOOL}` is defined with `async def`: the contract is a plain `def`")
  service = SqliteSessionService(setup["db_path"])
  agent = Agent(name=AGENT, model=OfflineModel(rules=_rules()), tools=[fn],
                instruction="Remember drinks with the tool.\n"
                            "Favourite drink: {user:favorite_drink?}")
  runner = Runner(app_name=setup["app"], agent=agent, session_service=service)
  script = setup["script"]
  budget = TimeBudget(time_limit, len(script))

  async def say(user: str, session_id: str, text: str) -> None:
    message = types.Content(role="user", parts=[types.Part(text=text)])
    async for _event in runner.run_async(user_id=user, session_id=session_id,
                                         new_message=message):
      pass

  # The tool runs inside the Runner: what it raises surfaces from the conversation. ADK's own
  # traceback log is muted: the note says what happened.
  adk_logger = logging.getLogger("google_adk")
  level = adk_logger.level
  adk_logger.setLevel(logging.CRITICAL)
  try:
    for turn in script:
      await call_submission(trial, say, turn["user"], turn["session"], turn["text"],
                            is_async=None, label=TOOL, budget=budget)
  finally:
    adk_logger.setLevel(level)
  notes = list(dict.fromkeys(trial.notes))  # the same failure on every turn: one note
  return {"notes": notes}


# --- observe ---------------------------------------------------------------------------------------

@dataclass
class DrinkTrial(Trial):
  setup: dict[str, Any] = field(default_factory=dict)
  before: dict[str, Any] = field(default_factory=dict)
  after: dict[str, Any] = field(default_factory=dict)
  user_states: dict[tuple[str, str], Any] = field(default_factory=dict)
  session_states: dict[str, Any] = field(default_factory=dict)  # this app's sessions, by id
  responses: list[tuple[str, Any]] = field(default_factory=list)  # (session id, response)
  calls: int = 0


def _json(text: Any) -> Any:
  try:
    return json.loads(text) if isinstance(text, str) else None
  except ValueError:
    return None


async def observe(workdir: Path, setup: dict[str, Any], acted: Any) -> DrinkTrial:  # noqa: ARG001
  trial = DrinkTrial(notes=untrusted_notes(acted), setup=setup, before=setup["before"],
                     after=_table_rows(Path(setup["db_path"])))
  if not trial.after:
    trial.notes.append(f"{DB_NAME} could not be read after the conversation")
  for app, user, state in trial.after.get("user_states", []):
    trial.user_states[(app, user)] = _json(state)
  for app, _user, session_id, state in trial.after.get("sessions", []):
    if app == setup["app"]:
      trial.session_states[session_id] = _json(state)
  for app, _user, session_id, _ts, data in trial.after.get("events", []):
    event = _json(data)
    if app != setup["app"] or not isinstance(event, dict):
      continue
    content = event.get("content") if isinstance(event.get("content"), dict) else {}
    for part in content.get("parts") or []:
      if not isinstance(part, dict):
        continue
      call, response = part.get("function_call"), part.get("function_response")
      if isinstance(call, dict) and call.get("name") == TOOL:
        trial.calls += 1
      if isinstance(response, dict) and response.get("name") == TOOL:
        trial.responses.append((session_id, response.get("response")))
  # Messages are stored whatever the tool does: what counts as acting is a change of state.
  trial.acted = any(trial.after.get(t) != trial.before.get(t)
                    for t in ("app_states", "user_states", "sessions"))
  return trial


# --- checks ----------------------------------------------------------------------------------------

def _user_state(trial: DrinkTrial, user: str, app: Optional[str] = None) -> dict[str, Any]:
  state = trial.user_states.get((app or trial.setup["app"], user))
  return state if isinstance(state, dict) else {}


def _session_state(trial: DrinkTrial, label: str) -> dict[str, Any]:
  state = trial.session_states.get(trial.setup["sessions"][label])
  return state if isinstance(state, dict) else {}


def _mentions(value: Any, text: str) -> bool:
  """Whether ``text`` appears in any string inside ``value`` (JSON data)."""
  if type(value) is str:
    return text in value
  if isinstance(value, dict):
    return any(_mentions(k, text) or _mentions(v, text) for k, v in value.items())
  if isinstance(value, list):
    return any(_mentions(v, text) for v in value)
  return False


def _describe(value: Any) -> str:
  return "nothing" if value is None else f"{type(value).__name__} {json.dumps(value)[:80]}"


@check(3)
def favorite_follows_the_customer(trial: DrinkTrial) -> tuple[float, str]:
  """Every later conversation of the customer sees ``favorite_drink``: exactly the drink they
  named last (in another conversation), as a string; the look-alike customer sees theirs."""
  drinks, setup = trial.setup["drinks"], trial.setup
  got = _user_state(trial, setup["customer"]).get("favorite_drink")
  neighbour = _user_state(trial, setup["neighbour"]).get("favorite_drink")
  if type(got) is str and got == drinks["second"] and type(neighbour) is str \
      and neighbour == drinks["neighbour"]:
    return 1, "every later conversation of each customer sees their latest favourite drink"
  if got is None:
    in_session = [k for k in _session_state(trial, "second") if "favorite" in k]
    if in_session:
      return 0, (f"a new conversation of the customer sees no favorite_drink: only the "
                 f"conversation it was named in holds it ({', '.join(in_session)})")
    return 0, "no later conversation of the customer sees a favorite_drink"
  if got == drinks["first"]:
    return 0.5, ("user:favorite_drink still holds the first drink although the customer named "
                 "another one later: store the drink each time it is named")
  if got != drinks["second"] or type(got) is not str:
    return 0.5, (f"user:favorite_drink is {_describe(got)}; it must be the `drink` argument "
                 f"itself, a string ({drinks['second']!r} here)")
  return 0.5, (f"the customer's favourite is right, but the look-alike customer "
               f"{setup['neighbour']!r} has {_describe(neighbour)} instead of "
               f"{drinks['neighbour']!r}")


@check(2)
def last_drink_in_each_session(trial: DrinkTrial) -> tuple[float, str]:
  """Each conversation keeps, as its own value, ``last_drink`` = the drink named in it, as a
  string."""
  drinks = trial.setup["drinks"]
  wanted = {"first": drinks["first"], "second": drinks["second"],
            "neighbour": drinks["neighbour"]}
  wrong = []
  for label, drink in wanted.items():
    got = _session_state(trial, label).get("last_drink")
    if not (type(got) is str and got == drink):
      wrong.append(f"the {label} conversation has {_describe(got)} instead of {drink!r}")
  if not wrong:
    return 1, "each conversation holds the drink named in it as last_drink"
  return (3 - len(wrong)) / 3, "; ".join(wrong) + (
      ": each conversation keeps the `drink` named in it as its own last_drink")


@check(2, needs_action=True)
def last_drink_stays_in_its_session(trial: DrinkTrial) -> tuple[float, str]:
  """Nothing but the favourite outlives a conversation: no other key of the customer's user
  state (which every conversation sees) holds a drink they named."""
  setup, drinks = trial.setup, trial.setup["drinks"]
  state = _user_state(trial, setup["customer"])
  leaked = sorted(k for k, v in state.items() if k != "favorite_drink"
                  and any(_mentions(v, drinks[d]) for d in ("first", "tried", "second")))
  if not leaked:
    return 1, "a new conversation sees the favourite only, not the last drink of another one"
  return 0, (f"the customer's user state also holds user:{', user:'.join(leaked)}, so every "
             "new conversation sees the drink of an earlier one: keep last_drink in the "
             "conversation's own state")


@check(2, needs_action=True)
def other_customers_unaffected(trial: DrinkTrial) -> tuple[float, str]:
  """Other customers, the same customer in another app, and the app's state are as they were."""
  setup = trial.setup
  mine = {(setup["app"], setup["customer"]), (setup["app"], setup["neighbour"])}
  before = {(a, u): s for a, u, s in trial.before.get("user_states", [])}
  after = {(a, u): s for a, u, s in trial.after.get("user_states", [])}
  changed = sorted(f"{u!r} in {a!r}" for key in set(before) | set(after) if key not in mine
                   for a, u in [key] if before.get(key) != after.get(key))
  if trial.before.get("app_states") != trial.after.get("app_states"):
    changed.append("the app's state (app: keys are every customer's)")
  if not changed:
    return 1, "other customers, other apps and the app's state are unchanged"
  return 0, (f"changed: {', '.join(changed)}: a favourite belongs to one customer of one app")


@check(1)
def returns_confirmation(trial: DrinkTrial) -> tuple[float, str]:
  """Each call's response (what the model reads) mentions the drink it saved."""
  script = [t for t in trial.setup["script"] if t["drink"]]
  if not trial.responses:
    return 0, ("no tool response was stored (the tool was not called or failed)"
               if trial.calls == 0 or not trial.notes else "the tool failed (see the notes)")
  confirmed = 0
  for turn in script:
    if any(session == turn["session"] and _mentions(response, turn["drink"])
           for session, response in trial.responses):
      confirmed += 1
  if confirmed == len(script):
    return 1, "the tool's answer tells the model which drink was saved"
  return confirmed / len(script), (
      f"{len(script) - confirmed} of {len(script)} answers do not mention the drink saved: "
      "return a dict that says what was saved, so the model can confirm it")


EXERCISE = Exercise(
    name="remember_favorite_drink",
    lesson="01_sessions_events_state",
    signature="def remember_favorite_drink(tool_context: ToolContext, drink: str) -> dict",
    is_async=False,
    checks=(favorite_follows_the_customer, last_drink_in_each_session, last_drink_stays_in_its_session,
            other_customers_unaffected, returns_confirmation),
    prepare=prepare,
    act=act,
    observe=observe,
)
