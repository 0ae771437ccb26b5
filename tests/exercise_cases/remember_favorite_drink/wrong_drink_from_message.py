"""Takes the drink from the customer's message, not from the drink argument."""

import re
from google.adk.tools import ToolContext


def remember_favorite_drink(tool_context: ToolContext, drink: str) -> dict:
  content = tool_context.user_content
  text = "".join(p.text or "" for p in (content.parts or [])) if content else ""
  found = re.search(r"drink is:? ?(.+)$", text)
  if found:
    drink = found.group(1)
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
