"""Parameters in another order and the context under another name: ADK binds them by annotation."""

from google.adk.tools import ToolContext


def remember_favorite_drink(drink: str, ctx: ToolContext) -> dict:
  ctx.state["last_drink"] = drink
  ctx.state["user:favorite_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
