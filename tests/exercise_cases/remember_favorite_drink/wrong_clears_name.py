"""Sets the customer's existing user:name to None ("resetting the profile"): None is stored."""

LOSES = ("last_drink_stays_in_its_session",)


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  tool_context.state["user:name"] = None
  return {"status": "saved", "favorite_drink": drink}
