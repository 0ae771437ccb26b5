"""What the offline model does for the team (used only when no Gemini key is set).

Transfers and tool calls are real: the rules only choose which function the model asks for.
``RULES`` maps each agent's name to its rules (for ``adkcourse.model_choice.SCRIPTED_RULES``
and the fake Gemini endpoint).
"""

from __future__ import annotations

import re

from adkcourse.offline_model import Rule, Turn, fallback, on_tool, on_user

from labs.cafe_concierge.rules import order_items, order_reply

from .tools import PASTRIES


_QUOTED = "For context:"


def customer_text(turn: Turn) -> str:
  """The customer's latest message. After a transfer, ADK sends the new agent what the previous
  agent did as user contents starting "For context:" (after the customer's message), so the
  latest user text is that transcript, not what the customer said."""
  for content in reversed(turn.request.contents):
    texts = [p.text for p in content.parts or [] if p.text] if content.role == "user" else []
    if texts and not texts[0].startswith(_QUOTED):
      return "\n".join(texts)
  return ""


def after_transfer(rule: Rule) -> Rule:
  """The same rule, for a request that arrives right after a transfer: it matches the
  customer's message instead of the "For context:" transcript."""
  pattern = rule.pattern
  assert pattern is not None
  found = lambda turn: pattern.search(customer_text(turn))
  args = (lambda match, turn: rule.args(found(turn), turn)) if rule.args else None
  calls = (lambda match, turn: rule.calls(found(turn), turn)) if rule.calls else None
  return on_user(rf"^{_QUOTED}", call=rule.call, calls=calls, args=args, reply=rule.reply,
                 when=lambda turn: found(turn) is not None)


def _instruction_value(turn: Turn, label: str) -> str:
  found = re.search(rf"^{re.escape(label)}:[ \t]*(.*)$", turn.instruction, re.MULTILINE)
  return found.group(1).strip() if found else ""


def _seat_and_transfer(match: re.Match[str], turn: Turn) -> list:
  return [("seat_customer", {"table": int(match.group("table"))}),
          ("transfer_to_agent", {"agent_name": "barista"})]


def _to(agent: str):
  return lambda match, turn: {"agent_name": agent}


def _host_greeting(turn: Turn) -> str:
  order = _instruction_value(turn, "Current order")
  if order:
    return f"Thank you for visiting! Your order today: {order}."
  return "Welcome to the cafe! Which table are you at?"


def _barista_hello(turn: Turn) -> str:
  table = _instruction_value(turn, "Table") or "no table yet"
  seated = _instruction_value(turn, "Seated by") or "nobody"
  return f"Hello! I'm the barista. Table: {table}, seated by: {seated}. What would you like?"


def _ask_chef(match: re.Match[str], turn: Turn) -> dict:
  order = _instruction_value(turn, "Current order") or "no order yet"
  return {"request": f"Suggest one pastry for this order: {order}"}


def _pick_pastry(match: re.Match[str], turn: Turn) -> dict:
  drinks = match.group(0).lower()
  return {"pastry": PASTRIES[1] if "banana" in drinks or "espresso" in drinks else PASTRIES[0]}


def _receipt_reply(turn: Turn) -> str:
  result = turn.result
  if "error" in result:
    return f"Sorry! {result['error']}."
  return (f"Here is your receipt ({result['receipt']}, version {result['version']}); "
          f"your loyalty card has {result['stamps']} stamps.")


_ARTIFACT_TEXT = re.compile(r"^Artifact (?P<name>\S+) is:\n(?P<body>.*)", re.DOTALL)


def _read_artifact(turn: Turn) -> str:
  found = _ARTIFACT_TEXT.search(turn.user_text)
  body = found.group("body").strip().replace("\n", "; ") if found else ""
  return f"Your {found.group('name') if found else 'file'} says: {body}"


HOST_RULES = [
    on_user(r"\btable (?P<table>\d+)\b", calls=_seat_and_transfer),
    on_user(r"\b(?:order|i(?:'d| would) like|latte|coffee|espresso|receipt|pastry)\b",
            call="transfer_to_agent", args=_to("barista")),
    on_tool("seat_customer", reply=lambda turn: f"You are at table {turn.result['table']}."),
    fallback(_host_greeting),
]

_BARISTA_ASKS = [
    on_user(r"\b(?:what does|read|show)\b.*\breceipt\b", call="load_artifacts",
            args=lambda match, turn: {"artifact_names": ["receipt.txt"]}),
    on_user(r"\b(?:receipt|bill)\b", call="save_receipt"),
    on_user(r"\b(?:pastry|something to eat)\b", call="pastry_chef", args=_ask_chef),
    on_user(r"\b(?:that's all|that is all|bye|goodbye)\b", call="transfer_to_agent",
            args=_to("cafe_host")),
    on_user(r"\b(?:i(?:'d| would) like|i want|order|get me|can i have)\s+(?P<items>.+)",
            call="place_order", args=order_items),
]

BARISTA_RULES = [
    # load_artifacts puts the file's text in the request as a user content, after the call.
    on_user(r"^Artifact (?P<name>\S+) is:\n(?P<body>.*)", reply=_read_artifact),
    *[after_transfer(rule) for rule in _BARISTA_ASKS],
    *_BARISTA_ASKS,
    on_tool("place_order", reply=order_reply),
    on_tool("save_receipt", reply=_receipt_reply),
    on_tool("pastry_chef", reply=lambda turn: f"The pastry chef says: {turn.result.get('result')}"),
    fallback(_barista_hello),
]

PASTRY_CHEF_RULES = [
    on_user(r"Suggest one pastry for this order: (?P<order>.*)", call="note_pastry",
            args=_pick_pastry),
    on_tool("note_pastry", reply=lambda turn: f"A {turn.result['pastry']} goes well with it."),
    fallback("Tell me the order and I will suggest a pastry."),
]

RULES = {"cafe_host": HOST_RULES, "barista": BARISTA_RULES, "pastry_chef": PASTRY_CHEF_RULES}
