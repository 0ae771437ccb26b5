"""Sets skip_summarization: the model never answers after the tool, so nothing is confirmed."""

LOSES = ("returns_confirmation",)


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  tool_context.actions.skip_summarization = True
  return {"status": "saved", "favorite_drink": drink}
