"""The layout model of a timeline: what the picture shows, computed from ADK objects only.

Plain frozen dataclasses, no matplotlib, so that the tests can hold every mark, write and state
value against what ADK stored, and the renderer has nothing left to decide but geometry.

How the state is replayed, and why it matches ADK (``sessions/base_session_service.py``,
``in_memory_session_service.py``, ``sqlite_session_service.py``, ``database_session_service.py``):

* every service merges an event's ``actions.state_delta`` into the stored state with
  ``dict.update`` semantics, key by key (a ``None`` value is kept, not deleted), so the replay is
  ``dict.update`` too;
* ``temp:`` keys are put into the *in-memory* session for the rest of the invocation and then
  trimmed from the event **in place** before it is stored (``_apply_temp_state``,
  ``_trim_temp_delta_state``): a stored session or ``run_async``'s output never carries one.
  A ``temp:`` write is shown only when the events were captured before the append (copies made
  in a plugin's ``on_event_callback``, or events built by hand), marked dropped and held until
  the invocation ends;
* a ``Session`` from a service is the truth: its ``state`` keys that no event wrote (from
  ``create_session(state=...)``, or another session's ``user:``/``app:`` write) are the initial
  values, a ``temp:`` key in it that no event wrote is "in memory only", and every key whose
  replayed value differs from the stored one is listed in ``Layout.mismatches``. A key that
  ``create_session`` seeded and an event later overwrote shows from its first write only: the
  stored session keeps no trace of the seed (a rewind's delta can do that: it sets keys no
  event wrote before the rewound invocation to ``None``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from typing import Any, Iterable, Literal, Optional, Sequence, Union

from google.adk.events import Event
from google.adk.sessions import Session

Scope = Literal["session", "user", "app", "temp"]
Kind = Literal["text", "tool call", "tool result", "state update", "compaction", "rewind",
               "transfer", "control"]
Mode = Literal["single", "compare", "commit"]
KINDS: tuple[Kind, ...] = ("text", "tool call", "tool result", "state update", "compaction",
                           "rewind", "transfer", "control")
SCOPES: tuple[Scope, ...] = ("session", "user", "app", "temp")
PLAIN_KINDS = frozenset({"text", "tool call", "tool result", "control"})
FOLD_AT = 60
"""Beyond this many events, runs of plain events (no write, no summary, rewind or transfer)
are folded: at 200 events one column per event is too narrow to read."""
LABEL_WIDTH = 40


class _Unset:
  """The value of a key the state does not hold (distinct from a stored ``None``)."""

  _instance: Optional["_Unset"] = None

  def __new__(cls) -> "_Unset":
    if cls._instance is None:
      cls._instance = super().__new__(cls)
    return cls._instance

  def __repr__(self) -> str:
    return "UNSET"

  def __bool__(self) -> bool:
    return False


UNSET: Any = _Unset()


@dataclass(frozen=True)
class Source:
  """One input of the picture: a session, or a list of events (then ``session`` is None)."""

  label: str
  session_id: str
  session: Optional[Session] = field(default=None, compare=False, repr=False)
  from_session: bool = False
  """Whether the input was a ``Session`` (the picture then shows its stored state). Kept apart
  from ``session`` so that a layout read back from JSON, which holds no ADK object, knows it."""


@dataclass(frozen=True)
class Lane:
  """A horizontal line of the picture: who wrote the event (a tool result goes to its tool)."""

  source: int
  role: Literal["user", "agent", "tool"]
  name: str


@dataclass(frozen=True)
class Write:
  """One key of an event's ``state_delta``."""

  key: str
  scope: Scope
  value: Any
  dropped: bool = False
  """A ``temp:`` key: ADK holds it for the invocation and never stores it."""
  replaces: Optional[int] = None
  """With several sources: the source whose value of this key this write replaced."""


@dataclass(frozen=True)
class Mark:
  """One event, in the timeline's order."""

  index: int
  source: int
  position: int
  """Its position in its source's events."""
  event_id: str
  invocation_id: str
  author: str
  lane: int
  kind: Kind
  label: str
  timestamp: float
  writes: tuple[Write, ...] = ()
  span: Optional[tuple[int, int]] = None
  """Compaction: the first and last mark it summarises; rewind: the marks it undoes."""


@dataclass(frozen=True)
class Row:
  """One state key of the grid beneath the events, with its value after each mark."""

  key: str
  scope: Scope
  owner: Optional[int]
  """The source whose state it is, or None when every source shares it."""
  values: tuple[Any, ...]
  initial: Any = UNSET
  stored: Any = UNSET
  memory_only: bool = False
  """A ``temp:`` key held in a live session's memory that no event shows writing."""
  differs: bool = False
  """A session stores another value than the replay ends with (listed in ``mismatches``)."""

  def final(self) -> Any:
    """The replayed value after the last event (the initial value if nothing wrote it)."""
    return self.values[-1] if self.values else self.initial


@dataclass(frozen=True)
class Invocation:
  """The marks of one ``invocation_id`` in one source (one user message and all it caused)."""

  source: int
  invocation_id: str
  number: int
  first: int
  last: int


@dataclass(frozen=True)
class Link:
  """A shared key written in one session, seen by the other from its next event on."""

  key: str
  from_mark: int
  to_mark: int


@dataclass(frozen=True)
class Column:
  """What the picture draws at one x position: one mark, or a folded run of plain marks."""

  first: int
  last: int

  @property
  def folded(self) -> bool:
    return self.last > self.first

  @property
  def size(self) -> int:
    return self.last - self.first + 1


@dataclass(frozen=True)
class Layout:
  """Everything the picture shows, in plain data."""

  mode: Mode
  sources: tuple[Source, ...]
  lanes: tuple[Lane, ...]
  marks: tuple[Mark, ...]
  rows: tuple[Row, ...]
  invocations: tuple[Invocation, ...]
  columns: tuple[Column, ...]
  links: tuple[Link, ...] = ()
  mismatches: tuple[str, ...] = ()

  @property
  def folded_events(self) -> int:
    return sum(c.size for c in self.columns if c.folded)

  @property
  def folded_runs(self) -> int:
    return sum(1 for c in self.columns if c.folded)

  def visible_rows(self, source: int) -> list[Row]:
    return [r for r in self.rows if r.owner in (None, source)]

  def state_after(self, index: int, source: int = 0, *, temp: bool = False) -> dict[str, Any]:
    """The state ``source`` holds after mark ``index`` (-1: before any), as the services would
    store it: without ``temp:`` keys unless ``temp=True``."""
    state = {}
    for row in self.visible_rows(source):
      value = row.initial if index < 0 or not self.marks else row.values[index]
      if value is not UNSET and (temp or row.scope != "temp"):
        state[row.key] = value
    return state

  def final_state(self, source: int = 0) -> dict[str, Any]:
    """The replayed state after the last event: for a stored session, ``session.state``."""
    return self.state_after(len(self.marks) - 1, source)


EventList = Sequence[Event]
TimelineInput = Union[Session, EventList, Sequence[Union[Session, EventList]]]


def scope_of(key: str) -> Scope:
  """The scope ADK gives ``key`` (``_session_util.extract_state_delta``): anything else, ADK's
  own ``<owner>:<key>`` names included, is session state."""
  for scope in ("user", "app", "temp"):
    if key.startswith(scope + ":"):
      return scope  # type: ignore[return-value]
  return "session"


@dataclass(frozen=True)
class Shown:
  """A state value that is not plain JSON (a tuple, a set, a datetime, NaN...), as read back
  from ``layout_from_json``: only the text the picture shows of it, ``value_text`` of the
  original. Only an in-memory session can hold such a value: the SQLite and database services
  store JSON."""

  text: str


def value_text(value: Any) -> str:
  """The one text the picture uses for a state value, and to tell two values apart: its JSON
  with sorted keys (``str`` for what JSON cannot write)."""
  if isinstance(value, Shown):
    return value.text
  try:
    return json.dumps(value, ensure_ascii=False, default=str, sort_keys=True)
  except (TypeError, ValueError):  # keys of mixed types, a cycle
    return str(value)


def short(value: Any, width: int = 24) -> str:
  """``value`` as one line of at most ``width`` characters (an ellipsis marks a cut)."""
  if value is UNSET:
    return ""
  text = value if isinstance(value, str) else value_text(value)
  text = " ".join(text.split())
  return text if len(text) <= width else text[: max(width - 1, 0)] + "…"


def kind_of(event: Event) -> Kind:
  """What an event mainly is; the rarer actions first, since they matter most when they occur."""
  actions = event.actions
  if actions.compaction is not None:
    return "compaction"
  if actions.rewind_before_invocation_id:
    return "rewind"
  if actions.transfer_to_agent:
    return "transfer"
  if event.get_function_calls():
    return "tool call"
  if event.get_function_responses():
    return "tool result"
  if event.content and any(p.text for p in event.content.parts or []):
    return "text"
  if actions.state_delta or actions.artifact_delta:
    return "state update"
  return "control"


def _text(content: Any) -> str:
  return " ".join(p.text for p in (content.parts or []) if p.text) if content else ""


def label_of(event: Event, kind: Kind) -> str:
  """A short label: the words, the call, the result, or what the action did."""
  actions = event.actions
  if kind == "compaction":
    text = _text(actions.compaction.compacted_content)
  elif kind == "rewind":
    text = "< " + actions.rewind_before_invocation_id
  elif kind == "transfer":
    text = "→ " + actions.transfer_to_agent
  elif kind == "tool call":
    text = ", ".join(f"{c.name}({short(c.args or {}, 18)})" for c in event.get_function_calls())
  elif kind == "tool result":
    text = ", ".join(f"{r.name} → {short(r.response or {}, 18)}"
                     for r in event.get_function_responses())
  elif kind == "text":
    text = _text(event.content)
  elif kind == "state update":
    text = ", ".join([*actions.state_delta, *actions.artifact_delta])
  else:
    flags = [name for name, on in (("escalate", actions.escalate),
                                   ("end_of_agent", actions.end_of_agent),
                                   ("agent_state", actions.agent_state is not None)) if on]
    text = ", ".join(flags)
  return short(text, LABEL_WIDTH)


def _lane_key(source: int, event: Event, kind: Kind) -> tuple[int, str, str]:
  if kind == "tool result":
    return (source, "tool", event.get_function_responses()[0].name or "")
  if event.author == "user":
    return (source, "user", "")
  return (source, "agent", event.author)


def _is_events(value: Any) -> bool:
  return isinstance(value, (list, tuple)) and all(isinstance(e, Event) for e in value)


def _sources(data: Any, labels: Optional[Sequence[str]]) -> list[tuple[Source, list[Event]]]:
  """The inputs as sources; a clear ``TypeError`` for anything that is not one."""
  if isinstance(data, Session):
    items: list[Any] = [data]
  elif _is_events(data):
    items = [list(data)]
  elif isinstance(data, (list, tuple)) and data and all(
      isinstance(d, Session) or _is_events(d) for d in data):
    items = list(data)
  else:
    raise TypeError(
      "timeline() takes a Session, a list of Events (e.g. collected from run_async), or a "
      "list of those (sessions to compare, or several instances' events of one session); "
      f"got {type(data).__name__}"
      + (" of " + ", ".join(sorted({type(d).__name__ for d in data}))
         if isinstance(data, (list, tuple)) and data else ""))
  if labels is not None and len(labels) != len(items):
    raise ValueError(f"{len(labels)} labels for {len(items)} inputs")
  names = list(labels) if labels is not None else (
    [""] if len(items) == 1 else [chr(ord("A") + i) for i in range(len(items))])
  out = []
  for name, item in zip(names, items):
    if isinstance(item, Session):
      out.append((Source(name, item.id, item, from_session=True), list(item.events)))
    else:
      out.append((Source(name, ""), item))
  return out


def _mode(sources: Sequence[Source], same_session: Optional[bool]) -> Mode:
  if len(sources) == 1:
    return "single"
  if same_session is not None:
    return "commit" if same_session else "compare"
  sessions = [s.session for s in sources if s.session is not None]
  one_id = len(sessions) == len(sources) and len({s.id for s in sessions}) == 1
  return "commit" if one_id or len(sessions) < len(sources) else "compare"


Item = tuple[Event, int, int]  # the event, its source, its position in that source


def _ordered(pairs: list[tuple[Source, list[Event]]], mode: Mode) -> list[Item]:
  """A source's own order; several sources by timestamp (ADK stamps an event when it is made
  and appends it right after), then by source. In commit mode an event seen twice (the same
  stored session read through two instances) counts once. A partial (streamed) event is left
  out: ADK never stores nor applies one."""
  items = [(e, s, p) for s, (_, events) in enumerate(pairs) for p, e in enumerate(events)
           if not e.partial]
  if len(pairs) == 1:
    return items
  if mode == "commit":
    seen: set[str] = set()
    unique = []
    for item in items:
      if not (item[0].id and item[0].id in seen):
        unique.append(item)
      seen.add(item[0].id)
    items = unique
  return sorted(items, key=lambda t: (t[0].timestamp, t[1], t[2]))


def _lanes(items: list[Item], kinds: list[Kind]) -> tuple[tuple[Lane, ...], dict[tuple, int]]:
  """Per source: the user, then agents, then tools, each in order of first appearance."""
  found: dict[tuple[int, str, str], None] = {}
  for (event, s, _), kind in zip(items, kinds):
    found.setdefault(_lane_key(s, event, kind))
  role_order = {"user": 0, "agent": 1, "tool": 2}
  keys = sorted(found, key=lambda k: (k[0], role_order[k[1]]))  # stable within a role
  lanes = tuple(Lane(s, role, name) for s, role, name in keys)  # type: ignore[arg-type]
  return lanes, {k: i for i, k in enumerate(keys)}


RowKey = tuple[str, Optional[int]]  # the key, and the source owning it (None: shared)


def build_layout(data: TimelineInput, *, labels: Optional[Sequence[str]] = None,
                 same_session: Optional[bool] = None, fold_at: int = FOLD_AT) -> Layout:
  """The layout model of ``data`` (see ``adkcourse.timeline.timeline`` for the inputs).

  With several inputs: sessions with different ids are *compared* (each keeps its session
  state; ``user:`` keys are shared when they belong to one user of one app, ``app:`` keys when
  one app); event lists, or sessions with one id, are several instances' appends to *one*
  session, merged in commit order. ``same_session`` overrides that choice.
  """
  pairs = _sources(data, labels)
  sources = tuple(s for s, _ in pairs)
  sessions = [s.session for s in sources if s.session is not None]
  mode = _mode(sources, same_session)
  share_user = mode != "compare" or len({(s.app_name, s.user_id) for s in sessions}) == 1
  share_app = mode != "compare" or len({s.app_name for s in sessions}) == 1

  def owner(key: str, source: int) -> Optional[int]:
    """Whose state a key is: None when every source sees the same value."""
    scope = scope_of(key)
    if mode != "compare" or (scope == "user" and share_user) or (scope == "app" and share_app):
      return None
    return source

  items = _ordered(pairs, mode)
  kinds = [kind_of(e) for e, _, _ in items]
  lanes, lane_index = _lanes(items, kinds)

  # Which rows exist, and what initial and stored values the sessions give them.
  row_keys: dict[RowKey, None] = {}
  for event, s, _ in items:
    for key in event.actions.state_delta or {}:
      row_keys.setdefault((key, owner(key, s)))
  written = set(row_keys)
  initial: dict[RowKey, Any] = {}
  stored: dict[RowKey, Any] = {}
  memory_only: set[RowKey] = set()
  for s, source in enumerate(sources):
    for key, value in (source.session.state.items() if source.session else ()):
      rk = (key, owner(key, s))
      row_keys.setdefault(rk)
      stored[rk] = value
      if rk in written:
        continue
      if scope_of(key) == "temp":
        memory_only.add(rk)
      else:
        initial.setdefault(rk, value)

  # The replay.
  current: dict[RowKey, Any] = dict(initial)
  last_writer: dict[RowKey, int] = {}
  temp_of: dict[RowKey, tuple[int, str]] = {}
  history: list[dict[RowKey, Any]] = []
  marks: list[Mark] = []
  links: list[Link] = []
  pending: list[tuple[str, int, int]] = []  # a shared key's write: key, mark, its source
  for index, ((event, s, position), kind) in enumerate(zip(items, kinds)):
    for rk, (ts, inv) in list(temp_of.items()):
      if ts == s and inv != event.invocation_id:  # a new invocation reads the session afresh
        current.pop(rk, None)
        del temp_of[rk]
    links += [Link(key, at, index) for key, at, ws in pending if ws != s]
    pending = [p for p in pending if p[2] == s]
    writes = []
    for key, value in (event.actions.state_delta or {}).items():
      rk = (key, owner(key, s))
      scope = scope_of(key)
      before = last_writer.get(rk)
      replaces = items[before][1] if before is not None and items[before][1] != s else None
      writes.append(Write(key, scope, value, dropped=scope == "temp", replaces=replaces))
      current[rk] = value
      last_writer[rk] = index
      if scope == "temp":
        temp_of[rk] = (s, event.invocation_id)
      if mode == "compare" and rk[1] is None:
        pending.append((key, index, s))
    history.append(dict(current))
    marks.append(Mark(index=index, source=s, position=position, event_id=event.id,
                      invocation_id=event.invocation_id, author=event.author,
                      lane=lane_index[_lane_key(s, event, kind)], kind=kind,
                      label=label_of(event, kind), timestamp=event.timestamp,
                      writes=tuple(writes)))
  marks = [_with_span(m, event, marks) for m, (event, _, _) in zip(marks, items)]

  def differs(rk: RowKey) -> bool:
    """Whether a session stores another value than the replay ends with (temp: aside)."""
    final = history[-1].get(rk, UNSET) if history else initial.get(rk, UNSET)
    return scope_of(rk[0]) != "temp" and any(
      source.session.state.get(rk[0], UNSET) != final for s, source in enumerate(sources)
      if source.session is not None and rk[1] in (None, s))

  ordered = sorted(row_keys, key=lambda rk: (SCOPES.index(scope_of(rk[0])),
                                             -1 if rk[1] is None else rk[1]))
  rows = tuple(Row(key=k, scope=scope_of(k), owner=o,
                   values=tuple(h.get((k, o), UNSET) for h in history),
                   initial=initial.get((k, o), UNSET), stored=stored.get((k, o), UNSET),
                   memory_only=(k, o) in memory_only, differs=differs((k, o)))
               for k, o in ordered)
  mismatches = tuple(r.key if r.owner is None else f"{sources[r.owner].label}:{r.key}"
                     for r in rows if r.differs)
  invocations = _invocations(marks)
  marks = _rewinds_by_number(marks, invocations)
  return Layout(mode=mode, sources=sources, lanes=lanes, marks=tuple(marks), rows=rows,
                invocations=invocations, columns=_columns(marks, fold_at),
                links=tuple(links), mismatches=mismatches)


def _rewinds_by_number(marks: list[Mark], invocations: tuple[Invocation, ...]) -> list[Mark]:
  """A rewind's label names the invocation it rewinds before by its number in the picture
  ("< 2"), not by its id: ids are new on every run, so a picture that drew them would differ on
  every run (and a committed notebook's output with it)."""
  number = {(i.source, i.invocation_id): i.number for i in invocations}
  out = []
  for mark in marks:
    if mark.kind == "rewind" and mark.label.startswith("< "):
      target = number.get((mark.source, mark.label[2:]))
      mark = replace(mark, label=f"< {target}" if target else "<")
    out.append(mark)
  return out


def _with_span(mark: Mark, event: Event, marks: list[Mark]) -> Mark:
  """The marks a compaction summarises (by the timestamps it names) or a rewind undoes (from
  the first event of the invocation it rewinds before, up to itself)."""
  same = [m for m in marks if m.source == mark.source and m.index != mark.index]
  span: list[int] = []
  if mark.kind == "compaction":
    c = event.actions.compaction
    span = [m.index for m in same if m.kind != "compaction"
            and c.start_timestamp <= m.timestamp <= c.end_timestamp]
  elif mark.kind == "rewind":
    target = event.actions.rewind_before_invocation_id
    starts = [m.index for m in same if m.invocation_id == target and m.index < mark.index]
    if starts:
      span = [m.index for m in same if starts[0] <= m.index < mark.index]
  if not span:
    return mark
  return replace(mark, span=(min(span), max(span)))


def _invocations(marks: Iterable[Mark]) -> tuple[Invocation, ...]:
  found: dict[tuple[int, str], list[int]] = {}
  for m in marks:
    found.setdefault((m.source, m.invocation_id), []).append(m.index)
  numbers: dict[int, int] = {}
  out = []
  for (source, inv), indices in found.items():
    numbers[source] = numbers.get(source, 0) + 1
    out.append(Invocation(source, inv, numbers[source], indices[0], indices[-1]))
  return tuple(out)


def _plain(mark: Mark) -> bool:
  return not mark.writes and mark.kind in PLAIN_KINDS


def _columns(marks: Sequence[Mark], fold_at: int) -> tuple[Column, ...]:
  """One column per mark; beyond ``fold_at`` marks, each run of two or more plain marks is one
  column."""
  if len(marks) <= fold_at:
    return tuple(Column(m.index, m.index) for m in marks)
  columns: list[Column] = []
  start: Optional[int] = None
  for m in [*marks, None]:
    if m is not None and _plain(m):
      start = m.index if start is None else start
      continue
    if start is not None:  # a run of one plain mark is a column of one, like any other
      columns.append(Column(start, (m.index if m is not None else len(marks)) - 1))
      start = None
    if m is not None:
      columns.append(Column(m.index, m.index))
  return tuple(columns)


# -- the layout as JSON ----------------------------------------------------------------------------

JSON_VERSION = 1
"""Raised when the format changes incompatibly: ``layout_from_json`` refuses other versions, so
an old notebook output asks to be re-run instead of drawing something else."""


def _plain_json(value: Any) -> bool:
  """Whether JSON gives ``value`` back equal and of the same types (no tuple, no int key)."""
  if value is None or type(value) in (str, int, bool):
    return True
  if type(value) is float:
    return value == value and value not in (float("inf"), float("-inf"))
  if type(value) is list:
    return all(_plain_json(v) for v in value)
  if type(value) is dict:
    return all(type(k) is str and _plain_json(v) for k, v in value.items())
  return False


class _Values:
  """State values written once each, by index (a row holds one value per event: at 200 events
  the same dict would be repeated hundreds of times). An entry is ``[value]`` for a JSON value,
  ``{"shown": text}`` for another (read back as ``Shown``); ``null`` in place of an index is
  UNSET."""

  def __init__(self) -> None:
    self.entries: list[Any] = []
    self._index: dict[str, int] = {}

  def ref(self, value: Any) -> Optional[int]:
    if value is UNSET:
      return None
    entry = [value] if _plain_json(value) else {"shown": value_text(value)}
    key = json.dumps(entry, sort_keys=True, ensure_ascii=False)  # True and 1 stay apart
    if key not in self._index:
      self._index[key] = len(self.entries)
      self.entries.append(entry)
    return self._index[key]


def layout_to_json(layout: Layout, *, stable: bool = False) -> str:
  """``layout`` as compact JSON text, for a notebook output to carry (``Timeline``), so that
  ``python -m adkcourse.i18n generate`` can draw it again in another language without a kernel.

  ``layout_from_json`` gives back an equal ``Layout`` (``==``) whose picture is the same bytes.
  What it cannot hold: the ``Session`` objects (``Source.session`` is None, ``from_session``
  says there was one), and a state value that is not plain JSON, kept as the text the picture
  shows of it (``Shown``).

  ``stable=True`` (what a notebook output carries) replaces what changes on every run and the
  picture never shows: event ids become ``e1``, ``e2``..., invocation ids ``i1``, ``i2``...
  (in order of first appearance, one stand-in per id), timestamps the mark's index. Re-running
  a lesson then leaves its outputs byte for byte as they were, metadata included."""
  values = _Values()
  events: dict[str, str] = {}
  invocations: dict[str, str] = {}

  def event_id(value: str) -> str:
    return events.setdefault(value, f"e{len(events) + 1}") if stable else value

  def invocation_id(value: str) -> str:
    return invocations.setdefault(value, f"i{len(invocations) + 1}") if stable else value

  doc = {
    "version": JSON_VERSION,
    "mode": layout.mode,
    "sources": [{"label": s.label, "session_id": s.session_id, "from_session": s.from_session}
                for s in layout.sources],
    "lanes": [[l.source, l.role, l.name] for l in layout.lanes],
    "marks": [{"index": m.index, "source": m.source, "position": m.position,
               "event_id": event_id(m.event_id), "invocation_id": invocation_id(m.invocation_id),
               "author": m.author, "lane": m.lane, "kind": m.kind, "label": m.label,
               "timestamp": float(m.index) if stable else m.timestamp,
               "writes": [[w.key, w.scope, values.ref(w.value), w.dropped, w.replaces]
                          for w in m.writes],
               "span": list(m.span) if m.span is not None else None}
              for m in layout.marks],
    "rows": [{"key": r.key, "scope": r.scope, "owner": r.owner,
              "values": [values.ref(v) for v in r.values], "initial": values.ref(r.initial),
              "stored": values.ref(r.stored), "memory_only": r.memory_only,
              "differs": r.differs}
             for r in layout.rows],
    "invocations": [[i.source, invocation_id(i.invocation_id), i.number, i.first, i.last]
                    for i in layout.invocations],
    "columns": [[c.first, c.last] for c in layout.columns],
    "links": [[k.key, k.from_mark, k.to_mark] for k in layout.links],
    "mismatches": list(layout.mismatches),
  }
  doc["values"] = values.entries
  return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def layout_from_json(doc: Union[str, dict]) -> Layout:
  """The ``Layout`` that ``layout_to_json`` wrote (its text, or that text parsed)."""
  if isinstance(doc, str):
    doc = json.loads(doc)
  if not isinstance(doc, dict) or doc.get("version") != JSON_VERSION:
    found = doc.get("version") if isinstance(doc, dict) else type(doc).__name__
    raise ValueError(f"a timeline layout of version {found!r}, not {JSON_VERSION}: re-run the "
                     "notebook that drew it")
  entries = doc["values"]

  def value(ref: Optional[int]) -> Any:
    if ref is None:
      return UNSET
    entry = entries[ref]
    return entry[0] if isinstance(entry, list) else Shown(entry["shown"])

  marks = tuple(
    Mark(index=m["index"], source=m["source"], position=m["position"], event_id=m["event_id"],
         invocation_id=m["invocation_id"], author=m["author"], lane=m["lane"], kind=m["kind"],
         label=m["label"], timestamp=m["timestamp"],
         writes=tuple(Write(key, scope, value(ref), dropped, replaces)
                      for key, scope, ref, dropped, replaces in m["writes"]),
         span=tuple(m["span"]) if m["span"] is not None else None)  # type: ignore[arg-type]
    for m in doc["marks"])
  return Layout(
    mode=doc["mode"],
    sources=tuple(Source(s["label"], s["session_id"], from_session=s["from_session"])
                  for s in doc["sources"]),
    lanes=tuple(Lane(source, role, name) for source, role, name in doc["lanes"]),
    marks=marks,
    rows=tuple(Row(key=r["key"], scope=r["scope"], owner=r["owner"],
                   values=tuple(value(v) for v in r["values"]), initial=value(r["initial"]),
                   stored=value(r["stored"]), memory_only=r["memory_only"],
                   differs=r["differs"])
               for r in doc["rows"]),
    invocations=tuple(Invocation(*i) for i in doc["invocations"]),
    columns=tuple(Column(first, last) for first, last in doc["columns"]),
    links=tuple(Link(*k) for k in doc["links"]),
    mismatches=tuple(doc["mismatches"]),
  )
