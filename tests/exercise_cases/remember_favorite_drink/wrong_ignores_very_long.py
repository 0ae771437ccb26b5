"""Ignores a drink longer than 70,000 characters "as junk": the contract allows up to 100,000."""

from google.adk.tools import ToolContext

CAP = 70_000


def remember_favorite_drink(tool_context: ToolContext, drink: str) -> dict:
  if len(drink) <= CAP:
    tool_context.state["user:favorite_drink"] = drink
    tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink[:CAP]}
