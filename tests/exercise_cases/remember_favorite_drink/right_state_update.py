"""Both keys in one `state.update(...)` call, prefix from ADK's State constants, richer reply."""

from google.adk.sessions.state import State


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state.update({State.USER_PREFIX + "favorite_drink": drink, "last_drink": drink})
  return {"saved": {"favorite_drink": drink, "last_drink": drink}, "message": f"Noted: {drink}"}
