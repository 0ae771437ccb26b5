"""Writes the event's state_delta directly (what tool_context.state does for you)."""


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.actions.state_delta["user:favorite_drink"] = drink
  tool_context.actions.state_delta["last_drink"] = drink
  return dict(status="saved", favorite_drink=drink)
