"""Also keeps every drink in a user-scoped `user:last_drinks` list: all conversations see them."""

LOSES = ("last_drink_stays_in_its_session",)


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  history = list(tool_context.state.get("user:last_drinks", []))
  tool_context.state["user:last_drinks"] = history + [drink]
  return {"status": "saved", "favorite_drink": drink}
