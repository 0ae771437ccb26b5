"""Both keys in one `state.update(...)`, prefix from ADK's State constants, reply built apart."""

from google.adk.sessions.state import State


def remember_favorite_drink(tool_context, drink: str) -> dict:
  saved = {State.USER_PREFIX + "favorite_drink": drink, "last_drink": drink}
  tool_context.state.update(saved)
  reply = {"status": "saved"}
  reply["favorite_drink"] = saved["user:favorite_drink"]
  return reply
