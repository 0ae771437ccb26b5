"""Stores both keys right but forgets to return: the model reads an empty answer."""

LOSES = ("returns_confirmation",)


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["user:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
