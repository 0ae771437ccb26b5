"""Observing what a real ``Runner`` wrote into a session store, so that two runs compare.

Two runs of the same conversation never write the same bytes: every event gets a fresh id
(a UUID), every turn an invocation id (``e-<uuid>``), every function call an id
(``adk-<uuid>``), and every event, session update and state update the clock's reading. None of
them is the code's doing, and leaving them out of the comparison would leave whole rows
unjudged. So ``runner_stable`` rewrites a ``read_sqlite`` observation:

- the events leave the ``events`` table for a group of their own, ``("events", app, user,
  session, turn, n, *field)``: turn ``t`` is the ``t``-th invocation of the session, ``n`` the
  event's place in it, in ADK's own order (timestamps). A turn with one event more or less
  leaves the other turns' keys as they were;
- the ids inside an event become what they stand for: ``turn 2`` (an invocation), ``event
  2.3`` (an event), ``call 1`` (a function call, numbered by first appearance in its session):
  a function response still names the call it answers;
- a time that is some event's timestamp becomes ``time of event 2.3 of (user, session)`` (so
  an ``update_time`` says which event last wrote its row); any other time is kept as it is
  (the pristine world's times are identical in every copy).

An empty ``state_delta`` is left out: no state change is said by the absence of its keys
(the event itself is a row), so that a missing event costs the conversation's check, not the
state's. So is an action flag set to False (``skip_summarization``, ``escalate``...): ADK reads
these flags by their truth, so False does what leaving them unset does, and what it does (the
model's confirmation, or none) is observed in the events that follow.

Also here, as generic: ``describe_store_key`` (such keys in words), ``DeclaredTool`` (a
submission's function as an agent's tool, under the contract's declaration), ``say`` (one
turn), candidates for the shared modules (``_observe``, ``_harness``); and
``awkward_drinks`` (strings that every careless cleaning step changes) with ``visible`` (such
a string in feedback, its invisible characters escaped), candidates for ``_world`` and
``_engine.show``.
"""

from __future__ import annotations

import json
import math
import random
import unicodedata
from typing import Any, Callable, Optional

from google.adk.tools import FunctionTool
from ._observe import quote

Observation = dict
TIME_FIELDS = ("timestamp", "update_time", "create_time")
ROW_WIDTH = {"sessions": 3, "user_states": 2, "app_states": 1}  # key columns of a row


def _stamp(items: dict[tuple, Any]) -> float:
  stamp = items.get(("timestamp",))
  return stamp if type(stamp) in (int, float) else float("inf")


def _text(value: Any) -> str:
  return json.dumps(value, default=str, ensure_ascii=False)


def runner_stable(observed: Observation, prefix: tuple = ("db",)) -> Observation:
  """``observed`` (``read_sqlite`` under ``prefix``) with the events regrouped by turn and the
  Runner's ids and clock readings replaced by what they stand for (see the module)."""
  table = prefix + ("table",)
  start = len(table) + 1  # where an event's (app, user, session, id) begins
  grouped: dict[tuple, dict[Any, dict[tuple, Any]]] = {}
  out: Observation = {}
  for key, value in observed.items():
    if key[:start] == table + ("events",) and len(key) >= start + 4:
      where, event = key[start:start + 3], key[start + 3]
      grouped.setdefault(where, {}).setdefault(event, {})[key[start + 4:]] = value
    else:
      out[key] = value
  times: dict[float, str] = {}
  for where in sorted(grouped, key=_text):
    items = grouped[where]
    names: dict[Any, str] = {}
    places: dict[Any, tuple[int, int]] = {}
    sizes: dict[Any, int] = {}  # invocation id -> events so far (in order of appearance)
    for event in sorted(items, key=lambda e: (_stamp(items[e]), _text(e))):
      turn = items[event].get(("invocation_id",))
      if turn not in sizes:
        names[turn] = f"turn {len(sizes) + 1}"
      sizes[turn] = sizes.get(turn, 0) + 1
      places[event] = (list(sizes).index(turn) + 1, sizes[turn])
      names[event] = "event {}.{}".format(*places[event])
      times.setdefault(_stamp(items[event]),
                       f"time of {names[event]} of ({quote(where[1])}, {quote(where[2])})")
    calls = 0
    for event in sorted(items, key=lambda e: places[e]):
      base = ("events",) + tuple(where) + places[event]
      for path in sorted(items[event], key=_text):
        value = items[event][path]
        if path[-2:] == ("actions", "state_delta") and value == {}:
          continue
        if path[:2] == ("event_data", "actions") and len(path) == 3 and value is False:
          continue  # a flag ADK reads by truth (skip_summarization...): False is its default
        if isinstance(value, str) and path and (path[-1] in ("id", "invocation_id")
                                                or "long_running_tool_ids" in path):
          if value not in names:
            calls += 1
            names[value] = f"call {calls}"
          value = names[value]
        out[base + path] = value
  for key, value in list(out.items()):
    field = (key[6:] if key[0] == "events" else
             key[start + ROW_WIDTH.get(str(key[start - 1]), 0):] if key[:len(table)] == table
             else ())
    is_time = len(field) == 1 and field[0] in TIME_FIELDS or field == ("event_data", "timestamp")
    if is_time and type(value) in (int, float) and value in times:
      out[key] = times[value]
  return out


# -- describing such an observation ---------------------------------------------------------------

def _path(parts: tuple) -> str:
  return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts).lstrip(".")


def who(user: Any) -> str:
  """A user id as a student can tell it from its look-alikes (the same letters decomposed)."""
  text = str(user)
  return repr(text) + (" (decomposed accents)" if unicodedata.normalize("NFC", text) != text
                       else "")


def describe_store_key(key: tuple, places: Optional[dict[str, str]] = None) -> str:
  """A key of ``runner_stable`` in words: ``event 3 of turn 2 in conversation 'default' of
  'ada': the tool's answer (response.status)``, ``the user state of 'ada' in 'cafe': user:name``;
  other keys as ``_observe.describe_key`` says them."""
  from ._observe import describe_key, quote

  if key[0] == "events" and len(key) >= 6:
    where, field = f"event {key[5]} of turn {key[4]} in conversation {quote(key[3])} of " \
        f"{who(key[2])}", key[6:]
    if "function_response" in field:
      after = field[field.index("function_response") + 1:]
      return f"{where}: the tool's answer ({_path(after) or 'all of it'})"
    if field[1:3] == ("actions", "state_delta") and len(field) > 3:
      return f"{where}: its state_delta[{quote(field[3])}]{_path(field[4:])}"
    if field[:1] == ("event_data",):
      return f"{where}: {_path(field[1:])}"
    return f"{where}: " + (f"its {_path(field)} column" if field else "the whole event")
  rest = key[3:] if len(key) > 3 and key[1] == "table" else ()
  if key[2:3] == ("user_states",) and len(rest) > 2 and rest[2] == "state":
    item = f"user:{rest[3]}{_path(rest[4:])}" if len(rest) > 3 else "(all of it)"
    return f"the user state of {who(rest[1])} in {quote(rest[0])}: {item}"
  if key[2:3] == ("sessions",) and len(rest) > 3 and rest[3] == "state":
    return (f"the state of conversation {quote(rest[2])} of {who(rest[1])}: "
            + (_path(rest[4:]) or "(all of it)"))
  return describe_key(key, places)


# -- running a submission's function as an agent's tool -------------------------------------------

class DeclaredTool(FunctionTool):
  """``fn`` run as ADK runs a tool (its parameters bound as ADK binds them, sync or async),
  under the name and declaration of ``declared`` (the contract's signature and docstring):
  what the model is sent, and so the token counts the events record, never depends on the
  submission's docstring or parameter names."""

  def __init__(self, fn: Callable, declared: Callable):
    super().__init__(fn)
    self.name = declared.__name__
    self._declared = declared

  def _get_declaration(self) -> Any:
    return FunctionTool(self._declared)._get_declaration()


async def say(runner: Any, user: str, session: str, text: str) -> None:
  """One turn of a conversation: the user's message, run to the end."""
  from google.genai import types

  message = types.Content(role="user", parts=[types.Part(text=text)])
  async for _event in runner.run_async(user_id=user, session_id=session, new_message=message):
    pass


# -- strings a careless transformation changes ------------------------------------------------

# Every kind of character a "cleaning" step touches: each world's values hold all of them, so
# that strip, truncate, escape, normalise, drop or validate changes at least one value there.
WORDS = {  # word-like fragments, joined to the others by a separator
    "digits": ("12 oz", "2 shots", "16oz", "3x", "0.5 l", "No. 5", "2%", "1/2", "#7"),
    "markup": ("& cream", "<b>foam</b>", "<3", "tea > coffee", "&amp; honey", "&lt;hot&gt;"),
    "compat": ("½ shot", "x²", "ﬁzz", "ｏａｔ", "Ⅲ"),  # what NFKC changes
    "emoji": ("☕", "🧋", "👩‍🍳", "🇮🇹", "❤️", "🍵"),
    "scripts": ("قهوة", "קפה", "抹茶", "珈琲", "чай", "Straße"),
    "symbols": ("100% arabica", "C:\\cup", "{size}", "%s", "50_50", "*extra*", "$4", "`hot`",
                "a|b", "@bar", "\\n", "\\u00e9"),  # the last two: a backslash, not an escape
    "capitals": ("ICED", "Earl Grey", "XL", "DECAF", "İstanbul"),
    "accents": ("café", "crème", "brûlée", "chá", "Ñu"),
    "decomposed": tuple(unicodedata.normalize("NFD", w) for w in ("café", "crème", "chá")),
    "quotes": ("builder's", '"dirty"', "“smart”", "'n'", "«chai»"),
    "rare": ("\U0010ffff", "\uffff\ufffe", "\ufdd0", "\U0001fffe", "\ue000", "\U000f0000",
             "\U00100000", "\U000e0041\U000e007f", "\u202eoat\u202c", "\u2067ﺷﺎﻱ\u2069",
             "\u061c", "\u200f", "\ufe0e", "\U000e0100", "a\u0300\u0301\u0302\u0489",
             "\u034f", "\u0378", "\U000dead0", "\U0001d538", "\U00010330", "\x80\x9f",
             "\u180e", "\u115f", "\ufffd"),  # noncharacters, private use, tags, bidi
    # controls, variation selectors, combining marks, unassigned, other planes, C1 controls
}
SEPARATORS = {  # in place of one space between two fragments
    "line": ("\n", "\r\n", "\r", "\u2028", "\x85", "\x0b"),
    "tab": ("\t",),
    "spaces": ("  ", "   "),
    "invisible": ("\u00a0", "\u2009", "\u202f", "\u200b", "\u200d", "\ufeff", "\u2060",
                  "\u00ad", "\u3000", "\u200e"),
    "control": ("\x00", "\x07", "\x1b", "\x7f", "\x01", "\x1f"),  # NUL too: ADK's SQLite
    # merge cuts a stored text there, for the reference and the submission alike
}
PLAIN = ("latte", "flat white", "cortado", "oolong tea", "chai", "mocha", "cold brew",
         "macchiato", "oat milk", "americano")
MIDDLES = ("", " ", "  ", "\u3000", "\u00a0", " \u2009 ")  # inside the blank drink, between
# two of EDGES/TAILS (so a blank is whitespace only, as str.strip and str.isspace see it)
LIKE_DATA = ("42", "0", "null", "true", "3.14", "[]", "{}", '{"size": "large"}', "1e3", "-1",
             "NaN")
SAID = ("my favourite drink is: ", "My favorite drink is ", "favourite drink is: ",
        "MY FAVOURITE DRINK IS:", "my favorite drink is ")
ARTICLES = ("a ", "the ", "an ")  # lower case: what capitalize() or title() changes
EDGES = ((" ",), ("\t",), ("\n",))  # first/last characters of two drinks and the blank one
TAILS = ((" ",), ("\t",), ("\n", "\r\n"))  # (a newline last may come as CR LF)
INVISIBLE = ("\u00a0", "\ufeff", "\u3000", "\u200b")  # ends of a fourth, by variant
STOPS = ("!", "?", "\u2026", "!!")  # the long one's end, by variant; the said one ends with "."
MAX_DRINK = 100_000  # characters: the longest drink the statement allows, in every run
LONGEST = 2  # the variant whose long drink is MAX_DRINK characters; the others' are drawn
LONG = (4_097, MAX_DRINK)  # log-uniformly, as the invisible-ended one's in MIDDLE_LENGTHS:
MIDDLE_LENGTHS = (16, 4_096)  # together every length up to the maximum
SCALARS = 64  # code points drawn from all of Unicode (no surrogate) in each long drink


def _body(rng: random.Random, features: list[str], length: int = 0) -> str:
  """Fragments of ``features`` among plain words (at least ``length`` characters), each
  separator feature between two of them; a long body holds every fragment and every
  separator of its features, in random order."""
  everything = length > 0
  words = ([w for f in features if f in WORDS for w in WORDS[f]] if everything else
           [rng.choice(WORDS[f]) for f in features if f in WORDS]) + [rng.choice(PLAIN)]
  pool, size = PLAIN + tuple(w for f in features if f in WORDS for w in WORDS[f]), \
      sum(len(w) + 1 for w in words)
  while size < length:
    words.append(rng.choice(pool))
    size += len(words[-1]) + 1
  rng.shuffle(words)
  words += [rng.choice(PLAIN)] if len(words) < 2 else []
  seps = ([s for f in features if f in SEPARATORS for s in SEPARATORS[f]] if everything else
          [rng.choice(SEPARATORS[f]) for f in features if f in SEPARATORS])
  gaps = [" "] * (len(words) - 1)
  for at, sep in zip(rng.sample(range(len(gaps)), min(len(seps), len(gaps))), seps):
    gaps[at] = sep
  extra = "".join(seps[len(gaps):])  # more separators than gaps: inside the last word
  text = "".join(w + g for w, g in zip(words, gaps + [""]))
  return text[:-1] + extra + text[-1:] if extra else text


def log_uniform(rng: random.Random, low: int, high: int) -> int:
  """An integer in [low, high], each factor of two as likely as the next."""
  return min(high, max(low, int(math.exp(rng.uniform(math.log(low), math.log(high + 1))))))


def scalars(rng: random.Random, count: int) -> str:
  """``count`` code points drawn from all of Unicode (half of them from the first plane), never
  a surrogate: any text a model can send holds such characters, assigned or not."""
  out = []
  while len(out) < count:
    point = rng.randrange(0x110000 if len(out) % 2 else 0x10000)
    if not 0xD800 <= point <= 0xDFFF:
      out.append(chr(point))
  return "".join(out)


def _exactly(rng: random.Random, start: str, body: str, end: str, length: int) -> str:
  """``start + body + end`` made exactly ``length`` characters long by code points of
  ``scalars`` (at least ``SCALARS``) inside the body (``body`` is shorter than needed)."""
  filler = scalars(rng, max(SCALARS, length - len(start) - len(body) - len(end)))
  at = rng.randrange(1, len(body)) if len(body) > 1 else len(body)
  text = start + body[:at] + filler + body[at:] + end
  assert len(text) >= length
  return text if len(text) == length else start + (body[:at] + filler + body[at:])[
      :length - len(start) - len(end)] + end


def long_length(rng: random.Random, variant: int) -> int:
  """The long drink's length: the maximum in the ``LONGEST`` variant (so in every run),
  log-uniform over ``LONG`` in the others."""
  return MAX_DRINK if variant == LONGEST else log_uniform(rng, *LONG)


def awkward_drinks(rng: random.Random, variant: int) -> list[str]:
  """Ten different drinks, in random order, on which every careless transformation (strip of
  any end, truncation, first line, unquoting, escaping, normalising, filtering, parsing,
  refusing) differs from the identity, in every world: an empty one; one that reads as data
  (``42``, ``null``); one wrapped in double quotes, one in single quotes, one that starts with
  the sentence that names it and ends with a full stop; a blank one and two others that start
  with a space, a tab, a newline and end with another of them; one with invisible ends
  (``INVISIBLE``, by variant) of a length drawn over ``MIDDLE_LENGTHS``; and a long one
  (``long_length``: ``MAX_DRINK`` characters in every run) that starts with a lower-case
  article, holds every fragment and separator kind above (NUL and the rare code points
  included) and ``SCALARS`` or more code points from all of Unicode, and ends with
  punctuation. Every fragment and separator kind is also in two of the short ones."""
  kinds = list(WORDS) + list(SEPARATORS)
  shaped: list[list[str]] = [[] for _ in range(6)]
  for kind in kinds:
    for at in rng.sample(range(len(shaped)), 2):
      shaped[at].append(kind)
  leads = list(range(3))
  rng.shuffle(leads)
  tails = leads[1:] + leads[:1]  # each one ends with another kind than it starts with
  ends = [(rng.choice(EDGES[lead]), rng.choice(TAILS[tail])) for lead, tail in zip(leads, tails)]
  edged = [lead + _body(rng, shaped[3 + n]) + tail for n, (lead, tail) in enumerate(ends[1:])]
  middle = log_uniform(rng, *MIDDLE_LENGTHS)
  invisible = (INVISIBLE[variant], INVISIBLE[(variant + 1) % 4])
  invisible_body = _body(rng, shaped[5])
  if len(invisible_body) + 2 < middle:
    invisible_body += " " + _body(rng, shaped[5], middle - len(invisible_body) - 3)
  length = long_length(rng, variant)
  article, stop = rng.choice(ARTICLES), STOPS[variant]
  long_body = _body(rng, kinds, length - len(article) - len(stop) - SCALARS - 400)
  drinks = ["", ends[0][0] + rng.choice(MIDDLES) + ends[0][1], rng.choice(LIKE_DATA),
            '"' + _body(rng, shaped[0]) + '"', "'" + _body(rng, shaped[1]) + "'",
            rng.choice(SAID) + _body(rng, shaped[2]) + ".", *edged,
            invisible[0] + invisible_body + invisible[1],
            _exactly(rng, article, long_body, stop, length)]
  rng.shuffle(drinks)
  return drinks


def visible(value: Any) -> str:
  """A value as feedback shows it: a str with every invisible or control character escaped
  (a no-break space is not a space) and its length when long; anything else as JSON."""
  if not isinstance(value, str):
    return _text(value)
  shown = "".join(c if c == " " or unicodedata.category(c)[0] not in "CZ" else
                  c.encode("unicode_escape").decode() if ord(c) < 0x10000 else c for c in value)
  if unicodedata.normalize("NFC", value) != value:
    shown += " (not in NFC form)"
  return (f'"{shown[:80]}…" ({len(value)} characters)' if len(shown) > 100 else f'"{shown}"')
