"""Removes a leading "my favourite drink is": a drink that starts so loses its words."""

import re
from google.adk.tools import ToolContext
LEAD = re.compile(r"^\s*(?:my\s+)?favou?rite\s+drink\s+is\s*:?\s*", re.I)


def remember_favorite_drink(tool_context: ToolContext, drink: str) -> dict:
  drink = LEAD.sub("", drink)
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
