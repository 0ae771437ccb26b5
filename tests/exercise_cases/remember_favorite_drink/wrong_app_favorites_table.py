"""Keeps every customer's favourite in one app: dict keyed by user id: every customer sees all."""

LOSES = ("favorite_follows_the_customer", "other_customers_unaffected")


def remember_favorite_drink(tool_context, drink: str) -> dict:
  favourites = dict(tool_context.state.get("app:favorites", {}))
  favourites[tool_context.user_id] = drink
  tool_context.state["app:favorites"] = favourites
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
