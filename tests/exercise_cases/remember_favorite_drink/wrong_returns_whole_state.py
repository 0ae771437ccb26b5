"""Answers with the whole state ("what was saved"): the model reads the other keys too."""

LOSES = ("returns_confirmation",)


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink, **tool_context.state.to_dict()}
