"""The concierge's two tools. Both write state through ``tool_context.state``; the key's
prefix alone decides how long the value lives:

* ``current_order``            no prefix -> this session only
* ``user:dietary_preferences`` ``user:`` -> every session of this user
"""

from __future__ import annotations

from google.adk.tools import ToolContext

CAFE_MENU: dict[str, dict[str, object]] = {
    "espresso": {"price": 2.50, "tags": ["vegan", "lactose free"]},
    "americano": {"price": 3.00, "tags": ["vegan", "lactose free"]},
    "latte": {"price": 4.00, "tags": []},
    "oat milk latte": {"price": 4.50, "tags": ["vegan", "lactose free"]},
    "cappuccino": {"price": 4.00, "tags": []},
    "matcha latte": {"price": 4.75, "tags": []},
    "croissant": {"price": 3.25, "tags": []},
    "banana bread": {"price": 3.50, "tags": ["nut free"]},
    "fruit cup": {"price": 4.00, "tags": ["vegan", "lactose free", "nut free", "gluten free"]},
}


def place_order(tool_context: ToolContext, items: list[str]) -> dict:
  """Places an order for the given menu items.

  Use this tool when the customer says what they want to order.

  Args:
    tool_context: Provided automatically by ADK.
    items: The names of the menu items the customer wants.
  """
  valid: list[str] = []
  invalid: list[str] = []
  total = 0.0
  for item in items:
    name = item.lower().strip()
    if name in CAFE_MENU:
      valid.append(name)
      total += float(CAFE_MENU[name]["price"])  # type: ignore[arg-type]
    else:
      invalid.append(item)
  if not valid:
    return {"error": f"None of these items are on our menu: {invalid}"}
  order = {"items": valid, "total": round(total, 2)}
  tool_context.state["current_order"] = order
  result: dict = {"order": order}
  if invalid:
    result["warning"] = f"These items are not on our menu: {invalid}"
  return result


def set_dietary_preference(tool_context: ToolContext, preference: str) -> dict:
  """Saves a dietary preference that applies to all of this customer's conversations.

  Use this tool when the customer mentions a dietary restriction or preference
  (for example "I'm vegan", "I'm lactose intolerant", "I have a nut allergy").

  Args:
    tool_context: Provided automatically by ADK.
    preference: The preference to remember, e.g. "vegan" or "nut allergy".
  """
  existing = tool_context.state.get("user:dietary_preferences", [])
  if not isinstance(existing, list):
    existing = []
  existing = list(existing)  # a copy: the stored value changes only through the state write
  preference = preference.lower().strip()
  if preference not in existing:
    existing.append(preference)
  tool_context.state["user:dietary_preferences"] = existing
  return {"saved": preference, "all_preferences": existing}
