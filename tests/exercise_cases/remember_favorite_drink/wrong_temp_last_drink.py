"""`temp:last_drink`: temp: keys are never stored, so the conversation has no last_drink."""

LOSES = ("last_drink_in_each_session",)


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["temp:last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
