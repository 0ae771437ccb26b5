"""Answers with the favourite as it was before the call: the model confirms the wrong drink."""

LOSES = ("returns_confirmation",)


def remember_favorite_drink(tool_context, drink: str) -> dict:
  before = tool_context.state.get("user:favorite_drink", drink)
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": before}
