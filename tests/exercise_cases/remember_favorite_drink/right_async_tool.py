"""An async tool (ADK awaits it), keys in the other order: the same outcome, a note on `def`."""


async def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["last_drink"] = drink
  tool_context.state["user:favorite_drink"] = drink
  return {"favorite_drink": drink, "status": "saved"}
