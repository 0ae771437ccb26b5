"""Uses temp: keys as scratch (never stored) and ADK's State prefixes: the same stored outcome."""

from google.adk.sessions.state import State


def remember_favorite_drink(tool_context, drink: str) -> dict:
  state = tool_context.state
  state[State.TEMP_PREFIX + "previous"] = state.get(State.USER_PREFIX + "favorite_drink")
  state[State.TEMP_PREFIX + "calls"] = state.get(State.TEMP_PREFIX + "calls", 0) + 1
  state[State.USER_PREFIX + "favorite_drink"] = drink
  state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
