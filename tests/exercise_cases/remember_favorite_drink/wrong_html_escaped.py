"""HTML-escapes the drink "against injection": & < > are stored as entities."""

import html
from google.adk.tools import ToolContext


def remember_favorite_drink(tool_context: ToolContext, drink: str) -> dict:
  drink = html.escape(drink, quote=False)
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
