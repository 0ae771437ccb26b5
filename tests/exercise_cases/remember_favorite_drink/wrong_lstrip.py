"""Strips leading whitespace ("the model puts a space after the colon"): not the drink."""

from google.adk.tools import ToolContext


def remember_favorite_drink(tool_context: ToolContext, drink: str) -> dict:
  drink = drink.lstrip()
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
