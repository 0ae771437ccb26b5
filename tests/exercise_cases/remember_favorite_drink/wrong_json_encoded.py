"""Stores json.dumps(drink): the value carries quotes and escapes the customer never said."""

import json

LOSES = ("favorite_follows_the_customer", "last_drink_in_each_session")


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:favorite_drink"] = json.dumps(drink)
  tool_context.state["last_drink"] = json.dumps(drink)
  return {"status": "saved", "favorite_drink": drink}
