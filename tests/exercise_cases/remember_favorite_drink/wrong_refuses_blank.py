"""Refuses a blank drink (an error, nothing saved): every call saves the drink as given."""

from google.adk.tools import ToolContext


def remember_favorite_drink(tool_context: ToolContext, drink: str) -> dict:
  if not drink or not drink.strip():
    return {"status": "error", "message": "no drink given"}
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
