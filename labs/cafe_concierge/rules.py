"""What the offline model does for the concierge (used only when no Gemini key is set).

The rules read the *real* request: the reply to "what do you remember?" is built from the
system instruction ADK sent, after it filled in ``{user:dietary_preferences?}`` and
``{current_order?}``; so the reply shows what the agent was actually told.
"""

from __future__ import annotations

import re

from adkcourse.offline_model import Turn, fallback, on_tool, on_user

from .tools import CAFE_MENU

_ITEM_SPLIT = re.compile(r"\s*(?:,|\band\b|\bplus\b|&)\s*", re.IGNORECASE)
_ARTICLE = re.compile(r"^(?:an?|one|the|some|please)\s+", re.IGNORECASE)


def order_items(match: re.Match[str], turn: Turn) -> dict:
  """'a latte and a croissant, please' -> {'items': ['latte', 'croissant']}."""
  wanted = re.sub(r"[.!?]|\bplease\b", "", match.group("items"), flags=re.IGNORECASE)
  items = [_ARTICLE.sub("", part).strip() for part in _ITEM_SPLIT.split(wanted)]
  return {"items": [item for item in items if item]}


def preference(match: re.Match[str], turn: Turn) -> dict:
  return {"preference": match.group("pref").strip(" .!")}


def _instruction_value(turn: Turn, label: str) -> str:
  found = re.search(rf"^{re.escape(label)}:[ \t]*(.*)$", turn.instruction, re.MULTILINE)
  return found.group(1).strip() if found else ""


def what_i_remember(turn: Turn) -> str:
  prefs = _instruction_value(turn, "Customer's dietary preferences")
  order = _instruction_value(turn, "Current order")
  known = f"your dietary preferences are {prefs}" if prefs else "no dietary preferences yet"
  current = f"your current order is {order}" if order else "no order in this conversation yet"
  return f"From my instructions I know {known}, and {current}."


def order_reply(turn: Turn) -> str:
  result = turn.result
  if "error" in result:
    return f"Sorry! {result['error']}. Would you like something from the menu?"
  order = result["order"]
  text = f"Your order: {', '.join(order['items'])}, total ${order['total']:.2f}."
  if "warning" in result:
    text += f" Note: {result['warning']}."
  return text


def preference_reply(turn: Turn) -> str:
  saved = turn.result.get("all_preferences", [])
  return f"Noted! I'll remember: {', '.join(saved)}."


def greeting(turn: Turn) -> str:
  prefs = _instruction_value(turn, "Customer's dietary preferences")
  hello = "Welcome to the cafe! What can I get you?"
  if prefs:
    hello += f" I remember your dietary preferences: {prefs}."
  return hello


_MENU_WORDS = "|".join(sorted((re.escape(k) for k in CAFE_MENU), key=len, reverse=True))

OFFLINE_RULES = [
    on_user(r"\b(?:i(?:'m| am)|i'm)\s+(?P<pref>vegan|vegetarian|lactose[- ]intolerant|"
            r"gluten[- ]free|pescatarian)\b", call="set_dietary_preference", args=preference),
    on_user(r"\bi have an? (?P<pref>[\w -]+?allergy)\b", call="set_dietary_preference",
            args=preference),
    on_user(r"\b(?:remember|know about me)\b", reply=what_i_remember),
    on_user(r"\b(?:i(?:'d| would) like|i want|order|get me|can i have)\s+(?P<items>.+)",
            call="place_order", args=order_items),
    on_user(rf"^\s*(?P<items>(?:an?\s+)?(?:{_MENU_WORDS})\b.*)$", call="place_order",
            args=order_items),
    on_tool("place_order", reply=order_reply),
    on_tool("set_dietary_preference", reply=preference_reply),
    fallback(greeting),
]
