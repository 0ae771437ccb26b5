"""A memory service the judge holds, and what the acting side needs to use it.

``remember_with_consent`` is judged on what an ``InMemoryMemoryService`` holds after every
turn. Read from the process that ran the submission, that would be the submission's word; so
the service lives with the judge (``MemoryServer``, a ``_channel`` server holding a real
``InMemoryMemoryService``), the Runner in the sandbox gets ``ChannelMemoryService``, a
``BaseMemoryService`` forwarding each call as JSON, and the acting code says "turn k is over"
(``turn_done``), whereupon the server records its own state. Nothing the sandbox says about the
memory is used: only the calls it made.

The cafe itself (``concierge``: an offline model calling ``set_memory_consent`` on "consent
yes/no" and echoing "note WORD") is here too: the Runner the acting side plays turns on.

Run-generated values are made reproducible where they are born: ``StampedSessions`` gives each
event an id and a time from the script's turn (``4f2a-t03.1``: turn 3's second event), and the
server replaces what is still random (function-call and invocation ids: uuids) by ``<uuid>``.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from typing import Any, Callable, Coroutine, Optional, Sequence

from google.adk.agents import Agent
from google.adk.events import Event
from google.adk.memory import InMemoryMemoryService
from google.adk.memory.base_memory_service import BaseMemoryService, SearchMemoryResponse
from google.adk.memory.memory_entry import MemoryEntry
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService, Session
from google.genai import types

from adkcourse.offline_model import OfflineModel, fallback, on_tool, on_user
from ._harness import LEFT_RUNNING, _StartedTasks
from ._observe import quote

MAX_EVENTS = 2_000  # events the service holds at once (a script stores a few dozen)
MAX_EVENT_CHARS = 20_000  # characters of one event as JSON
MAX_PROBLEMS = 20
UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
# What a search returns of an event (MemoryEntry: id, content, author, timestamp).
SEARCHED = ("author", "content", "timestamp")
LOST = "removed without delete_memory: a later add brings it back"
RAISED_AS = {"NotImplementedError": NotImplementedError, "ValueError": ValueError,
             "TypeError": TypeError, "KeyError": KeyError}


def run_sync(coroutine: Coroutine) -> Any:
  """The value of a coroutine that never really waits (``InMemoryMemoryService``'s methods),
  without an event loop: ``handle`` is called from a socket thread or from inside the running
  loop of the acting code (``LocalChannel``)."""
  try:
    coroutine.send(None)
  except StopIteration as stop:
    return stop.value
  coroutine.close()
  raise RuntimeError("the memory service waited for something")


def _text(params: dict, name: str, optional: bool = False) -> Optional[str]:
  value = params.get(name)
  if value is None and optional:
    return None
  if type(value) is not str or len(value) > MAX_EVENT_CHARS:
    raise TypeError(f"{name} must be a string")
  return value


def _events(values: Any) -> list[Event]:
  if type(values) is not list or len(values) > MAX_EVENTS:
    raise TypeError(f"events must be a list of at most {MAX_EVENTS} events")
  for value in values:
    if len(json.dumps(value)) > MAX_EVENT_CHARS:
      raise ValueError(f"an event is longer than {MAX_EVENT_CHARS} characters as JSON")
  return [Event.model_validate(value) for value in values]


def normalised(value: Any) -> Any:
  """``value`` (JSON) with every uuid replaced by ``<uuid>``: ids a run draws afresh."""
  return json.loads(UUID.sub("<uuid>", json.dumps(value)))


class MemoryServer:
  """A real ``InMemoryMemoryService`` served to the code being graded, observed by the judge:
  its state after each turn (``turn_done``), recorded here, as the judge's own reading."""

  def __init__(self, seed: Sequence[dict[str, Any]], turns: int):
    self.memory = InMemoryMemoryService()
    for bucket in seed:
      run_sync(self.memory.add_events_to_memory(
          app_name=bucket["app"], user_id=bucket["user"], session_id=bucket["session"],
          events=[Event.model_validate(e) for e in bucket["events"]]))
    self.turns = turns
    self.snapshots: list[dict] = []
    self.problems: list[str] = []
    self.touched = False
    self._ever: dict[tuple, set] = self._held()
    self._cache: dict[int, tuple[Event, Any, dict]] = {}

  # -- the service, as the sandbox calls it -----------------------------------------------------

  def handle(self, method: str, params: dict) -> Any:
    if method == "turn_done":
      return self._turn_done(params.get("turn"))
    self.touched = True
    try:
      return self._serve(method, params)
    finally:
      for user, ids in self._held().items():
        self._ever.setdefault(user, set()).update(ids)

  def _serve(self, method: str, params: dict) -> Any:
    memory = self.memory
    if method == "add_session_to_memory":
      session = params.get("session")
      if not isinstance(session, dict):
        raise TypeError("session must be a Session")
      _events(session.get("events", []))
      added = Session.model_validate(session)
      self._room(len(added.events))
      return run_sync(memory.add_session_to_memory(added))
    app, user = _text(params, "app_name"), _text(params, "user_id")
    if method == "add_events_to_memory":
      events = _events(params.get("events"))
      self._room(len(events))
      return run_sync(memory.add_events_to_memory(
          app_name=app, user_id=user, events=events,
          session_id=_text(params, "session_id", optional=True),
          custom_metadata=params.get("custom_metadata")))
    if method == "add_memory":
      memories = [MemoryEntry.model_validate(m) for m in params.get("memories") or []][:MAX_EVENTS]
      return run_sync(memory.add_memory(app_name=app, user_id=user, memories=memories,
                                        custom_metadata=params.get("custom_metadata")))
    if method == "search_memory":
      found = run_sync(memory.search_memory(app_name=app, user_id=user,
                                            query=_text(params, "query")))
      return found.model_dump(mode="json")
    if method == "delete_memory":
      return run_sync(memory.delete_memory(app_name=app, user_id=user,
                                           memory_id=_text(params, "memory_id", optional=True)))
    raise ValueError(f"unknown method {method!r}")

  def _room(self, adding: int) -> None:
    held = sum(len(events) for sessions in self.memory._session_events.values()  # noqa: SLF001
               for events in sessions.values())
    if held + adding > MAX_EVENTS:
      raise ValueError(f"the memory service holds at most {MAX_EVENTS} events")

  def _turn_done(self, turn: Any) -> None:
    """Record the state after turn ``turn`` (1, 2, ... in order; anything else is a problem,
    which costs every check: only the acting code says this, once per turn)."""
    if type(turn) is not int or turn != len(self.snapshots) + 1 or turn > self.turns:
      if len(self.problems) < MAX_PROBLEMS:
        self.problems.append(f"turn {quote(turn)} was said to be over after turn "
                             f"{len(self.snapshots)}")
      return
    self.snapshots.append(self._state())

  def _state(self) -> dict:
    """The service's state now: (app, user, session) -> [(id, searched, other fields)], and
    (app, user) -> the ids it held once and lost without ``delete_memory`` (a later add brings
    them back). Events already dumped are reused (they do not change)."""
    cache: dict[int, tuple[Event, Any, dict]] = {}
    buckets: dict[tuple, list] = {}
    memory = self.memory
    for (app, user), sessions in memory._session_events.items():  # noqa: SLF001
      for session_id, events in sessions.items():
        entries = []
        for event in events:
          known = self._cache.get(id(event))
          if known is None or known[0] is not event:
            dumped = normalised(event.model_dump(mode="json", exclude_none=True))
            searched = {name: dumped.pop(name, None) for name in SEARCHED}
            dumped.pop("id", None)
            known = (event, searched, dumped)
          cache[id(event)] = known
          entries.append((str(event.id), known[1], known[2]))
        buckets[(app, user, session_id)] = entries
    self._cache = cache
    return {"buckets": buckets, "dropped": self._dropped()}

  def _held(self) -> dict[tuple, set]:
    return {user: {str(e.id) for events in sessions.values() for e in events}
            for user, sessions in self.memory._session_events.items()}  # noqa: SLF001

  def _dropped(self) -> dict[tuple, list[str]]:
    deleted = self.memory._deleted_memory_ids  # noqa: SLF001
    held = self._held()
    return {user: sorted(ids - held.get(user, set()) - deleted.get(user, set()))
            for user, ids in self._ever.items()}

  # -- the judge's reading ------------------------------------------------------------------------

  def observe(self) -> dict[tuple, Any]:
    """The state after every turn, flat: ``(turn, "entry", app, user, session, id)`` -> what a
    search returns of it (``in_order: False`` when it comes before the entry ahead of it in
    time); ``(turn, "event", ..., id, field)`` -> the event's other fields;
    ``(turn, "dropped", app, user, id)`` -> ``LOST``. A server nobody called (the pristine world)
    holds its first state after every turn. ``("protocol", ...)``: turns said to be over out of
    order, or memory changed after the last one."""
    snapshots = self.snapshots
    if not snapshots and not self.touched and not self.problems:
      snapshots = [self._state()] * self.turns
    found: dict[tuple, Any] = {}
    for turn, state in enumerate(snapshots, start=1):
      for (app, user, session), entries in state["buckets"].items():
        before = None
        for event_id, searched, others in entries:
          where = (app, user, session, event_id)
          at = searched.get("timestamp")
          in_order = before is None or (isinstance(at, (int, float)) and at >= before)
          found[(turn, "entry") + where] = searched if in_order else {**searched,
                                                                      "in_order": False}
          for name, value in others.items():
            found[(turn, "event") + where + (name,)] = value
          before = at if isinstance(at, (int, float)) else before
      for (app, user), ids in state["dropped"].items():
        for event_id in ids:
          found[(turn, "dropped", app, user, event_id)] = LOST
    for number, problem in enumerate(self.problems):
      found[("protocol", number)] = problem
    if self.snapshots and self._state() != self.snapshots[-1]:
      found[("protocol", "end")] = "the memory changed after the last turn was over"
    return found


class ChannelMemoryService(BaseMemoryService):
  """The Runner's memory service in the sandbox: every call goes to the judge's
  ``MemoryServer`` (``channel``), which answers what an ``InMemoryMemoryService`` would."""

  def __init__(self, channel: Any):
    self.channel = channel

  def _call(self, method: str, params: dict) -> Any:
    from ._channel import ChannelError

    try:
      return self.channel.call(method, params)
    except ChannelError as error:
      name, _, message = str(error).partition(": ")
      raise RAISED_AS.get(name, ChannelError)(message or str(error)) from None

  async def add_session_to_memory(self, session: Session) -> None:
    self._call("add_session_to_memory", {"session": session.model_dump(mode="json")})

  async def add_events_to_memory(self, *, app_name: str, user_id: str, events: Sequence[Event],
                                 session_id: Optional[str] = None,
                                 custom_metadata: Optional[dict] = None) -> None:
    self._call("add_events_to_memory", {
        "app_name": app_name, "user_id": user_id, "session_id": session_id,
        "events": [event.model_dump(mode="json") for event in events],
        "custom_metadata": dict(custom_metadata) if custom_metadata else None})

  async def add_memory(self, *, app_name: str, user_id: str, memories: Sequence[MemoryEntry],
                       custom_metadata: Optional[dict] = None) -> None:
    self._call("add_memory", {
        "app_name": app_name, "user_id": user_id,
        "memories": [memory.model_dump(mode="json") for memory in memories],
        "custom_metadata": dict(custom_metadata) if custom_metadata else None})

  async def search_memory(self, *, app_name: str, user_id: str, query: str
                          ) -> SearchMemoryResponse:
    found = self._call("search_memory", {"app_name": app_name, "user_id": user_id,
                                         "query": query})
    return SearchMemoryResponse.model_validate(found)

  async def delete_memory(self, *, app_name: str, user_id: str,
                          memory_id: Optional[str] = None) -> None:
    self._call("delete_memory", {"app_name": app_name, "user_id": user_id,
                                 "memory_id": memory_id})

  def turn_done(self, turn: int) -> None:
    """Tell the judge that turn ``turn`` is over (unheard, its state is missing: no credit)."""
    from ._channel import ChannelError

    try:
      self.channel.call("turn_done", {"turn": turn})
    except ChannelError:
      pass


class StampedSessions(InMemorySessionService):
  """An ``InMemorySessionService`` that names each event after the world and the script's turn
  (``4f2a-t03.1``: turn 3's second event) and dates it from ``start``: identical on every run
  of a script, so that the memory ids (event ids) and times of two runs compare."""

  def __init__(self, start: float, tag: str):
    super().__init__()
    self.start, self.tag = start, tag
    self.turn = 0
    self._counts: dict[int, int] = {}
    self.log: list[tuple[tuple[str, str, str], Event]] = []  # (app, user, session), event

  async def open(self, customers: Sequence[dict[str, Any]]) -> None:
    """Every customer's sessions, with the answer they gave on an earlier visit (if any)."""
    for customer in customers:
      consent = customer["consent"]
      for session_id in customer["sessions"]:
        await self.create_session(
            app_name=customer["app"], user_id=customer["user"], session_id=session_id,
            state=None if consent is None else {"user:memory_consent": consent})

  async def append_event(self, session: Session, event: Event) -> Event:
    if not event.partial:
      number = self._counts.get(self.turn, 0)
      self._counts[self.turn] = number + 1
      event.id = event_id(self.tag, self.turn, number)
      event.timestamp = self.start + self.turn * 60 + number
    self.log.append(((session.app_name, session.user_id, session.id), event))
    return await super().append_event(session, event)


def event_id(tag: str, turn: int, number: int) -> str:
  """The id ``StampedSessions`` gives the ``number``-th event of turn ``turn`` (from 1) in the
  world ``tag`` (ids never repeat across worlds, as uuids would not)."""
  return f"{tag}-t{turn:02d}.{number}"


# -- the cafe the script is played in -------------------------------------------------------------

def set_memory_consent(tool_context, consent: bool) -> dict:
  """Records whether the customer lets the cafe remember their conversations.

  Args:
    consent: True when the customer agrees, False when they refuse or withdraw.
  """
  tool_context.state["user:memory_consent"] = consent
  return {"memory_consent": consent}


def concierge(name: str, callback: Callable) -> Agent:
  """The agent: "consent yes/no" calls ``set_memory_consent``, "note WORD" is echoed, anything
  else is greeted; ``callback`` runs after each turn."""
  rules = [
      on_user(r"^consent (?P<answer>yes|no)$", call="set_memory_consent",
              args=lambda match, turn: {"consent": match.group("answer") == "yes"}),
      on_tool("set_memory_consent", reply="Your choice is saved."),
      on_user(r"^note (?P<word>\w+)$", reply=lambda turn: f"Noted {turn.user_text.split()[-1]}."),
      fallback("Hello!"),
  ]
  return Agent(name=name, model=OfflineModel(rules=rules), tools=[set_memory_consent],
               instruction="Ask for consent before remembering.", after_agent_callback=callback)


class CallbackWatch:
  """The callback as ADK calls it, watched from outside: what it returned, and where the
  sessions' log of appended events (``StampedSessions.log``) stood when it was called, so that
  what it added to any conversation (an event, a state change: every state written is an
  event's) can be told after the turn. ADK's own adapter calls it (keyword or positional
  ``callback_context``), so it behaves as it would unwatched."""

  def __init__(self, fn: Callable, sessions: "StampedSessions"):
    self.fn = fn
    self.sessions = sessions
    self.calls: list[dict[str, Any]] = []
    self.left_running = 0  # tasks it started that were still running when it returned

  def __call__(self, *args: Any, **kwargs: Any) -> Any:
    from google.adk.utils._callback_pipeline import _invoke_callback  # noqa: PLC2701

    seen = {"logged": len(self.sessions.log), "returned": None}
    self.calls.append(seen)
    result = _invoke_callback(self.fn, *args, **kwargs)
    if not inspect.isawaitable(result):
      seen["returned"] = result
      return result

    async def awaited() -> Any:
      # What the callback starts and leaves running when it returns is stopped there: its
      # effects are judged at its return, on a busy machine as on an idle one (_harness).
      its_tasks = _StartedTasks(asyncio.get_running_loop(), asyncio.current_task())
      try:
        with its_tasks:
          seen["returned"] = value = await result
      finally:
        self.left_running += its_tasks.stop_leftovers()
      return value

    return awaited()

  def report(self, before: int, where: tuple[str, str, str]) -> str:
    """What the turn's callback (called after ``before`` calls) did, as one line: what it
    returned, the events appended after it was called (to this turn's conversation ``where``
    or, said so, another one; the reference's: ``NOTHING``)."""
    calls = self.calls[before:]
    if len(calls) != 1:
      return f"the callback was called {len(calls)} times"
    added = [_event_line(event) + ("" if to == where else f" (in {_short(list(to), 80)})")
             for to, event in self.sessions.log[calls[0]["logged"]:]]
    return f"returned {_returned(calls[0]['returned'])}; " + (
        f"added {len(added)} event(s): " + " | ".join(added) if added else "added no event")


NOTHING = "returned None; added no event"


def _plain(value: Any) -> Any:
  """``value`` as JSON (what cannot be, by its repr)."""
  return json.loads(json.dumps(value, default=repr))


def _short(value: Any, limit: int = 60) -> str:
  text = json.dumps(value, ensure_ascii=False, default=repr)
  return text if len(text) <= limit else text[:limit - 1] + "…"


def _returned(value: Any) -> str:
  """What the callback returned, for a reader: ``None``, ``False``, ``''``, ``a Content {...}``."""
  if value is None or type(value) in (bool, int, float, str):
    return _short(value) if type(value) is str else repr(value)
  dump = getattr(value, "model_dump", None)
  shown = _short(normalised(dump(mode="json", exclude_none=True))) if callable(dump) else ""
  return f"a {type(value).__qualname__} {shown}".rstrip()


def _event_line(event: Event) -> str:
  """An event the callback added: its author, its parts (or none), the state it changed."""
  content = event.content
  parts = [_short(p.text) if p.text is not None else "a " + next(
      (name for name, v in p if v is not None), "empty part") for p in
      (content.parts or [] if content else [])]
  said = ", ".join(parts) if parts else ("an empty content" if content else "no content")
  delta = event.actions.state_delta if event.actions else {}
  return f"{event.author}: {said}" + (f", state {_short(_plain(delta))}" if delta else "")


def turn_call(fn: Callable, runner: Runner, watch: CallbackWatch, user: str, session: str,
              text: str) -> Callable:
  """One turn, as the call the harness times, returning what its callback did
  (``CallbackWatch.report``). The callback's own ``def`` or ``async def`` is ADK's business:
  ADK awaits what a callback returns only if it can be awaited, so either works."""
  message = types.Content(role="user", parts=[types.Part(text=text)])

  async def run() -> str:
    before = len(watch.calls)
    async for _event in runner.run_async(user_id=user, session_id=session, new_message=message):
      pass
    return watch.report(before, (runner.app_name, user, session))

  return run
