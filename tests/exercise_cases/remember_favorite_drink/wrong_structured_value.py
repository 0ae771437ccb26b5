"""Stores a dict ({"name": drink}) where the contract asks for the drink itself."""

LOSES = ("favorite_follows_the_customer", "last_drink_in_each_session")


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:favorite_drink"] = {"name": drink}
  tool_context.state["last_drink"] = {"name": drink}
  return {"status": "saved", "favorite_drink": drink}
