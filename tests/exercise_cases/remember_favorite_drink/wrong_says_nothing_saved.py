"""Saves the drink but answers "Could not save X, nothing was saved": the model is told a lie."""

LOSES = ("returns_confirmation",)


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "error", "message": f"Could not save {drink}, nothing was saved"}
