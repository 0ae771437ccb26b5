"""Turns no-break, thin and ideographic spaces into plain spaces: not the drink as said."""

import re
from google.adk.tools import ToolContext


def remember_favorite_drink(tool_context: ToolContext, drink: str) -> dict:
  drink = re.sub(r"[\u00a0\u2000-\u200b\u202f\u3000]", " ", drink)
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
