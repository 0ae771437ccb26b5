"""Keeps a list of the drinks named in the conversation as well: an extra conversation key."""

LOSES = ("last_drink_stays_in_its_session",)


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  tool_context.state["drinks"] = list(tool_context.state.get("drinks", [])) + [drink]
  return {"status": "saved", "favorite_drink": drink}
