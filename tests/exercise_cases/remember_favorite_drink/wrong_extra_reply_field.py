"""Answers with a third item (last_drink): the contract's answer is exactly two items."""

LOSES = ("returns_confirmation",)


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink, "last_drink": drink}
