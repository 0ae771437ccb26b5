"""Sets skip_summarization=False explicitly: ADK's default behaviour, so the same outcome."""


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.actions.skip_summarization = False  # the model still confirms what was saved
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
