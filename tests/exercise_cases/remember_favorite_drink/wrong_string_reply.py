"""Returns a sentence instead of the dict: ADK wraps it as {"result": ...}, another answer."""

LOSES = ("returns_confirmation",)


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return f"Saved {drink} as your favourite."
