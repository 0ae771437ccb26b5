"""`app:favorite_drink`: one favourite shared by every customer of the app."""

LOSES = ("favorite_follows_the_customer", "other_customers_unaffected")


def remember_favorite_drink(tool_context, drink: str) -> dict:
  tool_context.state["app:favorite_drink"] = drink
  tool_context.state["last_drink"] = drink
  return {"status": "saved", "favorite_drink": drink}
