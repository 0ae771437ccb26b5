"""Saves under user:favourite_drink (British spelling): the contract's key is favorite_drink."""

LOSES = ("favorite_follows_the_customer",)


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:favourite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
