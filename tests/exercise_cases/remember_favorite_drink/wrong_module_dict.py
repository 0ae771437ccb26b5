"""Keeps favourites in a module-level dict by user id: nothing reaches the store at all."""

LOSES = ("favorite_follows_the_customer",)

FAVOURITES: dict = {}


def remember_favorite_drink(tool_context, drink: str) -> dict:
  FAVOURITES[tool_context.user_id] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": FAVOURITES[tool_context.user_id]}
