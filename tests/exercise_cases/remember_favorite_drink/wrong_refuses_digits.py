""""Validates" the drink: refuses one with digits or symbols (an error, nothing saved)."""

import re
from google.adk.tools import ToolContext
OK = re.compile(r"^[^\d<>{}\[\]\\/|@#$%^&*=+~`]+$")


def remember_favorite_drink(tool_context: ToolContext, drink: str) -> dict:
  if not OK.match(drink):
    return {"status": "error", "message": f"{drink!r} does not look like a drink"}
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
