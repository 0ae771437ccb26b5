"""Checks of the lesson-1 exercise ``remember_favorite_drink`` (state at the right scope).

Contract: ``def remember_favorite_drink(tool_context: ToolContext, drink: str) -> dict`` stores
``user:favorite_drink`` (every session of the user) and ``last_drink`` (this session only)
through ``tool_context.state`` and returns a dict confirming it.

The trial runs the function as a real tool: a real ``Runner`` and agent on an
``InMemorySessionService``, driven by the offline model. The customer ``sam`` names a drink,
then changes their mind; then ``sam`` opens a second session and another customer (``kim``)
opens one. The checks read the stored sessions and events back through the service.
"""

from __future__ import annotations

import inspect
import logging
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from google.adk.agents import Agent
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.genai import types

from adkcourse.offline_model import OfflineModel, Turn, fallback, on_tool, on_user

from ._base import Exercise, Trial, call_submission, check, legacy_phases

APP = "drink_memory"
TOOL = "remember_favorite_drink"
CUSTOMER, OTHER = "sam", "kim"
FIRST, LATEST = "oolong tea", "oat milk latte"


def _drink(match, turn: Turn) -> dict:  # noqa: ARG001 - rule signature
  return {"drink": match.group("drink").strip(" .!")}


def _confirm(turn: Turn) -> str:
  return f"Saved: {turn.result}"


RULES = [
    on_user(r"favou?rite drink is (?P<drink>[\w ]+)", call=TOOL, args=_drink),
    on_tool(TOOL, reply=_confirm),
    fallback("Hello! What can I get you?"),
]


@dataclass
class DrinkTrial(Trial):
  first_session: dict[str, Any] = field(default_factory=dict)
  second_session: dict[str, Any] = field(default_factory=dict)
  other_user: dict[str, Any] = field(default_factory=dict)
  deltas: list[dict[str, Any]] = field(default_factory=list)  # function-response events
  responses: list[dict[str, Any]] = field(default_factory=list)
  calls: int = 0


async def _say(runner: Runner, user: str, session_id: str, text: str) -> list:
  message = types.Content(role="user", parts=[types.Part(text=text)])
  return [e async for e in runner.run_async(user_id=user, session_id=session_id,
                                            new_message=message)]


async def run_trial(fn: Callable, workdir: Path, time_limit: Optional[float] = None
                    ) -> DrinkTrial:  # noqa: ARG001 - nothing is written to disk
  service = InMemorySessionService()
  trial = DrinkTrial()
  if inspect.iscoroutinefunction(fn):
    trial.notes.append(f"`{TOOL}` is defined with `async def`: the contract is a plain `def`")
  if getattr(fn, "__name__", TOOL) != TOOL:
    trial.notes.append(f"the function is called {fn.__name__!r}; the tool must be named {TOOL}")
    fn = _renamed(fn)

  async def conversation() -> None:
    agent = Agent(name="drink_buddy", model=OfflineModel(rules=RULES), tools=[fn],
                  instruction="Remember drinks with the tool.\n"
                              "Favourite drink: {user:favorite_drink?}")
    runner = Runner(app_name=APP, agent=agent, session_service=service)
    first = await service.create_session(app_name=APP, user_id=CUSTOMER)
    await _say(runner, CUSTOMER, first.id, f"Hi! My favorite drink is {FIRST}")
    await _say(runner, CUSTOMER, first.id, f"Actually my favorite drink is {LATEST}")

  # The tool runs inside the Runner: whatever it raises surfaces from the conversation (ADK's
  # own traceback log is muted: the note says what happened).
  adk_logger = logging.getLogger("google_adk")
  level = adk_logger.level
  adk_logger.setLevel(logging.CRITICAL)
  try:
    await call_submission(trial, conversation, is_async=None, label=TOOL,
                          time_limit=time_limit)
  finally:
    adk_logger.setLevel(level)
  listed = await service.list_sessions(app_name=APP, user_id=CUSTOMER)
  if listed.sessions:
    first = await service.get_session(app_name=APP, user_id=CUSTOMER,
                                      session_id=listed.sessions[0].id)
    trial.first_session = dict(first.state)
    for event in first.events:
      for part in (event.content.parts if event.content and event.content.parts else []):
        if part.function_call is not None and part.function_call.name == TOOL:
          trial.calls += 1
        if part.function_response is not None and part.function_response.name == TOOL:
          trial.responses.append(dict(part.function_response.response or {}))
          trial.deltas.append(dict(event.actions.state_delta or {}))
  second = await service.create_session(app_name=APP, user_id=CUSTOMER)
  trial.second_session = dict(second.state)
  other = await service.create_session(app_name=APP, user_id=OTHER)
  trial.other_user = dict(other.state)
  trial.acted = any(trial.deltas) or bool(trial.first_session)
  return trial


def _renamed(fn: Callable) -> Callable:
  """Keep grading a function that has another name, under the tool name the agent expects."""
  try:
    fn.__name__ = TOOL
  except (AttributeError, TypeError):
    pass
  return fn


def _scoped(state: dict[str, Any], name: str) -> list[str]:
  """The keys of ``state`` that hold ``name`` under any prefix."""
  return sorted(k for k in state if k.split(":")[-1] == name)


@check(3)
def favorite_is_user_scoped(trial: DrinkTrial) -> tuple[float, str]:
  """A new session of the same customer sees ``user:favorite_drink`` = the latest drink."""
  value = trial.second_session.get("user:favorite_drink")
  if value == LATEST:
    return 1, "a new session of the same customer sees user:favorite_drink"
  if value is not None:
    return 0.5, (f"user:favorite_drink is {value!r} in a new session, expected the latest "
                 f"drink {LATEST!r}: store the drink argument each time")
  keys = _scoped(trial.first_session, "favorite_drink")
  if not keys:
    return 0, "no favourite drink was stored: write tool_context.state['user:favorite_drink']"
  return 0, (f"a new session of the same customer does not see it (found {', '.join(keys)} in "
             "the first session only): use the user: prefix for what outlives a session")


@check(2)
def last_drink_in_session(trial: DrinkTrial) -> tuple[float, str]:
  """The conversation's own state holds ``last_drink`` = the latest drink."""
  if trial.first_session.get("last_drink") == LATEST:
    return 1, "last_drink is in the session's state"
  keys = _scoped(trial.first_session, "last_drink")
  if keys:
    return 0.5, f"found {', '.join(keys)} but no plain last_drink key with {LATEST!r}"
  return 0, "no last_drink in the session's state: write tool_context.state['last_drink']"


@check(2, needs_action=True)
def last_drink_is_session_scoped(trial: DrinkTrial) -> tuple[float, str]:
  """A new session of the same customer starts without any ``last_drink``."""
  leaked = _scoped(trial.second_session, "last_drink")
  if not leaked:
    return 1, "a new session starts without last_drink"
  return 0, (f"a new session already has {', '.join(leaked)}: with a user: or app: prefix "
             "it outlives the conversation; use no prefix")


@check(2, needs_action=True)
def other_customer_unaffected(trial: DrinkTrial) -> tuple[float, str]:
  """Another customer sees neither drink (nothing stored under ``app:``)."""
  leaked = _scoped(trial.other_user, "favorite_drink") + _scoped(trial.other_user, "last_drink")
  if not leaked:
    return 1, "another customer sees none of it"
  return 0, (f"another customer sees {', '.join(leaked)}: app: keys are shared by every user "
             "of the app; use user: for one customer")


@check(1)
def recorded_in_event(trial: DrinkTrial) -> tuple[float, str]:
  """The tool's event carries its writes in ``state_delta`` (what services persist)."""
  delta = trial.deltas[-1] if trial.deltas else {}
  if LATEST in delta.values():
    return 1, "the tool's writes are in its event's state_delta, so the service stores them"
  if trial.calls == 0:
    return 0, "the tool was never called"
  return 0, ("the tool's event carries no state_delta with the drink: only writes through "
             "tool_context.state are recorded (and stored by the session service)")


@check(1)
def returns_confirmation(trial: DrinkTrial) -> tuple[float, str]:
  """The tool returns a dict that mentions the saved drink."""
  if not trial.responses:
    return 0, "no tool response was recorded (the tool was not called or failed)"
  last = trial.responses[-1]
  if set(last) == {"result"} and not isinstance(last["result"], dict):
    return 0.5, (f"the tool returned {type(last['result']).__name__} {last['result']!r}; ADK "
                 "wraps non-dict results, return a dict instead")
  if LATEST in str(last):
    return 1, "the tool returns a dict confirming the drink"
  return 0.5, "the tool returns a dict, but it does not mention the drink it saved"


EXERCISE = Exercise(
    name="remember_favorite_drink",
    lesson="01_sessions_events_state",
    signature="def remember_favorite_drink(tool_context: ToolContext, drink: str) -> dict",
    is_async=False,
    **legacy_phases(run_trial, (favorite_is_user_scoped, last_drink_in_session, last_drink_is_session_scoped,
            other_customer_unaffected, recorded_in_event, returns_confirmation)),
)
