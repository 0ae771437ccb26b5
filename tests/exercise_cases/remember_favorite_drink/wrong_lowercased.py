"""Stores the drink lower-cased ("so that matching is easy"): "ICED latte" was said."""

LOSES = ("favorite_follows_the_customer", "last_drink_in_each_session")


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:favorite_drink"] = drink.lower()
  tool_context.state["last_drink"] = drink.lower()
  return {"status": "saved", "favorite_drink": drink}
