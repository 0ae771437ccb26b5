"""`user:last_drink`: every conversation of the customer sees (and overwrites) it."""

LOSES = ("last_drink_in_each_session", "last_drink_stays_in_its_session")


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["user:last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
