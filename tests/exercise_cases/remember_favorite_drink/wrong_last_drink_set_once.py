"""Sets last_drink only when the conversation has none yet: a customer who changes their mind
in the same conversation keeps the first drink as last_drink."""

LOSES = ("last_drink_in_each_session",)


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:favorite_drink"] = drink
  if tool_context.state.get("last_drink") is None:
    tool_context.state["last_drink"] = drink
  return {"saved": drink}
