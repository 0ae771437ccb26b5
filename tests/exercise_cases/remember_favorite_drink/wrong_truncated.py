"""Caps the stored drink at 60 characters "to keep state small": a long drink is cut."""

from google.adk.tools import ToolContext
MAX = 60


def remember_favorite_drink(tool_context: ToolContext, drink: str) -> dict:
  drink = drink[:MAX]
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
