"""Parses a drink that reads as JSON ("42", "null", "[]"): a number or None is stored."""

import json


def remember_favorite_drink(tool_context, drink: str) -> dict:
  try:
    value = json.loads(drink)
  except ValueError:
    value = drink
  tool_context.state["user:favorite_drink"] = value
  tool_context.state["last_drink"] = value
  return {"status": "saved", "favorite_drink": value}
