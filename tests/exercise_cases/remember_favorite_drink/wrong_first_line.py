"""Keeps only the first line and turns tabs into spaces: not the drink as said."""

from google.adk.tools import ToolContext


def remember_favorite_drink(tool_context: ToolContext, drink: str) -> dict:
  drink = drink.splitlines()[0].replace("\t", " ") if drink else drink
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
