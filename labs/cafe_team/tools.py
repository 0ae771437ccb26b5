"""The team's tools. State goes through ``tool_context.state``; files through
``tool_context.save_artifact`` / ``load_artifact``, which need an artifact service on the Runner.

* ``table``, ``current_order``, ``pastry_pick``: no prefix, this session only;
* ``temp:seated_by``: this invocation only (never stored);
* ``receipt.txt``: a session artifact, a new version on every save;
* ``user:loyalty_card.txt``: a ``user:`` artifact, shared by all of this user's sessions.
"""

from __future__ import annotations

from google.adk.tools import ToolContext
from google.genai import types

from labs.cafe_concierge.tools import CAFE_MENU, place_order  # noqa: F401  (the same menu)

RECEIPT = "receipt.txt"
LOYALTY_CARD = "user:loyalty_card.txt"
PASTRIES = ("croissant", "banana bread")


def seat_customer(tool_context: ToolContext, table: int) -> dict:
  """Seats the customer at a table before the barista takes the order.

  Args:
    tool_context: Provided automatically by ADK.
    table: The table number.
  """
  tool_context.state["table"] = table
  tool_context.state["temp:seated_by"] = "the host"
  return {"table": table}


def note_pastry(tool_context: ToolContext, pastry: str) -> dict:
  """Notes the pastry suggested to go with the order.

  Args:
    tool_context: Provided automatically by ADK.
    pastry: The pastry, from the menu.
  """
  tool_context.state["pastry_pick"] = pastry
  return {"pastry": pastry}


async def save_receipt(tool_context: ToolContext) -> dict:
  """Prints the receipt of the current order (saved as a file) and stamps the loyalty card.

  Use this tool when the customer asks for the receipt or the bill.

  Args:
    tool_context: Provided automatically by ADK.
  """
  order = tool_context.state.get("current_order")
  if not order:
    return {"error": "There is no order to print a receipt for yet"}
  lines = [f"{item}: ${float(CAFE_MENU[item]['price']):.2f}" for item in order["items"]]
  text = "\n".join([*lines, f"total: ${order['total']:.2f}"])
  version = await tool_context.save_artifact(RECEIPT, types.Part.from_text(text=text))
  card = await tool_context.load_artifact(LOYALTY_CARD)
  stamps = int(card.text.split()[0]) + 1 if card is not None and card.text else 1
  await tool_context.save_artifact(LOYALTY_CARD, types.Part.from_text(text=f"{stamps} stamps"))
  return {"receipt": RECEIPT, "version": version, "stamps": stamps}
