"""The judge of the lesson-1 exercise ``remember_favorite_drink`` (state at the right scope).

Contract (``exercises/remember_favorite_drink.py``): the tool ``remember_favorite_drink(
tool_context, drink) -> dict`` writes exactly ``user:favorite_drink`` and ``last_drink`` (the
``drink`` argument itself) on every call, nothing else, and returns exactly ``{"status":
"saved", "favorite_drink": drink}``.

Each world: a cafe's ``SqliteSessionService`` file written from a script (``_world.play``):
the app's state; the customer's nested user keys and an earlier visit that set a favourite;
customers whose ids a sloppy scope confuses with theirs (a prefix, case, the same letters
decomposed), some sharing their session id (``default``...); bystanders; the same customer in
a look-alike app. Then a conversation through a real ``Runner`` whose agent has the function as
its tool (the offline model calls it with the turn's drink, which the customer's message words
otherwise: collapsed, lower case, in a sentence): the customer names a drink, changes their
mind across two conversations, names the favourite it already is (in another conversation,
then where it is already last_drink; their next conversation, never spoken in, stays as it
was); the look-alikes name theirs in between, one the customer's very drink, and once, at a
random point, 38-100 drinks in one message, which the model saves in one response (parallel
calls, ``BATCH``): a run makes 205-450 or so calls in one process, so that a tool that counts
its calls and changes after some number meets it. The ten drinks of every world
(``_remember_favorite_drink_support.awkward_drinks``) make every careless transformation
differ from the identity there: empty, blank, data-like (``42``), wrapped in either quote,
starting with "my favourite drink is" and ending with ".", starting and ending with space, tab,
newline and invisible spaces, one of a length drawn up to 4,096, and a long one (100,000
characters, the statement's maximum, in every run; log-uniform over 4,097-100,000 in the other
worlds) with every kind of character (digits, ``&<>``, emoji, scripts, NFD, NFKC-unstable,
controls and NUL, line and space separators, noncharacters, private-use, unassigned, tags,
bidi controls, and code points drawn from all of Unicode); no lone surrogate, which no model
can send. tests/test_grade_remember_favorite_drink.py checks a catalogue of such
transformations against the worlds.

Observed after the last turn: every row of every table (each state key; each event's every
field, the function_response the model read and the state_delta included), the schema and
format, the files of the folder and any file left in the work folder, the
temporary and home folders of the calls (``stray_files``), and any file a call made or changed
anywhere else (``OutsideWrites``, shared with the other exercises: in the students' own process
a hard-coded ``/tmp`` path is seen too); the Runner's ids and clock readings replaced by what
they stand for, an action flag set to False as unset
(``_remember_favorite_drink_support.runner_stable``). A value in a state column is the drink as
ADK's store keeps it: its SQLite merge ends a text at a NUL (``stored_as``), the reference's as
anyone's.
"""

from __future__ import annotations

import inspect
import json
import random
import unicodedata
from pathlib import Path
from typing import Any, Callable, Optional
from uuid import UUID

from google.adk.sessions.sqlite_session_service import SqliteSessionService
from google.adk.tools import ToolContext

from ._engine import ABSENT, Check, Exercise, Resources, View, same
from ._outside_writes import OutsideWrites
from ._harness import ActWorld, quiet_adk
from ._observe import folder_files, read_sqlite, stray_files, quote
from ._remember_favorite_drink_support import (DeclaredTool, awkward_drinks, describe_store_key,
                                               log_uniform, runner_stable, say, visible, who)
from ._world import (FIRST_NAMES, SHARED_SESSION_IDS, Clock, awkward_user_id,
                     lookalike_ids, play, secret)

TOOL, AGENT, DB_NAME = "remember_favorite_drink", "drink_buddy", "drinks.db"
OUTSIDE = "outside-writes.json"  # what the calls made outside the world's folders (``act``)
MAX_OUTSIDE = 40  # entries of it read back
# calls of one response (parallel calls) in each world: the run's total, and so the number of
# calls a process makes (53 or so more in the other turns), is drawn over 205-450 or so
BATCH = (38, 100)


INSTRUCTION = "You are a cafe concierge. Save the drink a customer names with the tool."
FAV, LAST, STAYS, OTHERS, CONFIRM = ("favorite_follows_the_customer", "last_drink_in_each_session",
                                     "last_drink_stays_in_its_session",
                                     "other_customers_unaffected", "returns_confirmation")
STEMS = ("cafe", "coffee_bar", "tea_house", "bakery", "espresso_cart")
SIZES = ("small", "large", "double", "iced", "hot", "decaf", "ICED", "Extra-hot")
MILKS = ("oat milk", "almond milk", "whole milk", "soy", "coconut milk", "")
BASES = ("latte", "flat white", "cortado", "oolong tea", "chai", "mocha", "cold brew",
         "macchiato", "Earl Grey")
QUIRKY = {"quotes": ("builder's tea", 'the "usual"', "o'clock chai", '"dirty" chai latte'),
          "unicode": ("café crème", "crème brûlée latte", "matcha 抹茶", "☕ americano",
                      "chá mate"),
          "spaces": ("flat  white", "oat milk  latte", "cold brew  tonic")}
MINE = {"user:favorite_drink": FAV, "last_drink": LAST}  # the state_delta keys of each check
SMALL_TALK = ("Thanks, see you tomorrow!", "What's on the menu today?", "Hello again!")
SAID = {"first": ("Hi! My favourite drink is: {}, thanks.", "Put me down for {} please!"),
        "change": ("Actually, no. My favorite drink is {} now.", "Make that {} from today on"),
        "again": ("Just so you know, my favourite drink is still {}!", "{}, as always."),
        "batch": ("Hmm, {}... or maybe something else, let me think aloud.",
                  "I can't decide: {}, and a few more.")}
# variant -> (kind of the customer's id, the drinks' quirk, how the look-alike app is named)
VARIANTS = (("quotes", "quotes", "suffix"), ("unicode", "unicode", "case"),
            ("like", "spaces", "suffix"), (None, "unicode", "case"))


# --- the world ---------------------------------------------------------------------------------

def _drinks(rng: random.Random, quirk: str, count: int) -> list[str]:
  """``count`` different drinks; the first (and about half the others) with the quirk."""
  chosen: list[str] = []
  while len(chosen) < count:
    odd = not chosen or rng.random() < 0.5
    base = rng.choice(QUIRKY[quirk] if odd else BASES)
    drink = " ".join(w for w in (rng.choice(SIZES), rng.choice(MILKS), base) if w)
    if quirk == "unicode" and (not chosen or rng.random() < 0.5):
      drink = unicodedata.normalize("NFD", drink)  # the same letters, decomposed
    if quirk == "spaces" and not chosen:
      drink += " "  # as typed: a trailing space is part of what was said
    if drink not in chosen:
      chosen.append(drink)
  return chosen


def _visit(rng: random.Random, clock: Clock, drink: str) -> list[dict[str, Any]]:
  """An earlier visit as the Runner stores it (JSON events): the customer names ``drink``, the
  tool saves it (its response and state_delta), the model confirms."""
  uuid = lambda: str(UUID(int=rng.getrandbits(128), version=4))  # noqa: E731
  turn, call, saved = f"e-{uuid()}", f"adk-{uuid()}", {"status": "saved", "favorite_drink": drink}
  parts = [("user", {"text": f"My favourite drink is: {drink}"}, {}),
           ("model", {"function_call": {"id": call, "name": TOOL, "args": {"drink": drink}}}, {}),
           ("user", {"function_response": {"id": call, "name": TOOL, "response": saved}},
            {"user:favorite_drink": drink, "last_drink": drink}),
           ("model", {"text": f"Saved: {json.dumps(saved, sort_keys=True)}"}, {})]
  return [{"id": uuid(), "invocation_id": turn, "author": "user" if n == 0 else AGENT,
           "timestamp": clock.tick(rng), "content": {"role": role, "parts": [part]},
           "actions": {"state_delta": delta}} for n, (role, part, delta) in enumerate(parts)]


def _interleave(rng: random.Random, lists: list[list]) -> list:
  """The lists' items merged at random, each list's own order kept."""
  placed = [(at, item) for items in lists for at, item in zip(
      sorted(rng.random() for _ in items), items)]
  return [item for _at, item in sorted(placed, key=lambda pair: pair[0])]


def _batch(rng: random.Random, a: list[str]) -> list[str]:
  """The drinks a customer thinks aloud about in one message, which the model saves one call
  each, all in one response (parallel calls): ``BATCH`` of them (log-uniform), all different,
  a few of the world's short awkward ones among fresh ones; the last one fresh."""
  count = log_uniform(rng, *BATCH)
  fresh = [f"{' '.join(w for w in (rng.choice(SIZES), rng.choice(MILKS), rng.choice(BASES)) if w)}"
           f" no. {n}" for n in rng.sample(range(1, 100 * count), count)]
  odd = [d for d in a if len(d) < 200]
  for drink in rng.sample(odd, min(3, len(odd))):
    fresh.insert(rng.randrange(len(fresh)), drink)
  return fresh


def _said(rng: random.Random, how: str, drink: Any) -> str:
  """What the customer types: the drink in their own words (collapsed, lower case, around a
  sentence), never exactly the argument the model then passes to the tool (for a batch, a
  few of its drinks)."""
  if drink is None:
    return rng.choice(SMALL_TALK)
  if how == "batch":  # a few of the drinks, as the customer lists them
    return rng.choice(SAID[how]).format(" or ".join(" ".join(d.split()).lower()[:40]
                                                    for d in drink[:3]))
  shown = " ".join(drink.split()).lower()[:200] or "nothing, really"
  if shown == drink:
    shown = drink.upper() if drink.upper() != drink else f"number {drink}"
  return rng.choice(SAID[how]).format(shown)


def generate(rng: random.Random, variant: int) -> dict[str, Any]:
  kind, quirk, twin_kind = VARIANTS[variant]
  main = awkward_user_id(rng, kind or rng.choice(("glob", "emoji", "spaces")))
  looks = lookalike_ids(rng, main)
  composed = unicodedata.normalize("NFD" if main == unicodedata.normalize("NFC", main)
                                   else "NFC", main)
  speakers = [main, looks[0]] + ([composed if composed != main else looks[1]]
                                 if variant in (1, 2) else [])
  bystanders = [u for u in dict.fromkeys(looks[1:3] + [composed, rng.choice(FIRST_NAMES)])
                if u not in speakers][:3]
  app = f"{rng.choice(STEMS)}_{rng.randrange(10, 99)}"
  twin_app = f"{app}_beta" if twin_kind == "suffix" else app.upper()
  shared = rng.choice(SHARED_SESSION_IDS)
  d0, old, elsewhere = _drinks(rng, quirk, 3)  # of earlier visits
  a, t1 = awkward_drinks(rng, variant), None  # what is named now: ten drinks
  if variant == 1:  # the third customer names the customer's first drink, composed otherwise
    twins = [d for d in a if unicodedata.normalize("NFC", d) != unicodedata.normalize("NFD", d)]
    a.insert(0, a.pop(a.index(twins[0])))
    t1 = unicodedata.normalize("NFC" if a[0] != unicodedata.normalize("NFC", a[0]) else "NFD",
                               a[0])
  clock, store = Clock(rng), []

  def create(app_: str, user: str, sid: str, state: dict[str, Any]) -> str:
    store.append({"op": "create", "app": app_, "user": user, "id": sid, "state": state})
    return sid

  def visit(app_: str, user: str, sid: str, drink: str) -> None:
    store.extend({"op": "append", "app": app_, "user": user, "id": sid, "event": event}
                 for event in _visit(rng, clock, drink))

  profile = {"user:name": main.strip().title(), "user:allergies": rng.sample(
      ["nuts", "lactose", "gluten", "soy"], rng.randrange(1, 3)),
      "user:loyalty": {"stamps": rng.randrange(1, 9), "tier": rng.choice(("gold", "basic"))}}
  app_state = {"app:menu": {"season": rng.choice(("autumn", "spring")),
                            "specials": rng.sample(BASES, 2)}, "app:opening": "7-19"}
  visit_id = (lambda: f'visit "{secret(rng)[:4]}"') if kind == "quotes" \
      else (lambda: f"visit-{secret(rng)}")
  if variant != 3:  # a regular: an earlier visit set a favourite; else a first visit
    earlier = create(app, main, visit_id(), {**app_state, **profile, "table": 4,
                                             "order": {"items": [old], "paid": True}})
    visit(app, main, earlier, d0)
  s1 = create(app, main, shared, {**(app_state if variant == 3 else {}), "table": 2}
              if variant % 2 else {})
  s2 = create(app, main, visit_id(), {})
  new = create(app, main, f"later-{secret(rng)}", {"mood": "rushed"} if variant else {})
  sl = create(app, speakers[1], shared, {"user:name": speakers[1].strip()} if variant else {})
  st = create(app, speakers[2], visit_id(), {}) if len(speakers) > 2 else None
  for user in bystanders:
    sid = create(app, user, rng.choice((shared, visit_id())), {"user:name": user.strip()})
    visit(app, user, sid, rng.choice((old, elsewhere, a[0])))
  twin = create(twin_app, main, shared, {"user:name": main.strip(), "app:menu": {"season": "x"}})
  visit(twin_app, main, twin, elsewhere)

  # the customer changes their mind across two conversations and names the favourite it already
  # is (in another conversation, then where it already is last_drink); the look-alikes name
  # theirs in between, one the very drink the customer just named; ``new``, the customer's
  # next conversation, is never spoken in: it must stay as it was (no last_drink)
  main_steps = [(s1, a[0], "first"), (s2, a[1], "first"), (s2, a[2], "change"),
                (s1, a[2], "again"), (s1, a[2], "again"), (s2, a[3], "change"),
                (s1, a[4], "change"), (s2, a[7], "change"), (s1, a[8], "change")]
  look_steps = [(sl, a[5], "first"), (sl, a[9], "change")] + (
      [(sl, a[6], "change")] if variant != 2 else [])
  # many calls in one response, at a random point: a process makes a number of calls nobody
  # can guess, and the calls of every later turn come after them
  look_steps.insert(rng.randrange(len(look_steps) + 1), (sl, _batch(rng, a), "batch"))
  third = {1: [(speakers[-1], st, t1, "first")], 2: [(speakers[-1], st, a[6], "first")]}
  steps = _interleave(rng, [[(main,) + s for s in main_steps[1:]],
                            [(speakers[1],) + s for s in look_steps], third.get(variant, [])])
  steps[:0] = [(main,) + main_steps[0], (speakers[1], sl, a[0], "change")]
  turns = [{"user": user, "session": sid, "text": _said(rng, how, drink),
            **({"drink": drink[-1], "batch": drink} if how == "batch" else {"drink": drink})}
           for user, sid, drink, how in steps]
  return {"variant": variant, "app": app, "twin_app": twin_app, "main": main,
          "speakers": speakers, "bystanders": bystanders, "store": store, "turns": turns}


async def build(spec: dict[str, Any], folder: Path, resources: Resources) -> dict[str, Any]:  # noqa: ARG001
  await play(SqliteSessionService(str(folder / DB_NAME)), spec["store"])
  return {"db": DB_NAME, "app": spec["app"],
          "turns": [[t["user"], t["session"], t["text"], named(t)] for t in spec["turns"]]}


def named(turn: dict[str, Any]) -> Optional[list[str]]:
  """The drinks the model passes in a turn, one call each (None: it calls nothing)."""
  return turn.get("batch") or ([turn["drink"]] if turn["drink"] is not None else None)


# --- act ---------------------------------------------------------------------------------------

def _rules(named: list) -> list:
  """The offline model: a turn that names drinks -> one call of the tool for each drink, all in
  one response (what ``named[0]`` holds: the model words them its own way, not as the message
  did); the tool's answer -> a confirmation that quotes it; anything else -> a greeting."""
  from adkcourse.offline_model import fallback, on_tool, on_user

  def confirm(turn: Any) -> str:
    return "Saved: " + json.dumps(turn.result, sort_keys=True, ensure_ascii=False, default=str)

  return [on_user("", calls=lambda match, turn: [(TOOL, {"drink": d}) for d in named[0]],
                  when=lambda turn: bool(named[0])),
          on_tool(TOOL, reply=confirm), fallback("Hello! What can I get you?")]


def _declaration(tool_context: ToolContext, drink: str) -> dict:  # noqa: ARG001
  """Remember the customer's favourite drink (for all their visits) and this visit's drink.

  Args:
    drink: the drink the customer named, e.g. "oat milk latte".
  """
  raise NotImplementedError("the contract's declaration: never called")


_declaration.__name__ = TOOL


async def act(fn: Callable, world: ActWorld) -> None:
  """Play the world's turns through a Runner whose agent has ``fn`` as its tool (one call per
  turn: the tool runs inside it, once per drink); the snapshot is taken after the last turn.
  What a turn made or changed outside the world's folder and the call's temporary and home
  folders (``OutsideWrites``: a file at a fixed ``/tmp`` path, which the students' self-check,
  run in their own process, would not see otherwise) is written to ``OUTSIDE`` first."""
  from google.adk.agents import Agent
  from google.adk.runners import Runner

  from adkcourse.offline_model import OfflineModel

  name = getattr(fn, "__name__", TOOL)
  if name != TOOL:
    world.snapshot_notes.append(f"the function is called `{name}`; the tool must be named {TOOL}")
  if inspect.iscoroutinefunction(fn):
    world.snapshot_notes.append(f"`{TOOL}` is defined with `async def`: the contract is a plain "
                                "`def`")
  named: list = [None]  # the drinks the model passes in this turn
  agent = Agent(name=AGENT, model=OfflineModel(rules=_rules(named)),
                tools=[DeclaredTool(fn, _declaration)], instruction=INSTRUCTION)
  runner = Runner(app_name=world.inputs["app"], agent=agent,
                  session_service=SqliteSessionService(world.path(world.inputs["db"])))
  allowed = [world.folder, (world.elsewhere_root or world.folder.parent)
             / f"elsewhere-{world.index}"]  # the call's temporary and home folders
  strays: dict[str, list[str]] = {}  # path -> entry: the first turn that made it says so
  with quiet_adk():
    for user, session, text, named[0] in world.inputs["turns"]:
      drinks = [d.encode("utf-8", "replace") for d in named[0] or ()]
      with OutsideWrites(allowed, lambda drinks=drinks: drinks) as outside:
        await world.call(say, runner, user, session, text, label=TOOL, is_async=None)
      for stray in outside.strays():
        strays.setdefault(stray[1], stray)
      if world.outcomes[-1]["raised"] or world.outcomes[-1]["stopped"]:
        break  # the world earns nothing now: no need to play the rest
  if strays:
    (world.folder / OUTSIDE).write_text(json.dumps(list(strays.values())[:MAX_OUTSIDE],
                                                   ensure_ascii=True), encoding="utf-8")
  world.snapshot()


# --- observe -----------------------------------------------------------------------------------

async def observe(spec: dict[str, Any], folder: Path, inputs: dict[str, Any], view: View  # noqa: ARG001
                  ) -> dict:
  where = view.snapshot or folder
  observed = runner_stable(read_sqlite(where / DB_NAME, ("db",), trusted=view.kind == "pristine"))
  observed.update(folder_files(where, ("folder",)))
  observed.pop(("folder", "file", OUTSIDE), None)
  if view.kind != "pristine":
    observed.update(stray_files(folder.parent, ("elsewhere",)))
    observed.update(_outside(where / OUTSIDE))
  return observed


def _outside(path: Path) -> dict:
  """``OUTSIDE`` as ``("stray", path) -> what`` items (written where the submission ran: every
  field checked; a broken file is one item of its own)."""
  if not path.is_file():
    return {}
  try:
    entries = json.loads(path.read_bytes()[:1_000_000].decode("utf-8"))
    if not isinstance(entries, list):
      raise ValueError("not a list")
    return {("stray", str(e[1])[:1000]): str(e[2])[:200] for e in entries[:MAX_OUTSIDE]
            if isinstance(e, list) and len(e) == 3}
  except (OSError, ValueError, TypeError) as error:
    return {("stray", "(unreadable)"): f"the record of files made outside is broken ({error})"}


def classify(spec: dict[str, Any], key: tuple) -> Any:
  if key[0] in ("folder", "elsewhere", "stray"):
    return STAYS  # a file of its own: something else outlives the conversation
  if key[0] == "db" and key[1] in ("missing", "unreadable"):
    return tuple(c.name for c in CHECKS)
  events = key[0] == "events"
  table, owner = ("events", key[1:3]) if events else (key[2], key[3:5]) if key[1] == "table" \
      else (None, ())
  if table not in ("events", "user_states", "sessions") or len(owner) < 2 \
      or owner[0] != spec["app"] or owner[1] not in spec["speakers"]:
    return OTHERS  # other customers and apps, app state, schema and format
  if events:  # a state change is judged by its key; the rest is what the model read and said
    field = key[6:]
    if field[:3] != ("event_data", "actions", "state_delta") or len(field) < 4:
      return CONFIRM
    return MINE.get(str(field[3]), OTHERS if str(field[3]).startswith("app:") else STAYS)
  field, own = (key[5:], "favorite_drink") if table == "user_states" else (key[6:], "last_drink")
  if field[:1] == ("state",) and len(field) > 1 and field[1] != own:
    return STAYS
  if field == ("update_time",) and table == "sessions":
    return CONFIRM  # a conversation's time follows its events
  return FAV if table == "user_states" else LAST


def describe(spec: dict[str, Any], key: tuple) -> str:  # noqa: ARG001
  if key[0] == "stray" and len(key) > 1:
    return f"the path {quote(str(key[1]))}, outside the world's folders"
  return describe_store_key(key, {"folder": "the database's folder",
                                  "elsewhere": "the work folder"})


def label(spec: dict[str, Any]) -> str:
  return (f"{len(spec['turns'])} turns of {', '.join(who(s) for s in spec['speakers'])} "
          f"in {quote(spec['app'])}")


# --- what every outcome must satisfy -----------------------------------------------------------

def _not(found: Any, drink: str) -> str:
  return f"{visible(found) if found is not ABSENT else 'nothing'}, not the drink {visible(drink)}"


def stored_as(found: Any, drink: str) -> bool:
  """Is ``found`` (a state column's value) ``drink`` as ADK's SQLite store keeps it? Whole, or
  cut at its first NUL: the store's merge of a state into a stored one (SQLite's JSON
  functions) ends a text there, whoever wrote it; the event's state_delta keeps it whole."""
  return type(found) is str and (found == drink or "\x00" in drink
                                 and found == drink[:drink.index("\x00")])


def properties(spec: dict[str, Any], observed: dict, pristine: dict) -> list[tuple[str, str]]:
  """What the contract says of every outcome (the reference's too): every call's answer holds
  its drink exactly, every turn's state_delta the drink named last in it; each speaker's
  favourite and each conversation's last drink is the drink named last there, as a str (as
  ADK's store keeps it: ``stored_as``); nothing of anyone else changed; something was stored
  at all."""
  problems: list[tuple[str, str]] = []
  app, favourite, last, turns = spec["app"], {}, {}, {}
  for turn in spec["turns"]:  # their conversations start empty: turn n there is the n-th
    where = (turn["user"], turn["session"])
    turns[where] = turns.get(where, 0) + 1
    if turn["drink"] is None:
      continue
    favourite[turn["user"]] = last[where] = drink = turn["drink"]
    event = ("events", app, *where, turns[where], 3, "event_data")
    for name, check in MINE.items():
      found = observed.get(event + ("actions", "state_delta", name), ABSENT)
      if not (type(found) is str and found == drink):
        problems.append((check, f"{describe(spec, event + ('actions', 'state_delta', name))} "
                                f"is {_not(found, drink)}"))
    for part, said in enumerate(named(turn) or ()):  # one answer per call, in call order
      answer = event + ("content", "parts", part, "function_response", "response")
      found = {k[len(answer):]: v for k, v in observed.items() if k[:len(answer)] == answer}
      if not same(found, {("status",): "saved", ("favorite_drink",): said}):
        problems.append((CONFIRM, f"{describe(spec, answer)} is not exactly {{'status': "
                                  f"'saved', 'favorite_drink': {visible(said)}}}"))
  for user, drink in favourite.items():
    found = observed.get(("db", "table", "user_states", app, user, "state", "favorite_drink"),
                         ABSENT)
    if not stored_as(found, drink):
      problems.append((FAV, f"{who(user)}'s user:favorite_drink is {_not(found, drink)}"))
  for (user, sid), drink in last.items():
    found = observed.get(("db", "table", "sessions", app, user, sid, "state", "last_drink"),
                         ABSENT)
    if not stored_as(found, drink):
      problems.append((LAST, f"{quote(sid)} of {who(user)} has last_drink {_not(found, drink)}"))
  changed = [key for key in set(observed) | set(pristine) if key[0] != "returned"
             and not same(observed.get(key, ABSENT), pristine.get(key, ABSENT))]
  problems += [(classify(spec, key), f"{describe(spec, key)} changed") for key in changed
               if classify(spec, key) in (STAYS, OTHERS)]
  if not any(key[0] == "db" and "state" in key for key in changed):
    problems += [(check, "the tool stored nothing, so leaving the rest untouched proves nothing "
                         "yet") for check in (STAYS, OTHERS)]
  return problems


CHECKS = (
    Check(FAV, 3,
          "Every call sets the customer's `user:favorite_drink` to `drink` itself (a str, "
          "exactly as said), even when it already holds it: every later conversation of this "
          "customer in this app sees the drink they named last; no one else does.",
          hint="The user: prefix keeps a key for every conversation of one customer of one app; "
               "store `drink` unchanged, on every call, whatever it holds (empty, blank, long, "
               "quoted, with line breaks or invisible spaces): no strip, cut, escape, filter or "
               "refusal, no change of case or Unicode form (é, or e followed by an accent)",
          success="every customer's later conversations see the drink they named last"),
    Check(LAST, 2,
          "Every call sets `last_drink` to `drink` in this conversation's own state: each "
          "conversation keeps the drink last named in it; a new one starts without one.",
          hint="A key without a prefix belongs to the conversation; set it to `drink` unchanged "
               "on every call, even to the value it already has",
          success="each conversation holds the drink last named in it as last_drink"),
    Check(STAYS, 2,
          "Nothing else is stored: no other key at any scope (no copy of the drink under "
          "another key, no history, no extra conversation key, no file), and the customer's "
          "other keys (`user:name`...) stay exactly as they were, not even rewritten with their "
          "own value. temp: keys, which ADK never stores, are yours.",
          hint="Each call's state_delta must hold exactly the two keys: anything else written "
               "through tool_context.state is stored (None included) and outlives the call; a "
               "file (in the temporary or home folder too) outlives it as well",
          success="nothing but the two keys is stored", needs_action=True),
    Check(OTHERS, 2,
          "Other customers (ids that share a prefix, differ by case or look the same, the same "
          "session id), the same customer in another app, the app's state and the rest of the "
          "file stay exactly as they were.",
          hint="app: keys are every customer's; user: keys belong to the customer of this "
               "conversation in this app only",
          success="other customers, other apps and the app's state are unchanged",
          needs_action=True),
    Check(CONFIRM, 1,
          "Every call returns exactly {\"status\": \"saved\", \"favorite_drink\": drink}: the "
          "function_response the model reads, and so its confirmation, say what was saved.",
          hint="Return a plain dict with exactly these two items and the drink unchanged: a "
               "str, another wording or extra items are another answer",
          success="every answer tells the model exactly what was saved"),
)

EXERCISE = Exercise(
    name=TOOL,
    lesson="01_sessions_events_state",
    signature="def remember_favorite_drink(tool_context: ToolContext, drink: str) -> dict",
    is_async=False,
    checks=CHECKS,
    generate=generate,
    build=build,
    act=act,
    observe=observe,
    classify=classify,
    properties=properties,
    worlds=len(VARIANTS),
    calls=lambda spec: len(spec["turns"]),
    describe_key=describe,
    label=label,
    outcome_check=FAV,
)
