"""Keeps the previous favourite as `user:previous_favorite`: an older drink outlives its visit."""

LOSES = ("last_drink_stays_in_its_session",)


def remember_favorite_drink(tool_context, drink: str) -> dict:
  previous = tool_context.state.get("user:favorite_drink")
  if previous is not None:
    tool_context.state["user:previous_favorite"] = previous
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink, "previous": previous}
