"""An async tool (ADK awaits it): the stored result is the same, only a note mentions `def`."""


async def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["last_drink"] = drink
  tool_context.state["user:favorite_drink"] = drink
  return {"status": "saved", "drink": drink}
