"""Writes a key only when its value changes: a drink named again leaves no trace in the event."""

LOSES = ("favorite_follows_the_customer", "last_drink_in_each_session")


def remember_favorite_drink(tool_context, drink: str) -> dict:
  if tool_context.state.get("user:favorite_drink") != drink:
    tool_context.state["user:favorite_drink"] = drink
  if tool_context.state.get("last_drink") != drink:
    tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
