"""Rewrites user:name with its own value on every call ("keep the profile fresh"): a third key."""

LOSES = ("last_drink_stays_in_its_session",)


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:name"] = tool_context.state.get("user:name", "guest")
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
